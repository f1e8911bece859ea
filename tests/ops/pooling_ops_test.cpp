// LpPool, GlobalLpPool, MaxUnpool, MaxRoiPool (pooling_ops.cpp). Expected values by hand or
// with NumPy (window sums of |x|^p, the ONNX MaxUnpool example).
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "shape_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;
using nn_util::run_ok;

Tensor ramp(Shape shape, double start = 0) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return float_tensor(shape, v);
}

TEST(OpLpPool, P2AndP1WithPads) {
  Tensor x = ramp({1, 1, 4, 4}, 1);
  Node n = make_node("LpPool", 1);
  set_ints(n, "kernel_shape", {2, 2});
  set_ints(n, "strides", {2, 2});
  expect_values(run1(n, {&x}), {1, 1, 2, 2}, {8.12403840, 11.74734012, 23.36664289, 27.31300057}, 1e-4);
  Node p1 = make_node("LpPool", 1);
  set_int(p1, "p", 1);
  set_ints(p1, "kernel_shape", {3, 3});
  set_ints(p1, "strides", {2, 2});
  set_ints(p1, "pads", {1, 1, 1, 1});
  expect_values(run1(p1, {&x}), {1, 1, 2, 2}, {14, 30, 57, 99});
}

TEST(OpGlobalLpPool, P2AndP3) {
  Tensor x = ramp({1, 1, 4, 4}, 1);
  Node n = make_node("GlobalLpPool", 1);
  expect_values(run1(n, {&x}), {1, 1, 1, 1}, {38.67815921}, 1e-4);
  set_int(n, "p", 3);
  expect_values(run1(n, {&x}), {1, 1, 1, 1}, {26.44595607}, 1e-4);
}

TEST(OpMaxUnpool, DefaultShapeOutputShapeAndBadIndex) {
  Node n = make_node("MaxUnpool", 2);
  set_ints(n, "kernel_shape", {2, 2});
  set_ints(n, "strides", {2, 2});
  Tensor x = float_tensor({1, 1, 2, 2}, {5, 6, 7, 8});
  Tensor idx = ints({5, 7, 13, 15}).reshaped({1, 1, 2, 2});
  expect_values(run1(n, {&x, &idx}), {1, 1, 4, 4}, {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8});
  Node with_shape = make_node("MaxUnpool", 3);
  set_ints(with_shape, "kernel_shape", {2, 2});
  set_ints(with_shape, "strides", {2, 2});
  Tensor shape = ints({1, 1, 5, 4});
  EXPECT_EQ(run1(with_shape, {&x, &idx, &shape}).shape(), (Shape{1, 1, 5, 4}));
  Tensor bad = ints({5, 7, 13, 16}).reshaped({1, 1, 2, 2});
  EXPECT_NE(run_error(n, {&x, &bad}).find("indices[0, 0, 1, 1] = 16 is out of range [0, 15]"), std::string::npos);
  // With output_shape 1x1x5x5 the values keep their 4x4 coordinates (ONNX example).
  Tensor shape5 = ints({1, 1, 5, 5});
  expect_values(run1(with_shape, {&x, &idx, &shape5}), {1, 1, 5, 5},
                {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0});
}

TEST(OpMaxRoiPool, BinsOfOneRegion) {
  Node n = make_node("MaxRoiPool", 2);
  set_ints(n, "pooled_shape", {2, 2});
  Tensor x = ramp({1, 1, 4, 4});
  Tensor rois = float_tensor({1, 5}, {0, 0, 0, 3, 3});
  expect_values(run1(n, {&x, &rois}), {1, 1, 2, 2}, {5, 7, 13, 15});
  Tensor bad_batch = float_tensor({1, 5}, {1, 0, 0, 3, 3});
  run_error(n, {&x, &bad_batch});
}

}  // namespace
}  // namespace openge::testing
