// NonZero, Compress, Unique: outputs sized from data. Expected values come from NumPy
// (np.nonzero, np.compress, np.unique with return_index/inverse/counts) and the ONNX examples.
#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

Tensor bools(std::vector<bool> v) {
  Tensor t(DType::kBool, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

TEST(OpNonZero, CoordinatesRowMajor) {
  Node n = make_node("NonZero", 1);
  Tensor x = floats({2, 2}, {1, 0, 1, -0.5f});
  Tensor y = run1(n, {&x});
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{0, 1, 1, 0, 0, 1}));
  Tensor zeros = floats({3}, {0, -0.0f, 0});
  EXPECT_EQ(run1(n, {&zeros}).shape(), (Shape{1, 0}));
}

TEST(OpNonZero, CompileTimeGivesOnlyTheDtype) {
  Node n = make_node("NonZero", 1);
  ValueInfo x = shape_info(DType::kFloat32, {4});
  InferResult r = infer_only(n, {&x});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].dtype, DType::kInt64);
  EXPECT_FALSE(r.outputs[0].shape_known);
}

TEST(OpCompress, AxisAndFlattened) {
  Tensor x = iota(DType::kFloat32, {3, 2});
  Node n0 = make_node("Compress", 2);
  set_int(n0, "axis", 0);
  Tensor c0 = bools({false, true, true});
  Tensor y0 = run1(n0, {&x, &c0});
  EXPECT_EQ(y0.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y0), (std::vector<double>{2, 3, 4, 5}));
  Node n1 = make_node("Compress", 2);
  set_int(n1, "axis", -1);
  Tensor c1 = bools({false, true});
  Tensor y1 = run1(n1, {&x, &c1});
  EXPECT_EQ(y1.shape(), (Shape{3, 1}));
  EXPECT_EQ(values(y1), (std::vector<double>{1, 3, 5}));
  Node flat = make_node("Compress", 2);
  Tensor cf = bools({false, true, false, false, true});  // shorter than 6: the rest is dropped
  EXPECT_EQ(values(run1(flat, {&x, &cf})), (std::vector<double>{1, 4}));
  Tensor too_long = bools({true, true, true, true});
  run_error(n0, {&x, &too_long});
}

TEST(OpUnique, SortedAndUnsortedWithAllOutputs) {
  Tensor x = floats({6}, {2, 1, 1, 3, 4, 3});
  Node s = make_node("Unique", 1, 4);
  auto r = run_node(s, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values((*r)[0]), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(int_values((*r)[1]), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ(int_values((*r)[2]), (std::vector<int64_t>{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(int_values((*r)[3]), (std::vector<int64_t>{2, 1, 2, 1}));
  Node u = make_node("Unique", 1, 4);
  set_int(u, "sorted", 0);
  auto q = run_node(u, {&x});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(values((*q)[0]), (std::vector<double>{2, 1, 3, 4}));
  EXPECT_EQ(int_values((*q)[1]), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(int_values((*q)[2]), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(int_values((*q)[3]), (std::vector<int64_t>{1, 2, 2, 1}));
}

TEST(OpUnique, AlongAxis) {
  Tensor x = ints({1, 0, 0, 1, 0, 0, 2, 3, 4}).reshaped({3, 3});
  Node n = make_node("Unique", 1, 4);
  set_int(n, "axis", 0);
  auto r = run_node(n, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(int_values((*r)[0]), (std::vector<int64_t>{1, 0, 0, 2, 3, 4}));
  EXPECT_EQ(int_values((*r)[1]), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(int_values((*r)[2]), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(int_values((*r)[3]), (std::vector<int64_t>{2, 1}));
  set_int(n, "axis", 2);
  run_error(n, {&x});
}

}  // namespace
}  // namespace openge::testing
