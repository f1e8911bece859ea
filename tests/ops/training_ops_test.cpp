// The ai.onnx.preview.training optimizers: Adagrad, Momentum (standard and nesterov), Adam.
// Expected values are worked out by hand from ONNX's formulas in each test's comment.
#include <gtest/gtest.h>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

void expect_near(const Tensor& t, const V& want) {
  const V got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(OpAdagrad, UpdatesEveryTensorWithDecayNormAndEpsilon) {
  // r = 0.1 / (1 + 1 * 1) = 0.05. Tensor 0: G' = 0.5 * 1 - 1 = -0.5, H' = 2 + 0.25 = 2.25,
  // X' = 1 - 0.05 * -0.5 / (1.5 + 0.5) = 1.0125. Tensor 1: G' = (2, 1.5), H' = (4, 3.25),
  // X' = (0 - 0.05 * 2 / 2.5, 3 - 0.05 * 1.5 / (sqrt(3.25) + 0.5)) = (-0.04, 2.96743061).
  Node n = make_node("Adagrad", 8, 4);
  set_float(n, "decay_factor", 1.0f);
  set_float(n, "epsilon", 0.5f);
  set_float(n, "norm_coefficient", 0.5f);
  const Tensor r = f32({}, {0.1f}), t = i64({}, {1});
  const Tensor x0 = f32({1}, {1}), x1 = f32({2}, {0, 3}), g0 = f32({1}, {-1}), g1 = f32({2}, {2, 0});
  const Tensor h0 = f32({1}, {2}), h1 = f32({2}, {0, 1});
  auto out = run_node(n, {&r, &t, &x0, &x1, &g0, &g1, &h0, &h1});
  ASSERT_TRUE(out.ok()) << out.status().message();
  expect_near((*out)[0], {1.0125});
  expect_near((*out)[1], {-0.04, 2.96743061});
  expect_near((*out)[2], {2.25});
  expect_near((*out)[3], {4, 3.25});
}

TEST(OpMomentum, StandardAndNesterovWithTheFirstStepUnscaled) {
  // G' = 0.5 * 2 + 1 = 2. T = 1: V' = 0.5 * 4 + 0.25 * 2 = 2.5, X' = 2 - 0.1 * 2.5 = 1.75,
  // nesterov X' = 2 - 0.1 * (2 + 0.5 * 2.5) = 1.675. T = 0: beta counts as 1, V' = 4, X' = 1.6.
  auto momentum = [](const std::string& mode, int64_t step) {
    Node n = make_node("Momentum", 5, 2);
    set_float(n, "alpha", 0.5f);
    set_float(n, "beta", 0.25f);
    set_float(n, "norm_coefficient", 0.5f);
    set_string(n, "mode", mode);
    const Tensor r = f32({}, {0.1f}), t = i64({}, {step}), x = f32({1}, {2}), g = f32({1}, {1}), v = f32({1}, {4});
    auto out = run_node(n, {&r, &t, &x, &g, &v});
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? std::make_pair(values((*out)[0])[0], values((*out)[1])[0]) : std::make_pair(0.0, 0.0);
  };
  EXPECT_NEAR(momentum("standard", 1).first, 1.75, 1e-6);
  EXPECT_NEAR(momentum("standard", 1).second, 2.5, 1e-6);
  EXPECT_NEAR(momentum("nesterov", 1).first, 1.675, 1e-6);
  EXPECT_NEAR(momentum("standard", 0).first, 1.6, 1e-6);
  EXPECT_NEAR(momentum("standard", 0).second, 4.0, 1e-6);
}

TEST(OpAdam, BiasCorrectedStepAndPostNorm) {
  // V' = 0.5 * 0 + 0.5 * 2 = 1; H' = 0.75 * 0 + 0.25 * 4 = 1; r' = 0.1 * sqrt(1 - 0.75) / (1 - 0.5)
  // = 0.1; X' = (1 - 0.5) * (1 - 0.1 * 1 / 1) = 0.45.
  Node n = make_node("Adam", 6, 3);
  set_float(n, "alpha", 0.5f);
  set_float(n, "beta", 0.75f);
  set_float(n, "epsilon", 0.0f);
  set_float(n, "norm_coefficient_post", 0.5f);
  const Tensor r = tensor_of<double>(DType::kFloat64, {}, {0.1}), t = i64({}, {1});
  const Tensor x = tensor_of<double>(DType::kFloat64, {1}, {1}), g = tensor_of<double>(DType::kFloat64, {1}, {2});
  const Tensor v = tensor_of<double>(DType::kFloat64, {1}, {0}), h = tensor_of<double>(DType::kFloat64, {1}, {0});
  auto out = run_node(n, {&r, &t, &x, &g, &v, &h});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].dtype(), DType::kFloat64);
  expect_near((*out)[0], {0.45});
  expect_near((*out)[1], {1});
  expect_near((*out)[2], {1});
}

TEST(OpAdagrad, WrongArityAndMismatchedShapesAreErrorsNamingTheNode) {
  const Tensor r = f32({}, {0.1f}), t = i64({}, {1}), x = f32({2}, {1, 2}), g = f32({3}, {1, 2, 3});
  auto arity = run_node(make_node("Adagrad", 6, 2), {&r, &t, &x, &x, &x, &x});
  ASSERT_FALSE(arity.ok());
  EXPECT_NE(arity.status().message().find("Adagrad 'Adagrad_test'"), std::string::npos) << arity.status().message();
  EXPECT_NE(arity.status().message().find("(2 + 3n inputs), got 6"), std::string::npos) << arity.status().message();
  auto shapes = run_node(make_node("Adagrad", 5, 2), {&r, &t, &x, &g, &x});
  ASSERT_FALSE(shapes.ok());
  EXPECT_NE(shapes.status().message().find("has shape [3]"), std::string::npos) << shapes.status().message();
}

}  // namespace
}  // namespace openge::testing
