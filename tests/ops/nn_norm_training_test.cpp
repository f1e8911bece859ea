// Training-mode BatchNormalization (nn_norm.cpp): batch statistics normalise Y and update the
// running statistics. Expected values by hand: x = [1, 2, 3, 4] as N=2, C=1, 2 positions has
// mean 2.5 and population variance 1.25; with input mean 0, variance 1 and momentum 0.9 the
// running mean is 0.25 and the running variance 0.9 + 0.125 = 1.025.
#include <gtest/gtest.h>

#include "nn_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;
using nn_util::run_ok;

TEST(OpBatchNormalizationTraining, Opset15BatchStatisticsAndRunningOutputs) {
  Node n = make_node("BatchNormalization", 5, 3);
  set_int(n, "training_mode", 1);
  set_float(n, "epsilon", 0.0f);
  Tensor x = float_tensor({2, 1, 2}, {1, 2, 3, 4});
  Tensor scale = float_tensor({1}, {1}), b = float_tensor({1}, {0});
  Tensor mean = float_tensor({1}, {0}), var = float_tensor({1}, {1});
  auto out = run_ok(n, {&x, &scale, &b, &mean, &var}, 15);
  ASSERT_EQ(out.size(), 3u);
  expect_values(out[0], {2, 1, 2}, {-1.34164079, -0.44721360, 0.44721360, 1.34164079});
  expect_values(out[1], {1}, {0.25});
  expect_values(out[2], {1}, {1.025});
}

TEST(OpBatchNormalizationTraining, HalfInputAndOpset9SavedStatistics) {
  // Before opset 14, asking for the statistics outputs selects training mode; outputs 3 and 4
  // are the batch mean and variance.
  Node n = make_node("BatchNormalization", 5, 5);
  set_float(n, "epsilon", 0.0f);
  set_float(n, "momentum", 0.5f);
  Tensor x = float_tensor({2, 1, 2}, {1, 2, 3, 4}, DType::kFloat16);
  Tensor scale = float_tensor({1}, {2}, DType::kFloat16), b = float_tensor({1}, {1}, DType::kFloat16);
  Tensor mean = float_tensor({1}, {0}, DType::kFloat16), var = float_tensor({1}, {1}, DType::kFloat16);
  auto out = run_ok(n, {&x, &scale, &b, &mean, &var}, 9);
  ASSERT_EQ(out.size(), 5u);
  expect_values(out[0], {2, 1, 2}, {1 - 2 * 1.34164079, 1 - 2 * 0.44721360, 1 + 2 * 0.44721360, 1 + 2 * 1.34164079},
                4e-3);
  expect_values(out[1], {1}, {1.25});
  expect_values(out[2], {1}, {1.125});
  expect_values(out[3], {1}, {2.5});
  expect_values(out[4], {1}, {1.25});
}

}  // namespace
}  // namespace openge::testing
