#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

TEST(OpShape, FoldsAtCompileTime) {
  Node n = make_node("Shape", 1);
  ValueInfo x = shape_info(DType::kFloat32, {1, 128, 768});
  InferResult r = infer_only(n, {&x});
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.folded.size(), 1u);
  ASSERT_TRUE(r.folded[0].defined());
  EXPECT_EQ(int_values(r.folded[0]), (std::vector<int64_t>{1, 128, 768}));
  EXPECT_EQ(r.outputs[0].shape, (Shape{3}));
}

TEST(OpShape, StartEndFromOpset15) {
  Node n = make_node("Shape", 1);
  set_int(n, "start", 1);
  set_int(n, "end", -1);
  Tensor x = iota(DType::kFloat32, {2, 3, 4, 5});
  EXPECT_EQ(int_values(run1(n, {&x}, 15)), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(int_values(run1(n, {&x}, 13)), (std::vector<int64_t>{2, 3, 4, 5}));  // ignored before 15
  Node clamped = make_node("Shape", 1);
  set_int(clamped, "start", -10);
  set_int(clamped, "end", 10);
  EXPECT_EQ(int_values(run1(clamped, {&x}, 15)), (std::vector<int64_t>{2, 3, 4, 5}));
  Node empty = make_node("Shape", 1);
  set_int(empty, "start", 3);
  set_int(empty, "end", 1);
  EXPECT_EQ(run1(empty, {&x}, 15).shape(), (Shape{0}));
}

TEST(OpShape, UnknownDimsGiveRankOnly) {
  Node n = make_node("Shape", 1);
  ValueInfo x = shape_info(DType::kFloat32, {-1, 128});
  InferResult r = infer_only(n, {&x});
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(r.folded.empty() || !r.folded[0].defined());
  EXPECT_EQ(r.outputs[0].shape, (Shape{2}));
  ValueInfo unknown = dtype_info(DType::kFloat32);
  InferResult u = infer_only(n, {&unknown});
  EXPECT_EQ(u.outputs[0].dtype, DType::kInt64);
  EXPECT_FALSE(u.outputs[0].shape_known);
}

TEST(OpShape, KernelFillsWhenRunDirectly) {
  Node n = make_node("Shape", 1);
  Tensor x(DType::kFloat32, {4, 0, 2});
  Tensor out(DType::kInt64, {3});
  std::vector<const Tensor*> ins{&x};
  KernelContext ctx(n, 17, ins, {&out});
  ASSERT_TRUE(find_op_schema("Shape")->reference(ctx).ok());
  EXPECT_EQ(int_values(out), (std::vector<int64_t>{4, 0, 2}));
}

TEST(OpSize, FoldsAndRuns) {
  Node n = make_node("Size", 1);
  ValueInfo x = shape_info(DType::kFloat16, {2, 3, 4});
  InferResult r = infer_only(n, {&x});
  ASSERT_TRUE(r.status.ok());
  ASSERT_FALSE(r.folded.empty());
  EXPECT_EQ(int_values(r.folded[0]), (std::vector<int64_t>{24}));
  EXPECT_EQ(r.folded[0].shape(), Shape{});
  Tensor t(DType::kBool, {5, 0});
  EXPECT_EQ(int_values(run1(n, {&t})), (std::vector<int64_t>{0}));
  Tensor out(DType::kInt64, {});
  std::vector<const Tensor*> ins{&t};
  KernelContext ctx(n, 17, ins, {&out});
  Tensor big(DType::kInt32, {3, 7});
  std::vector<const Tensor*> ins2{&big};
  KernelContext ctx2(n, 17, ins2, {&out});
  ASSERT_TRUE(find_op_schema("Size")->reference(ctx2).ok());
  EXPECT_EQ(out.data<int64_t>()[0], 21);
}

TEST(OpConstantOfShape, DefaultFloatZeroAndTypedValue) {
  Node n = make_node("ConstantOfShape", 1);
  Tensor shape = ints({2, 3});
  Tensor y = run1(n, {&shape});
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_EQ(values(y), std::vector<double>(6, 0.0));
  Attribute a;
  a.kind = Attribute::Kind::kTensor;
  a.t = Tensor(DType::kInt32, {1});
  a.t.data<int32_t>()[0] = -7;
  n.attrs.set("value", a);
  Tensor z = run1(n, {&shape});
  EXPECT_EQ(z.dtype(), DType::kInt32);
  EXPECT_EQ(values(z), std::vector<double>(6, -7.0));
  Tensor scalar_shape(DType::kInt64, {0});
  EXPECT_EQ(run1(n, {&scalar_shape}).shape(), Shape{});
}

TEST(OpConstantOfShape, RejectsNegativeAndHugeShapes) {
  Node n = make_node("ConstantOfShape", 1);
  Tensor negative = ints({2, -3});
  EXPECT_NE(run_error(n, {&negative}).find("negative"), std::string::npos);
  Tensor huge = ints({int64_t{1} << 21, int64_t{1} << 21, int64_t{1} << 21});
  EXPECT_NE(run_error(n, {&huge}).find("too large"), std::string::npos);
  ValueInfo unknown = shape_info(DType::kInt64, {2});
  InferResult r = infer_only(n, {&unknown});
  EXPECT_TRUE(r.status.ok());
  EXPECT_FALSE(r.outputs[0].shape_known);
}

TEST(OpRange, IntsAndFloats) {
  Node n = make_node("Range", 3);
  Tensor s = ints({10}, true), l = ints({4}, true), d = ints({-3}, true);
  Tensor y = run1(n, {&s, &l, &d});
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{10, 7}));
  Tensor fs = floats({}, {1}), fl = floats({}, {2}), fd = floats({}, {0.25f});
  EXPECT_EQ(values(run1(n, {&fs, &fl, &fd})), (std::vector<double>{1, 1.25, 1.5, 1.75}));
  Tensor empty_l = ints({20}, true);
  EXPECT_EQ(run1(n, {&s, &empty_l, &d}).shape(), (Shape{0}));
}

TEST(OpRange, RejectsZeroDeltaMixedDtypesAndHugeCounts) {
  Node n = make_node("Range", 3);
  Tensor s = ints({0}, true), l = ints({4}, true), zero = ints({0}, true);
  EXPECT_NE(run_error(n, {&s, &l, &zero}).find("delta"), std::string::npos);
  Tensor fd = floats({}, {1});
  run_error(n, {&s, &l, &fd});
  Tensor big_l = ints({std::numeric_limits<int64_t>::max()}, true), one = ints({1}, true);
  Tensor min_s = ints({std::numeric_limits<int64_t>::min()}, true);
  EXPECT_NE(run_error(n, {&min_s, &big_l, &one}).find("too long"), std::string::npos);
  Tensor inf = floats({}, {std::numeric_limits<float>::infinity()}), fs = floats({}, {0});
  run_error(n, {&fs, &inf, &fd});
}

}  // namespace
}  // namespace openge::testing
