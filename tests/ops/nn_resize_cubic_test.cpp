// Resize mode 'cubic' (nn_resize.cpp): Keys' cubic convolution with cubic_coeff_a and
// exclude_outside. Expected values worked out by hand from the weights
// a = -0.75, t = 0.5: [-0.09375, 0.59375, 0.59375, -0.09375], and checked against ONNX 1.12's
// reference (onnx.backend.test.case.node.resize.interpolate_nd).
#include <gtest/gtest.h>

#include "nn_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;
using nn_util::run_ok;

Node cubic_node(const std::string& coord) {
  Node n = make_node("Resize", 3);
  Attribute mode;
  mode.kind = Attribute::Kind::kString;
  mode.s = "cubic";
  n.attrs.set("mode", mode);
  if (!coord.empty()) set_string(n, "coordinate_transformation_mode", coord);
  return n;
}

TEST(OpResizeCubic, AsymmetricUpsampleClampsAtTheEdges) {
  Node n = cubic_node("asymmetric");
  Tensor x = float_tensor({1, 4}, {1, 2, 3, 4});
  Tensor roi = float_tensor({0}, {});
  Tensor scales = float_tensor({2}, {1, 2});
  // o = 1 -> x = 0.5: taps -1, 0, 1, 2 read 1, 1, 2, 3 (edge padding).
  expect_values(run_ok(n, {&x, &roi, &scales}, 13)[0], {1, 8}, {1, 1.40625, 2, 2.5, 3, 3.59375, 4, 4.09375});
}

TEST(OpResizeCubic, ExcludeOutsideRenormalisesAndCoeffA) {
  Node n = cubic_node("asymmetric");
  set_int(n, "exclude_outside", 1);
  set_float(n, "cubic_coeff_a", -0.5f);
  Tensor x = float_tensor({1, 4}, {1, 2, 3, 4});
  Tensor roi = float_tensor({0}, {});
  Tensor scales = float_tensor({2}, {1, 2});
  expect_values(run_ok(n, {&x, &roi, &scales}, 13)[0], {1, 8},
                {1, 1.411764705882353, 2, 2.5, 3, 3.588235294117647, 4, 4.125}, 1e-5);
}

TEST(OpResizeCubic, HalfPixelDownsample2D) {
  Node n = cubic_node("");
  std::vector<double> v;
  for (int i = 0; i < 16; ++i) v.push_back(static_cast<double>(i * i));
  Tensor x = float_tensor({4, 4}, v);
  Tensor roi = float_tensor({0}, {});
  Tensor scales = float_tensor({2}, {0.5, 0.5});
  expect_values(run_ok(n, {&x, &roi, &scales}, 13)[0], {2, 2}, {5.0390625, 18.7109375, 117.1484375, 169.1015625}, 1e-4);
}

}  // namespace
}  // namespace openge::testing
