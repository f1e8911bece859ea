#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

TEST(OpReshape, CopiesZeroAndInfersMinusOne) {
  Node n = make_node("Reshape", 2);
  Tensor x = iota(DType::kFloat32, {2, 3, 4});
  Tensor shape = ints({0, -1});
  Tensor y = run1(n, {&x, &shape});
  EXPECT_EQ(y.shape(), (Shape{2, 12}));
  EXPECT_EQ(values(y), values(x));
}

TEST(OpReshape, AllowZeroMakesZeroLiteral) {
  Node n = make_node("Reshape", 2);
  set_int(n, "allowzero", 1);
  Tensor x(DType::kFloat32, {0, 3});
  Tensor shape = ints({3, 0});
  Tensor y = run1(n, {&x, &shape}, 14);
  EXPECT_EQ(y.shape(), (Shape{3, 0}));
}

TEST(OpReshape, AllowZeroWithMinusOneIsAnError) {
  Node n = make_node("Reshape", 2);
  set_int(n, "allowzero", 1);
  Tensor x(DType::kFloat32, {0, 3});
  Tensor shape = ints({0, -1});
  EXPECT_NE(run_error(n, {&x, &shape}, 14).find("allowzero"), std::string::npos);
}

TEST(OpReshape, RejectsElementCountMismatch) {
  Node n = make_node("Reshape", 2);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor shape = ints({4, 2});
  EXPECT_NE(run_error(n, {&x, &shape}).find("6 elements"), std::string::npos);
}

TEST(OpReshape, RejectsTwoMinusOnesAndBadDims) {
  Node n = make_node("Reshape", 2);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor two = ints({-1, -1});
  EXPECT_NE(run_error(n, {&x, &two}).find("more than one -1"), std::string::npos);
  Tensor bad = ints({-2, 3});
  run_error(n, {&x, &bad});
  Tensor zero_past_rank = ints({1, 6, 0});
  run_error(n, {&x, &zero_past_rank});
  Tensor indivisible = ints({4, -1});
  run_error(n, {&x, &indivisible});
}

TEST(OpReshape, RejectsNonIntegerShape) {
  Node n = make_node("Reshape", 2);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor shape = floats({2}, {3, 2});
  EXPECT_NE(run_error(n, {&x, &shape}).find("int64"), std::string::npos);
}

TEST(OpReshape, KeepsEveryDtypeBitExact) {
  Node n = make_node("Reshape", 2);
  Tensor shape = ints({-1});
  for (DType dt : {DType::kBool, DType::kFloat16, DType::kBFloat16, DType::kInt8, DType::kInt64, DType::kFloat64}) {
    Tensor x = iota(dt, {2, 2});
    Tensor y = run1(n, {&x, &shape});
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_EQ(y.shape(), (Shape{4}));
    EXPECT_EQ(values(y), values(x));
  }
}

TEST(OpReshape, SchemaAliasesInput) {
  EXPECT_TRUE(find_op_schema("Reshape")->output_aliases_input);
  EXPECT_TRUE(find_op_schema("Squeeze")->output_aliases_input);
  EXPECT_TRUE(find_op_schema("Unsqueeze")->output_aliases_input);
  EXPECT_TRUE(find_op_schema("Flatten")->output_aliases_input);
}

TEST(OpReshape, UnknownShapeValueGivesDtypeOnly) {
  Node n = make_node("Reshape", 2);
  ValueInfo x = shape_info(DType::kFloat16, {2, 3});
  ValueInfo s = shape_info(DType::kInt64, {2});
  InferResult r = infer_only(n, {&x, &s});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].dtype, DType::kFloat16);
  EXPECT_FALSE(r.outputs[0].shape_known);
}

TEST(OpReshape, KnownTargetWithoutInputShape) {
  Node n = make_node("Reshape", 2);
  ValueInfo x = dtype_info(DType::kFloat32);
  Tensor shape = ints({4, 5});
  ValueInfo s = value_info(shape);
  InferResult r = infer_only(n, {&x, &s});
  ASSERT_TRUE(r.status.ok());
  ASSERT_TRUE(r.outputs[0].shape_known);
  EXPECT_EQ(r.outputs[0].shape, (Shape{4, 5}));
}

