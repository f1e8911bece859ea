#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

// Checks a float op against the same function evaluated in double (rounded to float).
void expect_matches(const std::string& op, const std::vector<float>& xs, double (*ref)(double)) {
  const V y = values(run_unary(op, f32({static_cast<int64_t>(xs.size())}, xs)));
  ASSERT_EQ(y.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(y[i], static_cast<float>(ref(xs[i])), 5e-7 * std::max(1.0, std::fabs(ref(xs[i]))))
        << op << "(" << xs[i] << ")";
}

TEST(OpUnaryMath, FloatResultsMatchDoublePrecisionReference) {
  expect_matches("Sqrt", {0, 0.25f, 2, 1e6f}, [](double x) { return std::sqrt(x); });
  expect_matches("Exp", {-3, 0, 0.5f, 10}, [](double x) { return std::exp(x); });
  expect_matches("Log", {0.5f, 1, 3, 1e5f}, [](double x) { return std::log(x); });
  expect_matches("Erf", {-2, -0.5f, 0, 0.3f, 1.5f}, [](double x) { return std::erf(x); });
  expect_matches("Tanh", {-4, -0.5f, 0, 0.7f, 20}, [](double x) { return std::tanh(x); });
  expect_matches("Floor", {-1.5f, -0.5f, 0, 2.7f}, [](double x) { return std::floor(x); });
  expect_matches("Ceil", {-1.5f, -0.5f, 0, 2.2f}, [](double x) { return std::ceil(x); });
  expect_matches("Reciprocal", {-4, 0.5f, 3}, [](double x) { return 1.0 / x; });
  expect_matches("Neg", {-4, 0, 3}, [](double x) { return -x; });
  expect_matches("Abs", {-4, 0, 3}, [](double x) { return std::fabs(x); });
  expect_matches("Sigmoid", {-100, -1, 0, 2, 100}, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

// The float paths of Erf, Tanh and Sigmoid use vectorisable approximations: check them densely
// against libm in double over the whole useful range.
TEST(OpUnaryMath, FastFloatApproximationsStayWithinAFewUlp) {
  std::vector<float> xs;
  for (float x = -12.0f; x <= 12.0f; x += 0.0078125f) xs.push_back(x);
  for (float x = 1e-30f; x < 1e-2f; x *= 1.7f) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  xs.push_back(0.0f);
  const Tensor input = f32({static_cast<int64_t>(xs.size())}, xs);
  struct Case {
    const char* op;
    double (*ref)(double);
    double rel, abs;
  };
  const Case cases[] = {
      {"Erf", [](double x) { return std::erf(x); }, 4e-7, 3e-7},
      {"Tanh", [](double x) { return std::tanh(x); }, 4e-7, 0},
      {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 4e-7, 0},
  };
  for (const Case& c : cases) {
    const V y = values(run_unary(c.op, input));
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = c.ref(xs[i]);
      ASSERT_LE(std::fabs(y[i] - want), c.rel * std::fabs(want) + c.abs) << c.op << "(" << xs[i] << ")";
    }
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor special = f32({3}, {-inf, inf, nan});
  EXPECT_EQ(values(run_unary("Erf", special))[0], -1);
  EXPECT_EQ(values(run_unary("Tanh", special))[1], 1);
  EXPECT_EQ(values(run_unary("Sigmoid", special))[0], 0);
  EXPECT_EQ(values(run_unary("Sigmoid", special))[1], 1);
  for (const char* op : {"Erf", "Tanh", "Sigmoid"}) EXPECT_TRUE(std::isnan(values(run_unary(op, special))[2])) << op;
}

TEST(OpSqrt, HalfTypesAndFloat64) {
  const Tensor h = run_unary("Sqrt", f16({2}, {4, 2}));
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(h.data<Float16>()[1].bits, float_to_half_bits(std::sqrt(2.0f)));
  const Tensor b = run_unary("Sqrt", bf16({1}, {2}));
  EXPECT_EQ(b.data<BFloat16>()[0].bits, float_to_bf16_bits(std::sqrt(2.0f)));
  const Tensor d = run_unary("Sqrt", tensor_of<double>(DType::kFloat64, {1}, {2.0}));
  EXPECT_EQ(d.data<double>()[0], std::sqrt(2.0));
}

TEST(OpSqrt, RejectsIntegers) {
  const Tensor x = i32({1}, {4});
  auto r = run_node(make_node("Sqrt", 1), {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("int32"), std::string::npos) << r.status().message();
}

TEST(OpAbs, IntegersIncludingMinimum) {
  EXPECT_EQ(values(run_unary("Abs", i32({3}, {-5, 0, 7}))), (V{5, 0, 7}));
  const Tensor m = run_unary("Abs", tensor_of<int8_t>(DType::kInt8, {1}, {-128}));
  EXPECT_EQ(m.data<int8_t>()[0], -128);  // wraps like two's complement
  EXPECT_EQ(values(run_unary("Abs", tensor_of<uint8_t>(DType::kUInt8, {1}, {200}))), V{200});
}

TEST(OpNeg, SignedIntegersOnly) {
  EXPECT_EQ(values(run_unary("Neg", i64({2}, {-5, 7}))), (V{5, -7}));
  const Tensor u = tensor_of<uint32_t>(DType::kUInt32, {1}, {1});
  EXPECT_FALSE(run_node(make_node("Neg", 1), {&u}).ok());
}

TEST(OpNot, Bool) {
  EXPECT_EQ(values(run_unary("Not", boolean({2}, {true, false}))), (V{0, 1}));
  const Tensor f = f32({1}, {1});
  EXPECT_FALSE(run_node(make_node("Not", 1), {&f}).ok());
}

TEST(OpRelu, FloatIntAndLargeTensors) {
  EXPECT_EQ(values(run_unary("Relu", f32({3}, {-1, 0, 2.5f}))), (V{0, 0, 2.5}));
  EXPECT_EQ(values(run_unary("Relu", tensor_of<int8_t>(DType::kInt8, {2}, {-3, 3}))), (V{0, 3}));
  Tensor big(DType::kFloat32, {1 << 18});
  for (int64_t i = 0; i < big.numel(); ++i) big.data<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  const Tensor y = run_unary("Relu", big);
  for (int64_t i = 0; i < big.numel(); i += 1031) EXPECT_EQ(y.data<float>()[i], std::max(0.0f, big.data<float>()[i]));
}

TEST(OpLeakyRelu, DefaultAndExplicitAlpha) {
  EXPECT_EQ(values(run_unary("LeakyRelu", f32({2}, {-100, 3}))), (V{static_cast<float>(-100 * 0.01f), 3}));
  Node n = make_node("LeakyRelu", 1);
  set_float(n, "alpha", 0.5f);
  const Tensor x = f32({2}, {-4, 4});
  EXPECT_EQ(values(run_ok(n, {&x})), (V{-2, 4}));
}

TEST(OpElu, DefaultAlpha) {
  const V y = values(run_unary("Elu", f32({3}, {-1, 0, 2})));
  EXPECT_NEAR(y[0], std::exp(-1.0) - 1.0, 1e-7);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 2);
}

TEST(OpSelu, DefaultConstants) {
  const V y = values(run_unary("Selu", f32({2}, {-1, 2})));
  const double alpha = 1.6732632423543772, gamma = 1.0507009873554805;
  EXPECT_NEAR(y[0], gamma * (alpha * std::exp(-1.0) - alpha), 1e-6);
  EXPECT_NEAR(y[1], gamma * 2, 1e-6);
}

TEST(OpSoftplus, StableForLargeInputs) {
  const V y = values(run_unary("Softplus", f32({4}, {-100, 0, 1, 100})));
  EXPECT_NEAR(y[0], 0, 1e-30);
  EXPECT_NEAR(y[1], std::log(2.0), 1e-7);
  EXPECT_NEAR(y[2], std::log1p(std::exp(1.0)), 1e-6);
  EXPECT_EQ(y[3], 100);
}

TEST(OpHardSigmoid, DefaultsAndAttributes) {
  EXPECT_EQ(values(run_unary("HardSigmoid", f32({3}, {-5, 0, 5}))), (V{0, 0.5, 1}));
  Node n = make_node("HardSigmoid", 1);
  set_float(n, "alpha", 0.5f);
  set_float(n, "beta", 0.25f);
  const Tensor x = f32({2}, {1, -1});
  EXPECT_EQ(values(run_ok(n, {&x})), (V{0.75, 0}));
}

TEST(OpHardSwish, Values) {
  const V y = values(run_unary("HardSwish", f32({4}, {-4, 0, 1, 4})));
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_NEAR(y[2], 1.0 * (1.0 / 6.0 + 0.5), 1e-7);
  EXPECT_EQ(y[3], 4);
}

Node clip_node(size_t inputs) { return make_node("Clip", inputs); }

TEST(OpClip, AttributesBeforeOpset11) {
  Node n = clip_node(1);
  set_float(n, "min", -1);
  set_float(n, "max", 6);
  const Tensor x = f32({4}, {-3, 0.5f, 6, 9});
  EXPECT_EQ(values(run_ok(n, {&x}, 6)), (V{-1, 0.5, 6, 6}));
  const Node plain = clip_node(1);  // no bounds: unchanged, even infinities
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor big = f32({2}, {-inf, inf});
  EXPECT_EQ(values(run_ok(plain, {&big}, 6)), (V{-inf, inf}));
}

TEST(OpClip, OptionalInputsFromOpset11) {
  const Tensor x = f32({4}, {-3, 0.5f, 6, 9}), lo = f32({}, {0}), hi = f32({}, {6});
  EXPECT_EQ(values(run_ok(clip_node(3), {&x, &lo, &hi}, 11)), (V{0, 0.5, 6, 6}));
  EXPECT_EQ(values(run_ok(clip_node(2), {&x, &lo}, 13)), (V{0, 0.5, 6, 9}));
  Node only_max = clip_node(3);
  only_max.inputs[1] = -1;  // omitted min
  EXPECT_EQ(values(run_ok(only_max, {&x, nullptr, &hi}, 13)), (V{-3, 0.5, 6, 6}));
  // Attributes are ignored from opset 11.
  Node with_attr = clip_node(1);
  set_float(with_attr, "max", 0);
  EXPECT_EQ(values(run_ok(with_attr, {&x}, 11)), (V{-3, 0.5, 6, 9}));
}

TEST(OpClip, MinAboveMaxGivesMaxAndNaNPasses) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = f32({3}, {-1, 5, nan}), lo = f32({}, {3}), hi = f32({}, {2});
  const V y = values(run_ok(clip_node(3), {&x, &lo, &hi}, 13));
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], 2);
  EXPECT_TRUE(std::isnan(y[2]));
}

TEST(OpClip, IntegersFromOpset12AndHalf) {
  const Tensor x = i64({3}, {-10, 5, 10}), lo = i64({}, {0}), hi = i64({}, {7});
  EXPECT_EQ(values(run_ok(clip_node(3), {&x, &lo, &hi}, 12)), (V{0, 5, 7}));
  const Tensor h = f16({2}, {-2, 8}), hlo = f16({}, {0}), hhi = f16({}, {6});
  const Tensor y = run_ok(clip_node(3), {&h, &hlo, &hhi}, 13);
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(values(y), (V{0, 6}));
}

TEST(OpClip, RejectsNonScalarBoundsAndMismatchedDtype) {
  const Tensor x = f32({2}, {1, 2}), lo = f32({2}, {0, 0}), ilo = i32({}, {0});
  EXPECT_FALSE(run_node(clip_node(2), {&x, &lo}, 13).ok());
  EXPECT_FALSE(run_node(clip_node(2), {&x, &ilo}, 13).ok());
}

}  // namespace
}  // namespace openge::testing
