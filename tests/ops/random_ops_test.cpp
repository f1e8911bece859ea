// Random ops (random_ops.cpp): moments of the distributions against their closed forms,
// reproducibility for a seed, and the size check on the shape attribute.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

constexpr int64_t kDraws = 200000;

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};
Moments moments(const V& v) {
  Moments m;
  for (double x : v) {
    m.mean += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

Node random_node(const std::string& op, size_t inputs, float seed) {
  Node n = make_node(op, inputs);
  set_float(n, "seed", seed);
  return n;
}

TEST(OpRandom, UniformHasTheMomentsOfUniformLowHigh) {
  Node n = random_node("RandomUniform", 0, 3.0f);
  set_ints(n, "shape", {kDraws / 100, 100});
  set_float(n, "low", -2.0f);
  set_float(n, "high", 4.0f);
  const Tensor y = run_ok(n, {});
  ASSERT_EQ(y.shape(), (Shape{kDraws / 100, 100}));
  ASSERT_EQ(y.dtype(), DType::kFloat32);
  const Moments m = moments(values(y));
  // Mean 1, variance (b-a)^2/12 = 3; standard error of the mean sqrt(3/n) ~ 0.004.
  EXPECT_NEAR(m.mean, 1.0, 0.02);
  EXPECT_NEAR(m.var, 3.0, 0.05);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LE(m.max, 4.0);
}

TEST(OpRandom, NormalHasTheMomentsOfNormalMeanScale) {
  Node n = random_node("RandomNormal", 0, 11.0f);
  set_ints(n, "shape", {kDraws});
  set_float(n, "mean", 5.0f);
  set_float(n, "scale", 2.0f);
  set_int(n, "dtype", static_cast<int64_t>(DType::kFloat64));
  const Tensor y = run_ok(n, {});
  ASSERT_EQ(y.dtype(), DType::kFloat64);
  const V v = values(y);
  const Moments m = moments(v);
  EXPECT_NEAR(m.mean, 5.0, 0.03);  // standard error 2/sqrt(n) ~ 0.0045
  EXPECT_NEAR(m.var, 4.0, 0.08);
  // Skewness ~ 0 and the share within one sigma ~ 68.27 %.
  double skew = 0;
  int64_t within = 0;
  for (double x : v) {
    skew += std::pow((x - m.mean) / 2.0, 3);
    within += std::fabs(x - 5.0) < 2.0;
  }
  EXPECT_NEAR(skew / kDraws, 0.0, 0.03);
  EXPECT_NEAR(static_cast<double>(within) / kDraws, 0.6827, 0.005);
}

TEST(OpRandom, SameSeedSameOutputOtherSeedOtherOutput) {
  for (const char* op : {"RandomUniform", "RandomNormal"}) {
    Node a = random_node(op, 0, 1.5f), b = random_node(op, 0, 1.5f), c = random_node(op, 0, 2.5f);
    for (Node* n : {&a, &b, &c}) set_ints(*n, "shape", {64});
    const V ya = values(run_ok(a, {})), ya2 = values(run_ok(a, {})), yb = values(run_ok(b, {})),
            yc = values(run_ok(c, {}));
    EXPECT_EQ(ya, ya2) << op;
    EXPECT_EQ(ya, yb) << op;
    EXPECT_NE(ya, yc) << op;
  }
}

TEST(OpRandom, LikeOpsTakeTheInputsShapeAndOptionallyADtype) {
  const Tensor x = i32({4, 5}, std::vector<int32_t>(20, 0));
  Node n = random_node("RandomNormalLike", 1, 7.0f);
  EXPECT_FALSE(run_node(n, {&x}).ok()) << "int32 output is not a RandomNormalLike dtype";
  set_int(n, "dtype", static_cast<int64_t>(DType::kFloat16));
  const Tensor y = run_ok(n, {&x});
  EXPECT_EQ(y.shape(), (Shape{4, 5}));
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  const Tensor xf = bf16({3}, {0, 0, 0});
  const Tensor u = run_ok(random_node("RandomUniformLike", 1, 7.0f), {&xf});
  EXPECT_EQ(u.dtype(), DType::kBFloat16);
  for (double v : values(u)) EXPECT_TRUE(v >= 0.0 && v <= 1.0) << v;
}

TEST(OpRandom, HostileShapeIsAnErrorNotAnAllocation) {
  Node n = random_node("RandomUniform", 0, 1.0f);
  set_ints(n, "shape", {int64_t{1} << 31, int64_t{1} << 31});
  auto r = run_node(n, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("limit"), std::string::npos) << r.status().message();
  set_ints(n, "shape", {-1, 4});
  EXPECT_FALSE(run_node(n, {}).ok());
  Node missing = random_node("RandomNormal", 0, 1.0f);
  EXPECT_FALSE(run_node(missing, {}).ok()) << "shape is required";
  Node bad = random_node("RandomUniform", 0, 1.0f);
  set_ints(bad, "shape", {2});
  set_float(bad, "low", 2.0f);
  set_float(bad, "high", 1.0f);
  EXPECT_FALSE(run_node(bad, {}).ok());
}

TEST(OpBernoulli, FrequencyMatchesTheProbabilityAndEdgesAreExact) {
  std::vector<float> p(kDraws);
  for (int64_t i = 0; i < kDraws; ++i) p[static_cast<size_t>(i)] = i % 4 == 0 ? 0.0f : (i % 4 == 1 ? 1.0f : 0.3f);
  const Tensor x = f32({kDraws}, p);
  const V y = values(run_ok(random_node("Bernoulli", 1, 5.0f), {&x}));
  double ones_03 = 0, n_03 = 0;
  for (int64_t i = 0; i < kDraws; ++i) {
    if (i % 4 == 0) {
      ASSERT_EQ(y[static_cast<size_t>(i)], 0.0);
    } else if (i % 4 == 1)
      ASSERT_EQ(y[static_cast<size_t>(i)], 1.0);
    else {
      ones_03 += y[static_cast<size_t>(i)];
      n_03 += 1;
    }
  }
  EXPECT_NEAR(ones_03 / n_03, 0.3, 0.005);  // standard error sqrt(.21/1e5) ~ 0.0015
  // dtype attribute: bool / int output; reproducible for the seed.
  Node nb = random_node("Bernoulli", 1, 5.0f);
  set_int(nb, "dtype", static_cast<int64_t>(DType::kBool));
  const Tensor yb = run_ok(nb, {&x});
  EXPECT_EQ(yb.dtype(), DType::kBool);
  EXPECT_EQ(values(yb), y);
}

TEST(OpMultinomial, SampleFrequenciesFollowTheSoftmaxOfTheInput) {
  // log-probabilities of [0.1, 0.2, 0.7] (unnormalised by a constant shift of 3).
  const Tensor x = f32({1, 3}, {std::log(0.1f) + 3, std::log(0.2f) + 3, std::log(0.7f) + 3});
  Node n = random_node("Multinomial", 1, 9.0f);
  set_int(n, "sample_size", static_cast<int64_t>(kDraws));
  set_int(n, "dtype", static_cast<int64_t>(DType::kInt64));
  const Tensor y = run_ok(n, {&x});
  ASSERT_EQ(y.shape(), (Shape{1, kDraws}));
  ASSERT_EQ(y.dtype(), DType::kInt64);
  double count[3] = {0, 0, 0};
  for (int64_t i = 0; i < kDraws; ++i) {
    const int64_t c = y.data<int64_t>()[i];
    ASSERT_TRUE(c >= 0 && c < 3) << c;
    count[c] += 1;
  }
  EXPECT_NEAR(count[0] / kDraws, 0.1, 0.005);
  EXPECT_NEAR(count[1] / kDraws, 0.2, 0.005);
  EXPECT_NEAR(count[2] / kDraws, 0.7, 0.005);
  Node small = random_node("Multinomial", 1, 9.0f);
  set_int(small, "sample_size", 5);
  const Tensor y32 = run_ok(small, {&x});
  EXPECT_EQ(y32.dtype(), DType::kInt32);
  EXPECT_EQ(values(y32), values(run_ok(small, {&x})));
  set_int(small, "sample_size", int64_t{1} << 40);
  EXPECT_FALSE(run_node(small, {&x}).ok());
}

}  // namespace
}  // namespace openge::testing
