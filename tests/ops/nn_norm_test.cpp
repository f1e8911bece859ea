// BatchNormalization, InstanceNormalization and LayerNormalization against hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "nn_test_util.h"

namespace openge::testing {
namespace {

using namespace nn_util;

TEST(OpBatchNormalization, PerChannelInference) {
  Node n = make_node("BatchNormalization", 5);
  set_float(n, "epsilon", 0);
  Tensor x = float_tensor({1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor scale = float_tensor({2}, {1, 2}), b = float_tensor({2}, {0, 1});
  Tensor mean = float_tensor({2}, {1, 3}), var = float_tensor({2}, {1, 4});
  // ch0: (x - 1) / 1 * 1 + 0; ch1: (x - 3) / 2 * 2 + 1
  expect_values(run_ok(n, {&x, &scale, &b, &mean, &var})[0], {1, 2, 1, 2}, {0, 1, 1, 2});
}

TEST(OpBatchNormalization, EpsilonAndHalfTypesAndMixedParamTypes) {
  Node n = make_node("BatchNormalization", 5);
  set_float(n, "epsilon", 0.25f);
  Tensor x = float_tensor({2, 1}, {2, -2}, DType::kFloat16);
  // opset 15 lets the parameters have another float type than X
  Tensor scale = float_tensor({1}, {3}), b = float_tensor({1}, {0.5});
  Tensor mean = float_tensor({1}, {0}), var = float_tensor({1}, {2});
  auto out = run_ok(n, {&x, &scale, &b, &mean, &var}, 15);
  ASSERT_EQ(out[0].dtype(), DType::kFloat16);
  // 2 / sqrt(2.25) * 3 + 0.5 = 4.5
  expect_values(out[0], {2, 1}, {4.5, -3.5}, 0);
}

TEST(OpBatchNormalization, Opset7PerActivationWhenSpatialIsZero) {
  Node n = make_node("BatchNormalization", 5);
  set_float(n, "epsilon", 0);
  set_int(n, "spatial", 0);
  Tensor x = float_tensor({2, 1, 2}, {1, 2, 3, 4});
  Tensor scale = float_tensor({1, 2}, {1, 1}), b = float_tensor({1, 2}, {0, 0});
  Tensor mean = float_tensor({1, 2}, {0, 1}), var = float_tensor({1, 2}, {1, 4});
  expect_values(run_ok(n, {&x, &scale, &b, &mean, &var}, 7)[0], {2, 1, 2}, {1, 0.5, 3, 1.5});
  // from opset 9 spatial is gone: the same parameters no longer fit the single channel
  EXPECT_NE(run_error(n, {&x, &scale, &b, &mean, &var}, 9).find("expected 1 values"), std::string::npos);
}

// Training mode itself: nn_norm_training_test.cpp.
TEST(OpBatchNormalization, StatisticsOutputsNeedTrainingMode) {
  Tensor x = float_tensor({1, 1, 2}, {1, 2});
  Tensor p = float_tensor({1}, {1});
  Node extra = make_node("BatchNormalization", 5, 3);
  EXPECT_NE(run_error(extra, {&x, &p, &p, &p, &p}, 14).find("training mode"), std::string::npos);
  Node per_activation = make_node("BatchNormalization", 5, 5);
  set_int(per_activation, "spatial", 0);
  EXPECT_NE(run_error(per_activation, {&x, &p, &p, &p, &p}, 7).find("spatial = 0"), std::string::npos);
}

TEST(OpBatchNormalization, RejectsBadShapes) {
  Node n = make_node("BatchNormalization", 5);
  Tensor x = float_tensor({1, 3, 2}, {});
  Tensor p2 = float_tensor({2}, {1, 1});
  Tensor p3 = float_tensor({3}, {1, 1, 1});
  EXPECT_NE(run_error(n, {&x, &p2, &p3, &p3, &p3}).find("scale"), std::string::npos);
  Tensor x1 = float_tensor({3}, {});
  EXPECT_NE(run_error(n, {&x1, &p3, &p3, &p3, &p3}).find("rank"), std::string::npos);
  Node bad_eps = make_node("BatchNormalization", 5);
  set_float(bad_eps, "epsilon", -1);
  EXPECT_NE(run_error(bad_eps, {&x, &p3, &p3, &p3, &p3}).find("epsilon"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------

TEST(OpInstanceNormalization, NormalisesEachPlane) {
  Node n = make_node("InstanceNormalization", 3);
  set_float(n, "epsilon", 0);
  Tensor x = float_tensor({2, 2, 2}, {1, 3, 0, 4, 5, 5, 2, 6});
  Tensor scale = float_tensor({2}, {2, 1}), b = float_tensor({2}, {0, 10});
  // planes: [1,3] mean 2 sd 1 -> [-2, 2]; [0,4] mean 2 sd 2 -> [9, 11];
  // [5,5] sd 0 with epsilon 0 -> 0/0 (checked separately below); [2,6] -> [9, 11]
  Tensor x_ok = float_tensor({2, 2, 2}, {1, 3, 0, 4, 7, 5, 2, 6});
  expect_values(run_ok(n, {&x_ok, &scale, &b})[0], {2, 2, 2}, {-2, 2, 9, 11, 2, -2, 9, 11});
  Node with_eps = make_node("InstanceNormalization", 3);
  set_float(with_eps, "epsilon", 1e-2f);
  auto out = run_ok(with_eps, {&x, &scale, &b});
  const auto v = values_of(out[0]);
  EXPECT_NEAR(v[0], -2 / std::sqrt(1.01), 1e-6);
  EXPECT_NEAR(v[4], 0, 0);  // constant plane: (x - mean) = 0
}

TEST(OpInstanceNormalization, RejectsParamsOfTheWrongLength) {
  Node n = make_node("InstanceNormalization", 3);
  Tensor x = float_tensor({1, 2, 2}, {});
  Tensor p = float_tensor({3}, {});
  EXPECT_NE(run_error(n, {&x, &p, &p}).find("scale"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------

TEST(OpLayerNormalization, LastAxisWithMeanAndInvStdDev) {
  Node n = make_node("LayerNormalization", 3, 3);
  set_float(n, "epsilon", 0);
  Tensor x = float_tensor({2, 2}, {1, 3, 2, 6});
  Tensor scale = float_tensor({2}, {1, 2}), b = float_tensor({2}, {0, 1});
  auto out = run_ok(n, {&x, &scale, &b});
  expect_values(out[0], {2, 2}, {-1, 3, -1, 3});
  ASSERT_EQ(out[1].dtype(), DType::kFloat32);
  expect_values(out[1], {2, 1}, {2, 4});
  expect_values(out[2], {2, 1}, {1, 0.5});
}

TEST(OpLayerNormalization, AxisZeroAndBroadcastScaleWithoutBias) {
  Node n = make_node("LayerNormalization", 2);
  set_int(n, "axis", 0);
  set_float(n, "epsilon", 0);
  Tensor x = float_tensor({2, 2}, {1, 2, 4, 5}, DType::kFloat64);
  Tensor scale = float_tensor({1}, {2}, DType::kFloat64);  // broadcasts over [2, 2]
  // mean 3, variance (4 + 1 + 1 + 4) / 4 = 2.5
  const double s = 2 / std::sqrt(2.5);
  expect_values(run_ok(n, {&x, &scale})[0], {2, 2}, {-2 * s, -1 * s, 1 * s, 2 * s}, 1e-12);
}

TEST(OpLayerNormalization, BFloat16RoundsOnce) {
  Node n = make_node("LayerNormalization", 2);
  Tensor x = float_tensor({1, 4}, {1, 2, 3, 4}, DType::kBFloat16);
  Tensor scale = float_tensor({4}, {1, 1, 1, 1}, DType::kBFloat16);
  auto out = run_ok(n, {&x, &scale});
  ASSERT_EQ(out[0].dtype(), DType::kBFloat16);
  const double inv = 1 / std::sqrt(1.25 + 1e-5);
  const std::vector<double> exact = {-1.5 * inv, -0.5 * inv, 0.5 * inv, 1.5 * inv};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(values_of(out[0])[static_cast<size_t>(i)],
              static_cast<float>(BFloat16(static_cast<float>(exact[static_cast<size_t>(i)]))));
}

TEST(OpLayerNormalization, RejectsBadAxisScaleAndStashType) {
  Tensor x = float_tensor({2, 3}, {});
  Tensor s3 = float_tensor({3}, {}), s2 = float_tensor({2}, {});
  Node axis = make_node("LayerNormalization", 2);
  set_int(axis, "axis", 2);
  EXPECT_NE(run_error(axis, {&x, &s3}).find("axis"), std::string::npos);
  Node n = make_node("LayerNormalization", 2);
  EXPECT_NE(run_error(n, {&x, &s2}).find("broadcast"), std::string::npos);
  Node stash = make_node("LayerNormalization", 2);
  set_int(stash, "stash_type", 11);
  EXPECT_NE(run_error(stash, {&x, &s3}).find("stash_type"), std::string::npos);
}

}  // namespace
}  // namespace openge::testing
