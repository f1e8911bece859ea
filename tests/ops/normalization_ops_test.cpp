// LRN, MeanVarianceNormalization, LpNormalization (normalization_ops.cpp). Expected values
// computed with NumPy from the ops' formulas.
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "shape_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;

TEST(OpLRN, ChannelWindow) {
  Node n = make_node("LRN", 1);
  set_int(n, "size", 3);
  set_float(n, "alpha", 0.1f);
  Tensor x = float_tensor({1, 4, 1, 1}, {1, 2, 3, 4});
  expect_values(run1(n, {&x}), {1, 4, 1, 1}, {0.89081991, 1.50065684, 1.80643857, 2.53880239});
  Tensor h = float_tensor({1, 4, 1, 1}, {1, 2, 3, 4}, DType::kFloat16);
  expect_values(run1(n, {&h}), {1, 4, 1, 1}, {0.89081991, 1.50065684, 1.80643857, 2.53880239}, 2e-3);
  Node missing = make_node("LRN", 1);
  run_error(missing, {&x});
}

TEST(OpMeanVarianceNormalization, DefaultAxes) {
  Node n = make_node("MeanVarianceNormalization", 1);
  Tensor x = float_tensor({1, 1, 2, 3}, {1, 2, 3, 4, 10, 20}, DType::kFloat64);
  expect_values(run1(n, {&x}), {1, 1, 2, 3},
                {-0.855362829096153, -0.7044164474909496, -0.5534700658857461, -0.40252368428054264, 0.5031546053506782,
                 2.012618421402713},
                1e-12);
}

TEST(OpLpNormalization, P2LastAxisAndP1Axis0) {
  Tensor x = float_tensor({2, 2}, {3, 4, 1, -1});
  Node l2 = make_node("LpNormalization", 1);
  expect_values(run1(l2, {&x}), {2, 2}, {0.6, 0.8, 0.70710677, -0.70710677});
  Node l1 = make_node("LpNormalization", 1);
  set_int(l1, "p", 1);
  set_int(l1, "axis", 0);
  expect_values(run1(l1, {&x}), {2, 2}, {0.75, 0.8, 0.25, -0.2});
  set_int(l1, "p", 3);
  run_error(l1, {&x});
}

}  // namespace
}  // namespace openge::testing
