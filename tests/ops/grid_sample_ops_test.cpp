// GridSample (grid_sample_ops.cpp). Expected values worked out by hand from the ONNX/PyTorch
// coordinate rules (denormalise, pad, then interpolate).
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "shape_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;
using nn_util::run_ok;

TEST(OpGridSample, PaddingModesAndNearest) {
  Tensor x = float_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor grid = float_tensor({1, 1, 2, 2}, {0, 0, -1, -1});
  Node n = make_node("GridSample", 2);
  expect_values(run1(n, {&x, &grid}, 16), {1, 1, 1, 2}, {2.5, 0.25});  // (-0.5, -0.5): one corner inside
  set_string(n, "padding_mode", "border");
  expect_values(run1(n, {&x, &grid}, 16), {1, 1, 1, 2}, {2.5, 1});
  Node ac = make_node("GridSample", 2);
  set_int(ac, "align_corners", 1);
  expect_values(run1(ac, {&x, &grid}, 16), {1, 1, 1, 2}, {2.5, 1});
  Node nearest = make_node("GridSample", 2);
  set_string(nearest, "mode", "nearest");
  Tensor g2 = float_tensor({1, 1, 1, 2}, {0.2, -0.6});  // x = 0.7 -> 1, y = -0.1 -> 0
  expect_values(run1(nearest, {&x, &g2}, 16), {1, 1, 1, 1}, {2});
}

TEST(OpGridSample, BicubicWeightsSumToOne) {
  Tensor x = float_tensor({1, 1, 4, 4}, std::vector<double>(16, 5.0));
  Tensor grid = float_tensor({1, 1, 1, 2}, {0.1, -0.2});
  Node n = make_node("GridSample", 2);
  set_string(n, "mode", "bicubic");
  set_int(n, "align_corners", 1);
  expect_values(run1(n, {&x, &grid}, 16), {1, 1, 1, 1}, {5});
}

}  // namespace
}  // namespace openge::testing
