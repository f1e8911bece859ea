// The optimizers' update rules, checked against values worked out by hand from PyTorch's
// formulas (training/optimizer.h) for two steps of a constant gradient.
#include <gtest/gtest.h>

#include <cmath>

#include "training/optimizer.h"

namespace openge::training {
namespace {

Tensor values(std::vector<float> v) {
  Tensor t(DType::kFloat32, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

// Two steps from w = `start` with the gradient 0.5 everywhere; the parameters after each.
std::vector<std::vector<float>> two_steps(OptimizerConfig c, std::vector<float> start) {
  Optimizer opt(c);
  std::vector<Tensor> params{values(start)};
  const std::vector<Tensor> grads{values(std::vector<float>(start.size(), 0.5f))};
  std::vector<std::vector<float>> out;
  for (int s = 0; s < 2; ++s) {
    EXPECT_TRUE(opt.step(params, grads).ok());
    out.emplace_back(params[0].data<float>(), params[0].data<float>() + params[0].numel());
  }
  return out;
}

OptimizerConfig config(OptimizerKind kind, float lr, float wd = 0) {
  OptimizerConfig c;
  c.kind = kind;
  c.lr = lr;
  c.weight_decay = wd;
  return c;
}

TEST(Optimizer, SgdWithWeightDecay) {
  // w1 = 1 - 0.1 * (0.5 + 0.1 * 1) = 0.94; w2 = 0.94 - 0.1 * (0.5 + 0.094) = 0.8806
  auto w = two_steps(config(OptimizerKind::kSgd, 0.1f, 0.1f), {1.0f});
  EXPECT_FLOAT_EQ(w[0][0], 0.94f);
  EXPECT_NEAR(w[1][0], 0.8806f, 1e-6);
}

TEST(Optimizer, MomentumStartsItsBufferWithTheFirstGradient) {
  // b1 = 0.5, w1 = 0.95; b2 = 0.9 * 0.5 + 0.5 = 0.95, w2 = 0.95 - 0.095 = 0.855
  auto w = two_steps(config(OptimizerKind::kMomentum, 0.1f), {1.0f});
  EXPECT_FLOAT_EQ(w[0][0], 0.95f);
  EXPECT_NEAR(w[1][0], 0.855f, 1e-6);
}

TEST(Optimizer, NesterovLooksAhead) {
  // b1 = 0.5, w1 = 1 - 0.1 * (0.5 + 0.45) = 0.905; b2 = 0.95, w2 = 0.905 - 0.1 * (0.5 + 0.855) = 0.7695
  auto w = two_steps(config(OptimizerKind::kNesterov, 0.1f), {1.0f});
  EXPECT_NEAR(w[0][0], 0.905f, 1e-6);
  EXPECT_NEAR(w[1][0], 0.7695f, 1e-6);
}

TEST(Optimizer, AdamMovesByTheLearningRateUnderAConstantGradient) {
  // Bias-corrected moments of a constant gradient are g and g^2: each step moves lr.
  auto w = two_steps(config(OptimizerKind::kAdam, 0.1f), {1.0f});
  EXPECT_NEAR(w[0][0], 0.9f, 1e-6);
  EXPECT_NEAR(w[1][0], 0.8f, 1e-6);
}

TEST(Optimizer, AdamWDecaysTheWeightsApartFromTheMoments) {
  // w1 = 1 - 0.1 * 0.1 * 1 - 0.1 = 0.89
  auto w = two_steps(config(OptimizerKind::kAdamW, 0.1f, 0.1f), {1.0f});
  EXPECT_NEAR(w[0][0], 0.89f, 1e-6);
}

TEST(Optimizer, LambScalesByTheTrustRatio) {
  // r = [1, 1], |w| = 5, |r| = sqrt(2): w1 = [3, 4] - 0.1 * 5 / sqrt(2) * [1, 1]
  auto w = two_steps(config(OptimizerKind::kLamb, 0.1f), {3.0f, 4.0f});
  EXPECT_NEAR(w[0][0], 3.0f - 0.1f * 5.0f / std::sqrt(2.0f), 1e-5);
  EXPECT_NEAR(w[0][1], 4.0f - 0.1f * 5.0f / std::sqrt(2.0f), 1e-5);
}

TEST(Optimizer, UnknownNameListsTheChoices) {
  auto k = parse_optimizer("adagrad");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("sgd, momentum, nesterov, adam, adamw, lamb"), std::string::npos);
  EXPECT_EQ(*parse_optimizer("lamb"), OptimizerKind::kLamb);
}

TEST(Optimizer, MismatchedGradientIsAnError) {
  Optimizer opt(config(OptimizerKind::kSgd, 0.1f));
  std::vector<Tensor> params{values({1, 2})};
  EXPECT_FALSE(opt.step(params, {values({1})}).ok());
}

}  // namespace
}  // namespace openge::training
