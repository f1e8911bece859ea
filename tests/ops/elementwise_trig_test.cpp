// Trigonometric / hyperbolic ops, Sign and Round (rows in elementwise_unary.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

struct TrigCase {
  const char* op;
  double (*ref)(double);
  std::vector<float> xs;  // inside the function's domain
};

const std::vector<TrigCase>& trig_cases() {
  static const std::vector<TrigCase> cases = {
      {"Sin", [](double x) { return std::sin(x); }, {-3.0f, -0.5f, 0.0f, 1.0f, 100.0f}},
      {"Cos", [](double x) { return std::cos(x); }, {-3.0f, -0.5f, 0.0f, 1.0f, 100.0f}},
      {"Tan", [](double x) { return std::tan(x); }, {-1.2f, -0.5f, 0.0f, 1.0f, 1.5f}},
      {"Asin", [](double x) { return std::asin(x); }, {-1.0f, -0.5f, 0.0f, 0.3f, 1.0f}},
      {"Acos", [](double x) { return std::acos(x); }, {-1.0f, -0.5f, 0.0f, 0.3f, 1.0f}},
      {"Atan", [](double x) { return std::atan(x); }, {-50.0f, -0.5f, 0.0f, 0.3f, 1e6f}},
      {"Sinh", [](double x) { return std::sinh(x); }, {-5.0f, -0.5f, 0.0f, 0.3f, 10.0f}},
      {"Cosh", [](double x) { return std::cosh(x); }, {-5.0f, -0.5f, 0.0f, 0.3f, 10.0f}},
      {"Asinh", [](double x) { return std::asinh(x); }, {-50.0f, -0.5f, 0.0f, 0.3f, 1e6f}},
      {"Acosh", [](double x) { return std::acosh(x); }, {1.0f, 1.5f, 2.0f, 10.0f, 1e6f}},
      {"Atanh", [](double x) { return std::atanh(x); }, {-0.99f, -0.5f, 0.0f, 0.3f, 0.9f}},
  };
  return cases;
}

TEST(OpTrig, Float32MatchesDoublePrecisionLibm) {
  for (const TrigCase& c : trig_cases()) {
    const V y = values(run_unary(c.op, f32({static_cast<int64_t>(c.xs.size())}, c.xs)));
    ASSERT_EQ(y.size(), c.xs.size()) << c.op;
    for (size_t i = 0; i < c.xs.size(); ++i) {
      const double want = c.ref(c.xs[i]);
      EXPECT_NEAR(y[i], want, 2e-7 * std::max(1.0, std::fabs(want))) << c.op << "(" << c.xs[i] << ")";
    }
  }
}

TEST(OpTrig, Float64IsComputedInDouble) {
  for (const TrigCase& c : trig_cases()) {
    Tensor x(DType::kFloat64, {static_cast<int64_t>(c.xs.size())});
    for (size_t i = 0; i < c.xs.size(); ++i) x.data<double>()[i] = c.xs[i];
    const Tensor y = run_unary(c.op, x);
    ASSERT_EQ(y.dtype(), DType::kFloat64) << c.op;
    for (size_t i = 0; i < c.xs.size(); ++i) {
      const double want = c.ref(c.xs[i]);
      EXPECT_NEAR(y.data<double>()[i], want, 1e-15 * std::max(1.0, std::fabs(want))) << c.op << "(" << c.xs[i] << ")";
    }
  }
}

