#include <gtest/gtest.h>

#include <limits>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Tensor slice(const Tensor& x, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes,
             std::vector<int64_t> steps) {
  Node n = make_node("Slice", 5);
  Tensor s = ints(starts), e = ints(ends), a = ints(axes), st = ints(steps);
  return run1(n, {&x, &s, &e, &a, &st});
}

TEST(OpSlice, BasicInputsForm) {
  Tensor x = iota(DType::kFloat32, {3, 4});
  Tensor y = slice(x, {1, 1}, {3, 3}, {0, 1}, {1, 1});
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{5, 6, 9, 10}));
}

TEST(OpSlice, AttributesBeforeOpset10) {
  Node n = make_node("Slice", 1);
  set_ints(n, "starts", {1});
  set_ints(n, "ends", {1000});
  set_ints(n, "axes", {1});
  Tensor x = iota(DType::kInt32, {2, 3});
  Tensor y = run1(n, {&x}, 9);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{1, 2, 4, 5}));
}

TEST(OpSlice, OptionalAxesAndStepsOmitted) {
  Node n = make_node("Slice", 3);
  Tensor x = iota(DType::kFloat32, {4, 2});
  Tensor s = ints({-3}), e = ints({-1});
  Tensor y = run1(n, {&x, &s, &e}, 10);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{2, 3, 4, 5}));
}

TEST(OpSlice, NegativeStepReverses) {
  Tensor x = iota(DType::kFloat32, {5});
  // numpy x[::-1] via start=-1, end=INT64_MIN
  EXPECT_EQ(values(slice(x, {-1}, {kMin}, {0}, {-1})), (std::vector<double>{4, 3, 2, 1, 0}));
  // x[4:0:-2] = 4, 2
  EXPECT_EQ(values(slice(x, {4}, {0}, {0}, {-2})), (std::vector<double>{4, 2}));
  // start clamps to d-1 for negative steps: x[100:1:-1] = 4, 3, 2
  EXPECT_EQ(values(slice(x, {100}, {1}, {0}, {-1})), (std::vector<double>{4, 3, 2}));
}

TEST(OpSlice, StepsAndClampingOnLastAxis) {
  Tensor x = iota(DType::kFloat16, {2, 7});
  Tensor y = slice(x, {1}, {kMax}, {-1}, {3});  // x[:, 1::3] = cols 1, 4
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{1, 4, 8, 11}));
  Tensor huge_step = slice(x, {0}, {kMax}, {1}, {kMax});  // one element per row
  EXPECT_EQ(values(huge_step), (std::vector<double>{0, 7}));
  Tensor min_step = slice(x, {-1}, {kMin}, {1}, {kMin});
  EXPECT_EQ(values(min_step), (std::vector<double>{6, 13}));
}

TEST(OpSlice, EmptyResults) {
  Tensor x = iota(DType::kFloat32, {4});
  EXPECT_EQ(slice(x, {3}, {1}, {0}, {1}).shape(), (Shape{0}));
  EXPECT_EQ(slice(x, {1}, {3}, {0}, {-1}).shape(), (Shape{0}));
  Tensor empty(DType::kFloat32, {0, 2});
  EXPECT_EQ(slice(empty, {-1}, {kMin}, {0}, {-1}).shape(), (Shape{0, 2}));
}

TEST(OpSlice, Int32ParametersAndBoolData) {
  Node n = make_node("Slice", 4);
  Tensor x = iota(DType::kBool, {6});  // 0 1 0 1 0 1
  Tensor s = ints32({1}), e = ints32({6}), a = ints32({0});
  Tensor y = run1(n, {&x, &s, &e, &a});
  EXPECT_EQ(values(y), (std::vector<double>{1, 0, 1, 0, 1}));
}

TEST(OpSlice, RejectsZeroStepDuplicateAxesAndLengthMismatch) {
  Tensor x = iota(DType::kFloat32, {3, 3});
  Node n = make_node("Slice", 5);
  Tensor s = ints({0}), e = ints({2}), a = ints({0}), zero = ints({0});
  EXPECT_NE(run_error(n, {&x, &s, &e, &a, &zero}).find("step"), std::string::npos);
  Tensor s2 = ints({0, 0}), e2 = ints({1, 1}), dup = ints({1, -1}), one2 = ints({1, 1});
  EXPECT_NE(run_error(n, {&x, &s2, &e2, &dup, &one2}).find("twice"), std::string::npos);
  Tensor bad_axis = ints({2});
  run_error(n, {&x, &s, &e, &bad_axis, &zero});
  Node n3 = make_node("Slice", 3);
  run_error(n3, {&x, &s2, &e});
}

TEST(OpSlice, UnknownStartsGiveDtypeOnly) {
  Node n = make_node("Slice", 3);
  ValueInfo x = shape_info(DType::kFloat32, {3, 3});
  ValueInfo s = shape_info(DType::kInt64, {1});
  Tensor e = ints({2});
  ValueInfo ev = value_info(e);
  InferResult r = infer_only(n, {&x, &s, &ev});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_FALSE(r.outputs[0].shape_known);
}

}  // namespace
}  // namespace openge::testing
