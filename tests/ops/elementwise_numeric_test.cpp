// IsInf IsNaN Mod BitShift (elementwise_numeric.cpp) and Celu ThresholdedRelu Shrink Softsign
// (elementwise_activation_extended.cpp). Expected values by hand or from NumPy (quoted).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<bool> bools(const Tensor& t) {
  std::vector<bool> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.data<bool>()[i]);
  return v;
}

TEST(OpIsInfIsNaN, DetectEachKindOfSpecialValue) {
  const Tensor x = f32({5}, {-kInf, -1.0f, 0.0f, kInf, kNaN});
  Node isinf = make_node("IsInf", 1);
  EXPECT_EQ(bools(run_ok(isinf, {&x})), (std::vector<bool>{true, false, false, true, false}));
  set_int(isinf, "detect_negative", 0);
  EXPECT_EQ(bools(run_ok(isinf, {&x})), (std::vector<bool>{false, false, false, true, false}));
  set_int(isinf, "detect_negative", 1);
  set_int(isinf, "detect_positive", 0);
  EXPECT_EQ(bools(run_ok(isinf, {&x})), (std::vector<bool>{true, false, false, false, false}));
  EXPECT_EQ(bools(run_unary("IsNaN", x)), (std::vector<bool>{false, false, false, false, true}));
  // fp16 / double inputs, bool output.
  const Tensor h = f16({3}, {kInf, 65504.0f, kNaN});
  EXPECT_EQ(bools(run_unary("IsInf", h)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(bools(run_unary("IsNaN", h)), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(run_unary("IsNaN", h).dtype(), DType::kBool);
}

TEST(OpIsInfIsNaN, IntegerInputIsAnInferenceError) {
  const Tensor x = i32({1}, {1});
  EXPECT_FALSE(run_node(make_node("IsNaN", 1), {&x}).ok());
}

TEST(OpMod, IntegerFmod0TakesTheDivisorsSign) {
  // np.mod([-4,7,5,4,-7,8],[2,-3,8,-2,3,5]) = [0,-2,5,0,2,3]
  const Tensor a = i32({6}, {-4, 7, 5, 4, -7, 8}), b = i32({6}, {2, -3, 8, -2, 3, 5});
  EXPECT_EQ(values(run_binary("Mod", a, b)), (V{0, -2, 5, 0, 2, 3}));
}

TEST(OpMod, Fmod1TakesTheDividendsSignForIntsAndFloats) {
  // np.fmod([-4,7,5,4,-7,8],[2,-3,8,-2,3,5]) = [0,1,5,0,-1,3]
  Node n = make_node("Mod", 2);
  set_int(n, "fmod", 1);
  const Tensor a = i64({6}, {-4, 7, 5, 4, -7, 8}), b = i64({6}, {2, -3, 8, -2, 3, 5});
  EXPECT_EQ(values(run_ok(n, {&a, &b})), (V{0, 1, 5, 0, -1, 3}));
  // np.fmod(np.float32([-4.3,7.2,5.0,4.3,-7.2,8.0]), np.float32([2.1,-3.4,8.0,-2.1,3.4,5.0]))
  const Tensor fa = f32({6}, {-4.3f, 7.2f, 5.0f, 4.3f, -7.2f, 8.0f}),
               fb = f32({6}, {2.1f, -3.4f, 8.0f, -2.1f, 3.4f, 5.0f});
  const V got = values(run_ok(n, {&fa, &fb}));
  const V want = {-0.1f, 0.4f, 5.0f, 0.1f, -0.4f, 3.0f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-6) << i;
  const Tensor ha = f16({2}, {-4.5f, 7.0f}), hb = f16({2}, {2.0f, -3.0f});
  EXPECT_EQ(values(run_ok(n, {&ha, &hb})), (V{-0.5, 1.0}));
}

TEST(OpMod, BroadcastsAndRejectsBadUse) {
  const Tensor a = i32({2, 3}, {1, 2, 3, 4, 5, 6}), b = i32({1}, {4});
  EXPECT_EQ(values(run_binary("Mod", a, b)), (V{1, 2, 3, 0, 1, 2}));
  const Tensor zero = i32({1}, {0});
  auto by_zero = run_node(make_node("Mod", 2), {&a, &zero});
  ASSERT_FALSE(by_zero.ok());
  EXPECT_NE(by_zero.status().message().find("zero"), std::string::npos);
  const Tensor f = f32({1}, {1.0f});
  EXPECT_FALSE(run_node(make_node("Mod", 2), {&f, &f}).ok()) << "float needs fmod=1";
  // INT_MIN % -1 must not trap.
  const Tensor mn = i32({1}, {std::numeric_limits<int32_t>::min()}), m1 = i32({1}, {-1});
  EXPECT_EQ(values(run_binary("Mod", mn, m1)), (V{0}));
}

TEST(OpBitShift, ShiftsUnsignedValuesAndWidthOrMoreGivesZero) {
  Node left = make_node("BitShift", 2), right = make_node("BitShift", 2);
  set_string(left, "direction", "LEFT");
  set_string(right, "direction", "RIGHT");
  const Tensor x = tensor_of<uint8_t>(DType::kUInt8, {4}, {16, 4, 1, 255}),
               s = tensor_of<uint8_t>(DType::kUInt8, {4}, {1, 2, 3, 9});
  EXPECT_EQ(values(run_ok(left, {&x, &s})), (V{32, 16, 8, 0}));  // np.left_shift(uint8): 255<<9 -> 0
  EXPECT_EQ(values(run_ok(right, {&x, &s})), (V{8, 1, 0, 0}));
  const Tensor x64 = tensor_of<uint64_t>(DType::kUInt64, {2}, {1, ~uint64_t{0}}),
               s64 = tensor_of<uint64_t>(DType::kUInt64, {1}, {63});
  const Tensor y64 = run_ok(left, {&x64, &s64});
  EXPECT_EQ(y64.data<uint64_t>()[0], uint64_t{1} << 63);
  EXPECT_EQ(y64.data<uint64_t>()[1], uint64_t{1} << 63);
  Node bad = make_node("BitShift", 2);
  set_string(bad, "direction", "UP");
  EXPECT_FALSE(run_node(bad, {&x, &s}).ok());
  const Tensor i = i32({1}, {1});
  EXPECT_FALSE(run_node(left, {&i, &i}).ok()) << "signed types are not BitShift's";
}

TEST(OpExtendedActivation, CeluMatchesItsDefinition) {
  Node n = make_node("Celu", 1);
  set_float(n, "alpha", 2.0f);
  const std::vector<float> xs = {-3.0f, -0.5f, 0.0f, 1.5f};
  const Tensor in = f32({4}, xs);
  const V y = values(run_ok(n, {&in}));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::max(0.0, double(xs[i])) + std::min(0.0, 2.0 * (std::exp(xs[i] / 2.0) - 1.0));
    EXPECT_NEAR(y[i], want, 1e-6) << xs[i];
  }
  set_float(n, "alpha", 0.0f);
  const Tensor x = f32({1}, {1.0f});
  EXPECT_FALSE(run_node(n, {&x}).ok());
}

TEST(OpExtendedActivation, ThresholdedReluShrinkSoftsign) {
  const Tensor x = f32({5}, {-2.0f, -0.5f, 0.5f, 1.0f, 2.5f});
  EXPECT_EQ(values(run_unary("ThresholdedRelu", x)), (V{0, 0, 0, 0, 2.5}));  // default alpha 1: strictly greater
  Node shrink = make_node("Shrink", 1);
  set_float(shrink, "lambd", 1.0f);
  set_float(shrink, "bias", 0.5f);
  EXPECT_EQ(values(run_ok(shrink, {&x})), (V{-1.5, 0, 0, 0, 2.0}));
  const Tensor xi = i32({4}, {-5, -1, 1, 5});
  EXPECT_EQ(values(run_ok(shrink, {&xi})), (V{-4, 0, 0, 4}));  // -5+0.5 = -4.5 truncates to -4, like Cast
  const V soft = values(run_unary("Softsign", f32({3}, {-3.0f, 0.0f, 1.0f})));
  EXPECT_NEAR(soft[0], -0.75, 1e-7);
  EXPECT_EQ(soft[1], 0.0);
  EXPECT_NEAR(soft[2], 0.5, 1e-7);
  const Tensor h = run_unary("Softsign", bf16({1}, {3.0f}));
  EXPECT_EQ(h.dtype(), DType::kBFloat16);
  EXPECT_EQ(values(h)[0], 0.75);
}

}  // namespace
}  // namespace openge::testing
