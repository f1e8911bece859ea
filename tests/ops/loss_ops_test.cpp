// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. Expected values by hand: NLL picks
// -input[n, label] * weight[label]; mean divides by the summed weights of the kept labels;
// SCE on [1, 2, 3] with label 2 is log(e + e^2 + e^3) - 3 (NumPy: 0.40760596).
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "shape_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;
using nn_util::run_ok;

TEST(OpNegativeLogLikelihoodLoss, ReductionsWeightsAndIgnoreIndex) {
  Tensor input = float_tensor({2, 3}, {-1, -2, -3, -0.5, -1.5, -2.5});
  Tensor target = ints({2, 0});
  Tensor weight = float_tensor({3}, {1, 2, 3});
  Node none = make_node("NegativeLogLikelihoodLoss", 3);
  set_string(none, "reduction", "none");
  expect_values(run1(none, {&input, &target, &weight}), {2}, {9, 0.5});
  Node sum = make_node("NegativeLogLikelihoodLoss", 3);
  set_string(sum, "reduction", "sum");
  expect_values(run1(sum, {&input, &target, &weight}), {}, {9.5});
  Node mean = make_node("NegativeLogLikelihoodLoss", 3);
  expect_values(run1(mean, {&input, &target, &weight}), {}, {2.375});
  set_int(mean, "ignore_index", 0);
  expect_values(run1(mean, {&input, &target, &weight}), {}, {3});
  Tensor bad = ints({2, 3});
  EXPECT_NE(run_error(mean, {&input, &bad, &weight}).find("label 3"), std::string::npos);
}

TEST(OpSoftmaxCrossEntropyLoss, LossAndLogProb) {
  Node n = make_node("SoftmaxCrossEntropyLoss", 2, 2);
  Tensor scores = float_tensor({1, 3}, {1, 2, 3});
  Tensor labels = ints({2});
  auto out = run_ok(n, {&scores, &labels});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], {}, {0.40760596});
  expect_values(out[1], {1, 3}, {-2.40760596, -1.40760596, -0.40760596});
  Tensor h = float_tensor({1, 3}, {1, 2, 3}, DType::kBFloat16);
  auto hb = run_ok(n, {&h, &labels});
  ASSERT_EQ(hb.size(), 2u);
  expect_values(hb[0], {}, {0.40760596}, 4e-3);
}

}  // namespace
}  // namespace openge::testing