// fp16/bf16: computed in float and rounded once, so the result is the rounded float result.
TEST(OpTrig, HalfTypesRoundTheFloatResultOnce) {
  for (const TrigCase& c : trig_cases()) {
    std::vector<float> small;  // values that stay finite in fp16
    for (float x : c.xs)
      if (std::fabs(c.ref(x)) < 6e4) small.push_back(x);
    const Tensor h = run_unary(c.op, f16({static_cast<int64_t>(small.size())}, small));
    const Tensor b = run_unary(c.op, bf16({static_cast<int64_t>(small.size())}, small));
    ASSERT_EQ(h.dtype(), DType::kFloat16);
    ASSERT_EQ(b.dtype(), DType::kBFloat16);
    for (size_t i = 0; i < small.size(); ++i) {
      const float xh = static_cast<float>(Float16(small[i]));
      const float xb = static_cast<float>(BFloat16(small[i]));
      EXPECT_EQ(static_cast<float>(h.data<Float16>()[i]), static_cast<float>(Float16(static_cast<float>(c.ref(xh)))))
          << c.op << "(" << xh << ")";
      EXPECT_EQ(static_cast<float>(b.data<BFloat16>()[i]), static_cast<float>(BFloat16(static_cast<float>(c.ref(xb)))))
          << c.op << "(" << xb << ")";
    }
  }
}

TEST(OpTrig, OutsideTheDomainGivesNaNNotAnError) {
  const V asin = values(run_unary("Asin", f32({1}, {2.0f})));
  const V acosh = values(run_unary("Acosh", f32({1}, {0.5f})));
  const V atanh = values(run_unary("Atanh", f32({2}, {1.0f, 3.0f})));
  EXPECT_TRUE(std::isnan(asin[0]));
  EXPECT_TRUE(std::isnan(acosh[0]));
  EXPECT_TRUE(std::isinf(atanh[0]) && atanh[0] > 0);
  EXPECT_TRUE(std::isnan(atanh[1]));
}

TEST(OpTrig, IntegerInputsAreRejectedByInference) {
  const Tensor x = i32({2}, {1, 2});
  for (const char* op : {"Sin", "Cosh", "Atanh"}) {
    auto r = run_node(make_node(op, 1), {&x});
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_NE(r.status().message().find("int32"), std::string::npos) << r.status().message();
  }
}

TEST(OpSign, EveryNumericTypeGivesMinusOneZeroOne) {
  EXPECT_EQ(values(run_unary("Sign", f32({5}, {-2.5f, -0.0f, 0.0f, 1e-30f, 7.0f}))), (V{-1, 0, 0, 1, 1}));
  EXPECT_EQ(values(run_unary("Sign", i32({3}, {-7, 0, 9}))), (V{-1, 0, 1}));
  EXPECT_EQ(values(run_unary("Sign", i64({3}, {std::numeric_limits<int64_t>::min(), 0, 1}))), (V{-1, 0, 1}));
  const Tensor u = tensor_of<uint8_t>(DType::kUInt8, {3}, {0, 1, 255});
  EXPECT_EQ(values(run_unary("Sign", u)), (V{0, 1, 1}));
  EXPECT_EQ(values(run_unary("Sign", f16({2}, {-3.0f, 0.5f}))), (V{-1, 1}));
  EXPECT_TRUE(std::isnan(values(run_unary("Sign", f32({1}, {std::numeric_limits<float>::quiet_NaN()})))[0]));
}

TEST(OpRound, HalvesGoToTheEvenNeighbour) {
  // NumPy: np.round([-2.5,-1.5,-0.5,0.5,1.5,2.5,2.4,2.6,-2.6]) = [-2,-2,-0,0,2,2,2,3,-3]
  const std::vector<float> xs = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.4f, 2.6f, -2.6f};
  const V want = {-2, -2, 0, 0, 2, 2, 2, 3, -3};
  EXPECT_EQ(values(run_unary("Round", f32({9}, xs))), want);
  EXPECT_EQ(values(run_unary("Round", f16({9}, xs))), want);
  EXPECT_EQ(values(run_unary("Round", bf16({9}, xs))), want);
  const V big = values(run_unary("Round", f32({2}, {16777216.0f, -1e30f})));
  EXPECT_EQ(big[0], 16777216.0);
  EXPECT_EQ(big[1], static_cast<double>(-1e30f));
}

}  // namespace
}  // namespace openge::testing
