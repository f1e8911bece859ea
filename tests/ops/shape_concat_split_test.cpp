#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

TEST(OpConcat, MiddleAxis) {
  Node n = make_node("Concat", 2);
  set_int(n, "axis", 1);
  Tensor a = iota(DType::kFloat32, {2, 1, 2});  // 0 1 | 2 3
  Tensor b = floats({2, 2, 2}, {10, 11, 12, 13, 14, 15, 16, 17});
  Tensor y = run1(n, {&a, &b});
  EXPECT_EQ(y.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17}));
}

TEST(OpConcat, NegativeAxisAndEmptyInput) {
  Node n = make_node("Concat", 3);
  set_int(n, "axis", -1);
  Tensor a = iota(DType::kInt64, {2, 2});
  Tensor empty(DType::kInt64, {2, 0});
  Tensor c = iota(DType::kInt64, {2, 1});
  Tensor y = run1(n, {&a, &empty, &c});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{0, 1, 0, 2, 3, 1}));
}

TEST(OpConcat, AxisZeroOfShapeVectors) {
  Node n = make_node("Concat", 2);
  set_int(n, "axis", 0);
  Tensor a = ints({1, 128});
  Tensor b = ints({12, 64});
  EXPECT_EQ(int_values(run1(n, {&a, &b})), (std::vector<int64_t>{1, 128, 12, 64}));
}

TEST(OpConcat, RejectsMismatchedShapesDtypesAndAxis) {
  Tensor a = iota(DType::kFloat32, {2, 2});
  Tensor b = iota(DType::kFloat32, {3, 2});
  Tensor c = iota(DType::kInt32, {2, 2});
  Node n = make_node("Concat", 2);
  set_int(n, "axis", 1);
  EXPECT_NE(run_error(n, {&a, &b}).find("does not match"), std::string::npos);
  EXPECT_NE(run_error(n, {&a, &c}).find("dtype"), std::string::npos);
  set_int(n, "axis", 2);
  EXPECT_NE(run_error(n, {&a, &a}).find("out of range"), std::string::npos);
  Node no_axis = make_node("Concat", 2);
  run_error(no_axis, {&a, &a});
}

TEST(OpSplit, EqualPartsByDefault) {
  Node n = make_node("Split", 1, 3);
  set_int(n, "axis", 1);
  Tensor x = iota(DType::kFloat32, {2, 6});
  auto r = run_node(n, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values((*r)[0]), (std::vector<double>{0, 1, 6, 7}));
  EXPECT_EQ(values((*r)[1]), (std::vector<double>{2, 3, 8, 9}));
  EXPECT_EQ(values((*r)[2]), (std::vector<double>{4, 5, 10, 11}));
}

TEST(OpSplit, SplitAttributeBeforeOpset13) {
  Node n = make_node("Split", 1, 2);
  set_ints(n, "split", {1, 3});
  Tensor x = iota(DType::kInt8, {4});
  auto r = run_node(n, {&x}, 11);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values((*r)[0]), (std::vector<double>{0}));
  EXPECT_EQ(values((*r)[1]), (std::vector<double>{1, 2, 3}));
}

TEST(OpSplit, SplitInputFromOpset13WithNegativeAxis) {
  Node n = make_node("Split", 2, 2);
  set_int(n, "axis", -2);
  Tensor x = iota(DType::kFloat16, {3, 2});
  Tensor split = ints({2, 1});
  auto r = run_node(n, {&x, &split}, 13);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values((*r)[1]), (std::vector<double>{4, 5}));
}

TEST(OpSplit, UnevenNeedsNumOutputs) {
  Tensor x = iota(DType::kFloat32, {7});
  Node plain = make_node("Split", 1, 3);
  EXPECT_NE(run_error(plain, {&x}, 13).find("equal parts"), std::string::npos);
  Node with_num = make_node("Split", 1, 3);
  set_int(with_num, "num_outputs", 3);  // opset 18 form: chunks of ceil(7/3) = 3, last smaller
  auto r = run_node(with_num, {&x}, 18);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{3}));
  EXPECT_EQ((*r)[1].shape(), (Shape{3}));
  EXPECT_EQ(values((*r)[2]), (std::vector<double>{6}));
}

TEST(OpSplit, RejectsBadSplitSizes) {
  Tensor x = iota(DType::kFloat32, {4});
  Node n = make_node("Split", 2, 2);
  Tensor wrong_sum = ints({1, 2});
  EXPECT_NE(run_error(n, {&x, &wrong_sum}).find("sum to 3"), std::string::npos);
  Tensor negative = ints({5, -1});
  run_error(n, {&x, &negative});
  Tensor wrong_count = ints({4});
  run_error(n, {&x, &wrong_count});
}

TEST(OpSplit, UnknownSplitValueGivesDtypeOnly) {
  Node n = make_node("Split", 2, 2);
  ValueInfo x = shape_info(DType::kFloat32, {4});
  ValueInfo s = shape_info(DType::kInt64, {2});
  InferResult r = infer_only(n, {&x, &s});
  ASSERT_TRUE(r.status.ok());
  EXPECT_FALSE(r.outputs[0].shape_known);
  EXPECT_EQ(r.outputs[1].dtype, DType::kFloat32);
}

TEST(OpSplit, LargeSplitThenConcatRoundTrips) {
  // Large enough for the parallel paths of both kernels.
  Tensor x = iota(DType::kFloat32, {8, 300, 50});
  Node split = make_node("Split", 2, 3);
  set_int(split, "axis", 1);
  Tensor sizes = ints({100, 7, 193});
  auto parts = run_node(split, {&x, &sizes});
  ASSERT_TRUE(parts.ok()) << parts.status().message();
  EXPECT_EQ((*parts)[1].shape(), (Shape{8, 7, 50}));
  EXPECT_EQ((*parts)[1].data<float>()[0], 100 * 50);  // element [0, 100, 0]
  Node concat = make_node("Concat", 3);
  set_int(concat, "axis", 1);
  Tensor y = run1(concat, {&(*parts)[0], &(*parts)[1], &(*parts)[2]});
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(values(y), values(x));
}

}  // namespace
}  // namespace openge::testing
