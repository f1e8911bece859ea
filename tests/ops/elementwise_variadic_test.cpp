#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

Tensor run_variadic(const std::string& op, const std::vector<const Tensor*>& inputs) {
  return run_ok(make_node(op, inputs.size()), inputs);
}

TEST(OpMax, TwoInputsBroadcastAndPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = f32({2, 2}, {1, 5, nan, -2}), b = f32({2}, {3, nan});
  const V y = values(run_variadic("Max", {&a, &b}));
  EXPECT_EQ(y[0], 3);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
}

TEST(OpMax, ThreeInputsAndIntegers) {
  const Tensor a = i32({3}, {1, 9, -4}), b = i32({1}, {2}), c = i32({3, 1}, {0, 5, 10});
  const Tensor y = run_variadic("Max", {&a, &b, &c});
  EXPECT_EQ(y.shape(), (Shape{3, 3}));
  EXPECT_EQ(values(y), (V{2, 9, 2, 5, 9, 5, 10, 10, 10}));
}

TEST(OpMin, SingleInputIsCopiedAndTwoInputsBroadcast) {
  const Tensor a = f32({3}, {3, -1, 2}), b = f32({}, {0});
  EXPECT_EQ(values(run_variadic("Min", {&a})), (V{3, -1, 2}));
  EXPECT_EQ(values(run_variadic("Min", {&a, &b})), (V{0, -1, 0}));
  const Tensor u = tensor_of<uint16_t>(DType::kUInt16, {2}, {7, 60000});
  const Tensor v = tensor_of<uint16_t>(DType::kUInt16, {1}, {100});
  EXPECT_EQ(values(run_variadic("Min", {&u, &v})), (V{7, 100}));
}

TEST(OpSum, ThreeInputsWithBroadcast) {
  const Tensor a = f32({2, 2}, {1, 2, 3, 4}), b = f32({2}, {10, 20}), c = f32({}, {100});
  EXPECT_EQ(values(run_variadic("Sum", {&a, &b, &c})), (V{111, 122, 113, 124}));
}

TEST(OpSum, Float16AccumulatesInFloatAndRoundsOnce) {
  // Pairwise fp16 rounding would lose both 2^-11 terms (1 + 2^-11 ties to 1); rounding once
  // keeps their sum, 2^-10.
  const float tiny = std::ldexp(1.0f, -11);
  const Tensor a = f16({1}, {1}), b = f16({1}, {tiny});
  const Tensor y = run_variadic("Sum", {&a, &b, &b});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(y.data<Float16>()[0].bits, 0x3c01);
}

TEST(OpSum, RejectsIncompatibleShapesAndMixedDtypes) {
  const Tensor a = f32({2}, {1, 2}), b = f32({3}, {1, 2, 3}), c = tensor_of<double>(DType::kFloat64, {2}, {1, 2});
  EXPECT_FALSE(run_node(make_node("Sum", 3), {&a, &a, &b}).ok());
  EXPECT_FALSE(run_node(make_node("Sum", 2), {&a, &c}).ok());
}

TEST(OpMean, AveragesWithBroadcastInEachFloatType) {
  const Tensor a = f32({2}, {1, 2}), b = f32({2}, {3, 6}), c = f32({1}, {5});
  EXPECT_EQ(values(run_variadic("Mean", {&a, &b, &c})), (V{3, static_cast<double>(13.0f / 3.0f)}));
  const Tensor h = f16({2}, {1, 2}), k = f16({2}, {2, 4});
  const Tensor y = run_variadic("Mean", {&h, &k});
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(values(y), (V{1.5, 3}));
  const Tensor d = tensor_of<double>(DType::kFloat64, {1}, {1}), e = tensor_of<double>(DType::kFloat64, {1}, {2});
  EXPECT_EQ(values(run_variadic("Mean", {&d, &e})), V{1.5});
  const Tensor i = i32({1}, {1});
  EXPECT_FALSE(run_node(make_node("Mean", 2), {&i, &i}).ok());
}

}  // namespace
}  // namespace openge::testing
