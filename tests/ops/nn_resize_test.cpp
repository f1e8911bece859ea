// Resize and Upsample against hand-computed cases, one per coordinate and nearest mode.
#include <gtest/gtest.h>

#include "nn_test_util.h"

namespace openge::testing {
namespace {

using namespace nn_util;

// Resize (opset 11+) with X, an empty roi, then scales or sizes.
struct ResizeCase {
  Node node = make_node("Resize", 4);
  Tensor roi = float_tensor({0}, {});
  Tensor scales = float_tensor({0}, {});
  Tensor sizes = int64_tensor({0}, {});

  ResizeCase(const std::string& mode, const std::string& coord) {
    set_string(node, "mode", mode);
    if (!coord.empty()) set_string(node, "coordinate_transformation_mode", coord);
  }
  void with_scales(std::vector<double> s) { scales = float_tensor({static_cast<int64_t>(s.size())}, s); }
  void with_sizes(std::vector<int64_t> s) { sizes = int64_tensor({static_cast<int64_t>(s.size())}, s); }
  std::vector<Tensor> run(const Tensor& x, int64_t opset = 13) {
    return run_ok(node, {&x, &roi, &scales, &sizes}, opset);
  }
};

TEST(OpResize, NearestHalfPixelUpsample) {
  ResizeCase c("nearest", "");  // defaults: half_pixel, round_prefer_floor
  c.with_scales({1, 1, 2, 2});
  Tensor x = float_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_values(c.run(x)[0], {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(OpResize, LinearCoordinateModes) {
  Tensor x = float_tensor({1, 1, 1, 2}, {1, 3});
  ResizeCase half("linear", "half_pixel");
  half.with_scales({1, 1, 1, 2});
  // source coords -0.25 (clamped), 0.25, 0.75, 1.25 (clamped)
  expect_values(half.run(x)[0], {1, 1, 1, 4}, {1, 1.5, 2.5, 3});
  ResizeCase corners("linear", "align_corners");
  corners.with_sizes({1, 1, 1, 4});
  expect_values(corners.run(x)[0], {1, 1, 1, 4}, {1, 1 + 2.0 / 3, 1 + 4.0 / 3, 3});
  ResizeCase asym("linear", "asymmetric");
  asym.with_scales({1, 1, 1, 2});
  expect_values(asym.run(x)[0], {1, 1, 1, 4}, {1, 2, 3, 3});
  ResizeCase torch("linear", "pytorch_half_pixel");
  torch.with_sizes({1, 1, 1, 1});
  // one output: pytorch_half_pixel maps it to 0 (half_pixel would give 0.5)
  expect_values(torch.run(x)[0], {1, 1, 1, 1}, {1});
  ResizeCase half1("linear", "half_pixel");
  half1.with_sizes({1, 1, 1, 1});
  expect_values(half1.run(x)[0], {1, 1, 1, 1}, {2});
}

TEST(OpResize, BilinearAlignCorners) {
  ResizeCase c("linear", "align_corners");
  c.with_sizes({1, 1, 3, 3});
  Tensor x = float_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_values(c.run(x)[0], {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
}

TEST(OpResize, TrilinearOnThreeDims) {
  ResizeCase c("linear", "align_corners");
  c.with_sizes({1, 1, 3, 2, 3});
  Tensor x = float_tensor({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  // x = 4d + 2h + w is linear, so the interpolant is exact: 4*(d/2) + 2*h + w/2
  std::vector<double> expected;
  for (int d = 0; d < 3; ++d)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w) expected.push_back(4 * d / 2.0 + 2 * h + w / 2.0);
  expect_values(c.run(x)[0], {1, 1, 3, 2, 3}, expected);
}

TEST(OpResize, NearestModesAtExactHalves) {
  Tensor x = float_tensor({3}, {10, 20, 30});
  // asymmetric with scale 2: source coords 0, 0.5, 1, 1.5, 2, 2.5
  const std::pair<const char*, std::vector<double>> cases[] = {
      {"round_prefer_floor", {10, 10, 20, 20, 30, 30}},
      {"round_prefer_ceil", {10, 20, 20, 30, 30, 30}},
      {"floor", {10, 10, 20, 20, 30, 30}},
      {"ceil", {10, 20, 20, 30, 30, 30}},
  };
  for (const auto& [mode, expected] : cases) {
    ResizeCase c("nearest", "asymmetric");
    set_string(c.node, "nearest_mode", mode);
    c.with_sizes({6});
    expect_values(c.run(x)[0], {6}, expected);
  }
  // at 1/3 steps the modes differ away from halves: scale 3 -> coords 0, 1/3, 2/3, 1, ...
  ResizeCase floor("nearest", "asymmetric");
  set_string(floor.node, "nearest_mode", "floor");
  floor.with_scales({3});
  expect_values(floor.run(x)[0], {9}, {10, 10, 10, 20, 20, 20, 30, 30, 30});
  ResizeCase round("nearest", "asymmetric");
  round.with_scales({3});
  expect_values(round.run(x)[0], {9}, {10, 10, 20, 20, 20, 30, 30, 30, 30});
}

TEST(OpResize, TfHalfPixelForNnAndDownsampling) {
  Tensor x = float_tensor({1, 1, 1, 4}, {1, 2, 3, 4});
  ResizeCase nn("nearest", "tf_half_pixel_for_nn");
  nn.with_sizes({1, 1, 1, 2});
  // coords (x + 0.5) * 2 = 1, 3
  expect_values(nn.run(x)[0], {1, 1, 1, 2}, {2, 4});
  ResizeCase down("nearest", "half_pixel");
  down.with_scales({1, 1, 1, 0.6});
  // floor(4 * 0.6) = 2 outputs; coords (x + 0.5) / 0.6 - 0.5 = 0.333, 2
  expect_values(down.run(x)[0], {1, 1, 1, 2}, {1, 3});
}

TEST(OpResize, TfCropAndResizeWithExtrapolation) {
  Tensor x = float_tensor({1, 1, 1, 4}, {1, 2, 3, 4});
  ResizeCase crop("linear", "tf_crop_and_resize");
  crop.roi = float_tensor({8}, {0, 0, 0, 0.25, 1, 1, 1, 0.75});
  crop.with_sizes({1, 1, 1, 3});
  // coords 0.75 + 0.75 x
  expect_values(crop.run(x)[0], {1, 1, 1, 3}, {1.75, 2.5, 3.25});
  ResizeCase outside("linear", "tf_crop_and_resize");
  set_float(outside.node, "extrapolation_value", 10);
  outside.roi = float_tensor({8}, {0, 0, 0, -0.5, 1, 1, 1, 1.5});
  outside.with_sizes({1, 1, 1, 3});
  // coords -1.5, 1.5, 4.5
  expect_values(outside.run(x)[0], {1, 1, 1, 3}, {10, 2.5, 10});
}

TEST(OpResize, IntegerAndHalfTypes) {
  Tensor u(DType::kUInt8, {1, 3});
  u.data<uint8_t>()[0] = 0;
  u.data<uint8_t>()[1] = 255;
  u.data<uint8_t>()[2] = 100;
  ResizeCase nearest("nearest", "asymmetric");
  nearest.with_scales({1, 2});
  auto out = nearest.run(u);
  ASSERT_EQ(out[0].dtype(), DType::kUInt8);
  expect_values(out[0], {1, 6}, {0, 0, 255, 255, 100, 100}, 0);
  ResizeCase linear("linear", "align_corners");
  linear.with_sizes({1, 5});
  // 0, 127.5 -> 128 (round half to even), 255, 177.5 -> 178, 100
  expect_values(linear.run(u)[0], {1, 5}, {0, 128, 255, 178, 100}, 0);
  Tensor h = float_tensor({1, 2}, {1, 2}, DType::kFloat16);
  ResizeCase lh("linear", "align_corners");
  lh.with_sizes({1, 3});
  expect_values(lh.run(h)[0], {1, 3}, {1, 1.5, 2}, 0);
}

TEST(OpResize, Opset10UsesAsymmetricFloorWhenUpsampling) {
  Node n = make_node("Resize", 2);
  Tensor x = float_tensor({1, 2}, {1, 2});
  Tensor s = float_tensor({2}, {1, 3});
  // opset 10: coords x / 3, floored
  expect_values(run_ok(n, {&x, &s}, 10)[0], {1, 6}, {1, 1, 1, 2, 2, 2});
  set_string(n, "mode", "linear");
  expect_values(run_ok(n, {&x, &s}, 10)[0], {1, 6}, {1, 1 + 1.0 / 3, 1 + 2.0 / 3, 2, 2, 2}, 1e-6);
}

TEST(OpResize, RejectsCubicBothOrNeitherAndBadValues) {
  Tensor x = float_tensor({1, 2}, {1, 2});
  ResizeCase cubic("cubic", "");
  cubic.with_scales({1, 2});
  // Cubic exists from opset 11 (nn_resize_cubic_test.cpp); Resize-10 has only nearest/linear.
  auto r = run_node(cubic.node, {&x, &cubic.scales}, 10);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cubic"), std::string::npos);

  ResizeCase both("nearest", "");
  both.with_scales({1, 2});
  both.with_sizes({1, 4});
  EXPECT_NE(run_error(both.node, {&x, &both.roi, &both.scales, &both.sizes}).find("only one"), std::string::npos);
  ResizeCase neither("nearest", "");
  EXPECT_NE(run_error(neither.node, {&x, &neither.roi, &neither.scales, &neither.sizes}).find("must be given"),
            std::string::npos);
  ResizeCase negative("nearest", "");
  negative.with_scales({1, -2});
  EXPECT_NE(run_error(negative.node, {&x, &negative.roi, &negative.scales, &negative.sizes}).find("> 0"),
            std::string::npos);
  ResizeCase huge("nearest", "");
  huge.with_scales({1e9, 1e9});
  EXPECT_FALSE(run_node(huge.node, {&x, &huge.roi, &huge.scales, &huge.sizes}).ok());
  ResizeCase rank("nearest", "");
  rank.with_sizes({4});
  EXPECT_NE(run_error(rank.node, {&x, &rank.roi, &rank.scales, &rank.sizes}).find("sizes"), std::string::npos);
  ResizeCase coord("nearest", "center");
  coord.with_scales({1, 2});
  EXPECT_NE(run_error(coord.node, {&x, &coord.roi, &coord.scales, &coord.sizes}).find("coordinate_transformation_mode"),
            std::string::npos);
}

TEST(OpResize, InferWaitsForSizesData) {
  Node n = make_node("Resize", 4);
  ValueInfo x{DType::kFloat32, true, {1, 3, 8, 8}, nullptr};
  ValueInfo roi{DType::kFloat32, true, {0}, nullptr};
  ValueInfo scales{DType::kFloat32, true, {0}, nullptr};
  ValueInfo sizes{DType::kInt64, true, {4}, nullptr};
  InferContext ctx(n, 13, {&x, &roi, &scales, &sizes}, 1);
  ASSERT_TRUE(find_op_schema("Resize")->infer(ctx).ok());
  EXPECT_EQ(ctx.output(0).dtype, DType::kFloat32);
  EXPECT_FALSE(ctx.output(0).shape_known);
}

// ---------------------------------------------------------------------------------------------

TEST(OpUpsample, Opset7ScalesAttributeAndOpset9ScalesInput) {
  Tensor x = float_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  Node v7 = make_node("Upsample", 1);
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = {1, 1, 2, 1};
  v7.attrs.set("scales", a);
  expect_values(run_ok(v7, {&x}, 7)[0], {1, 1, 4, 2}, {1, 2, 1, 2, 3, 4, 3, 4});
  Node v9 = make_node("Upsample", 2);
  set_string(v9, "mode", "linear");
  Tensor s = float_tensor({4}, {1, 1, 1, 2});
  expect_values(run_ok(v9, {&x, &s}, 9)[0], {1, 1, 2, 4}, {1, 1.5, 2, 2, 3, 3.5, 4, 4});
}

}  // namespace
}  // namespace openge::testing
