// DepthToSpace / SpaceToDepth (layout_ops.cpp). Expected values computed with NumPy, reshaping
// and transposing as the ONNX spec writes the ops.
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "shape_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;

TEST(OpDepthToSpace, DcrAndCrd) {
  Tensor x = iota(DType::kFloat32, {1, 8, 1, 2});
  Node dcr = make_node("DepthToSpace", 1);
  set_int(dcr, "blocksize", 2);
  expect_values(run1(dcr, {&x}), {1, 2, 2, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  Node crd = make_node("DepthToSpace", 1);
  set_int(crd, "blocksize", 2);
  set_string(crd, "mode", "CRD");
  expect_values(run1(crd, {&x}), {1, 2, 2, 4}, {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15});
  Tensor odd = iota(DType::kFloat32, {1, 6, 1, 1});
  run_error(dcr, {&odd});
}

TEST(OpSpaceToDepth, InvertsDcrForEveryElementSize) {
  Node s2d = make_node("SpaceToDepth", 1);
  set_int(s2d, "blocksize", 2);
  Tensor x = iota(DType::kInt16, {1, 1, 4, 4});
  Tensor y = run1(s2d, {&x});
  EXPECT_EQ(y.shape(), (Shape{1, 4, 2, 2}));
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
  Node d2s = make_node("DepthToSpace", 1);
  set_int(d2s, "blocksize", 2);
  Tensor back = run1(d2s, {&y});
  EXPECT_EQ(int_values(back), int_values(x));
  Tensor bad = iota(DType::kInt16, {1, 1, 3, 4});
  run_error(s2d, {&bad});
}

}  // namespace
}  // namespace openge::testing