TEST(OpReshape, RejectsHugeTarget) {
  Node n = make_node("Reshape", 2);
  ValueInfo x = dtype_info(DType::kFloat32);
  Tensor shape = ints({int64_t{1} << 40, int64_t{1} << 40});
  ValueInfo s = value_info(shape);
  EXPECT_FALSE(infer_only(n, {&x, &s}).status.ok());
}

TEST(OpFlatten, DefaultAxisAndNegativeAxis) {
  Node n = make_node("Flatten", 1);
  Tensor x = iota(DType::kFloat32, {2, 3, 4});
  EXPECT_EQ(run1(n, {&x}).shape(), (Shape{2, 12}));
  set_int(n, "axis", -1);
  EXPECT_EQ(run1(n, {&x}, 13).shape(), (Shape{6, 4}));
  set_int(n, "axis", 0);
  EXPECT_EQ(run1(n, {&x}).shape(), (Shape{1, 24}));
  set_int(n, "axis", 3);
  Tensor y = run1(n, {&x});
  EXPECT_EQ(y.shape(), (Shape{24, 1}));
  EXPECT_EQ(values(y), values(x));
}

TEST(OpFlatten, RejectsOutOfRangeAxis) {
  Node n = make_node("Flatten", 1);
  Tensor x = iota(DType::kFloat32, {2, 3});
  set_int(n, "axis", 3);
  run_error(n, {&x});
  set_int(n, "axis", -1);
  run_error(n, {&x}, 9);  // negative axes arrived in opset 11
}

TEST(OpSqueeze, AllUnitDimsWithoutAxes) {
  Node n = make_node("Squeeze", 1);
  Tensor x = iota(DType::kInt32, {1, 3, 1, 2});
  Tensor y = run1(n, {&x});
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(y), values(x));
}

TEST(OpSqueeze, AxesAttributeBeforeOpset13) {
  Node n = make_node("Squeeze", 1);
  set_ints(n, "axes", {-2});
  Tensor x = iota(DType::kFloat32, {1, 3, 1, 2});
  EXPECT_EQ(run1(n, {&x}, 11).shape(), (Shape{1, 3, 2}));
}

TEST(OpSqueeze, AxesInputFromOpset13) {
  Node n = make_node("Squeeze", 2);
  Tensor x = iota(DType::kFloat32, {1, 3, 1, 2});
  Tensor axes = ints({0});
  EXPECT_EQ(run1(n, {&x, &axes}, 13).shape(), (Shape{3, 1, 2}));
}

TEST(OpSqueeze, RejectsNonUnitAndOutOfRangeAxes) {
  Node n = make_node("Squeeze", 2);
  Tensor x = iota(DType::kFloat32, {1, 3});
  Tensor non_unit = ints({1});
  EXPECT_NE(run_error(n, {&x, &non_unit}).find("not 1"), std::string::npos);
  Tensor out_of_range = ints({2});
  EXPECT_NE(run_error(n, {&x, &out_of_range}).find("out of range"), std::string::npos);
}

TEST(OpUnsqueeze, AxesAttributeBeforeOpset13) {
  Node n = make_node("Unsqueeze", 1);
  set_ints(n, "axes", {0, 3});
  Tensor x = iota(DType::kFloat32, {2, 3});
  EXPECT_EQ(run1(n, {&x}, 11).shape(), (Shape{1, 2, 3, 1}));
}

TEST(OpUnsqueeze, NegativeAxesInputFromOpset13) {
  Node n = make_node("Unsqueeze", 2);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor axes = ints({-1, 1});
  Tensor y = run1(n, {&x, &axes}, 13);
  EXPECT_EQ(y.shape(), (Shape{2, 1, 3, 1}));
  EXPECT_EQ(values(y), values(x));
}

TEST(OpUnsqueeze, ScalarToVector) {
  Node n = make_node("Unsqueeze", 2);
  Tensor x = iota(DType::kInt64, {});
  Tensor axes = ints({0});
  EXPECT_EQ(run1(n, {&x, &axes}).shape(), (Shape{1}));
}

TEST(OpUnsqueeze, RejectsDuplicateAndMissingAxes) {
  Node n = make_node("Unsqueeze", 2);
  Tensor x = iota(DType::kFloat32, {2});
  Tensor dup = ints({0, -3});
  EXPECT_NE(run_error(n, {&x, &dup}).find("twice"), std::string::npos);
  Node no_axes = make_node("Unsqueeze", 1);
  run_error(no_axes, {&x}, 13);
}

}  // namespace
}  // namespace openge::testing
