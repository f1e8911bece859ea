// Conv and ConvTranspose against hand-computed cases and an independent direct-loop reference.
#include <gtest/gtest.h>

#include "nn_test_util.h"

namespace openge::testing {
namespace {

using namespace nn_util;

std::vector<double> iota(int n, double start = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}

TEST(OpConv, Valid2x2KernelSumsWindows) {
  Node n = make_node("Conv", 2);
  Tensor x = float_tensor({1, 1, 3, 3}, iota(9));
  Tensor w = float_tensor({1, 1, 2, 2}, {1, 1, 1, 1});
  auto out = run_ok(n, {&x, &w});
  expect_values(out[0], {1, 1, 2, 2}, {8, 12, 20, 24});
}

TEST(OpConv, PadsAndBias) {
  Node n = make_node("Conv", 3);
  set_ints(n, "pads", {1, 1, 1, 1});
  set_ints(n, "kernel_shape", {3, 3});
  Tensor x = float_tensor({1, 1, 3, 3}, iota(9));
  Tensor w = float_tensor({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  Tensor b = float_tensor({1}, {1});
  auto out = run_ok(n, {&x, &w, &b});
  expect_values(out[0], {1, 1, 3, 3}, {9, 16, 13, 22, 37, 28, 21, 34, 25});
}

TEST(OpConv, StridesWithPadding) {
  Node n = make_node("Conv", 2);
  set_ints(n, "pads", {1, 1, 1, 1});
  set_ints(n, "strides", {2, 2});
  Tensor x = float_tensor({1, 1, 5, 5}, iota(25));
  Tensor w = float_tensor({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  auto out = run_ok(n, {&x, &w});
  expect_values(out[0], {1, 1, 3, 3}, {12, 27, 24, 63, 108, 81, 72, 117, 84});
}

TEST(OpConv, DepthwiseGroups) {
  Node n = make_node("Conv", 2);
  set_int(n, "group", 2);
  Tensor x = float_tensor({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w = float_tensor({2, 1, 1, 1}, {2, 3});
  auto out = run_ok(n, {&x, &w});
  expect_values(out[0], {1, 2, 2, 2}, {2, 4, 6, 8, 15, 18, 21, 24});
}

TEST(OpConv, DilatedOneD) {
  Node n = make_node("Conv", 2);
  set_ints(n, "dilations", {2});
  Tensor x = float_tensor({1, 1, 5}, {1, 2, 3, 4, 5});
  Tensor w = float_tensor({1, 1, 2}, {1, 10});
  auto out = run_ok(n, {&x, &w});
  expect_values(out[0], {1, 1, 3}, {31, 42, 53});
}

TEST(OpConv, AutoPadSameUpperAndLowerPutTheOddPadOnOppositeSides) {
  Tensor x = float_tensor({1, 1, 4}, {1, 2, 3, 4});
  Tensor w = float_tensor({1, 1, 2}, {1, 1});
  Node upper = make_node("Conv", 2);
  set_string(upper, "auto_pad", "SAME_UPPER");
  expect_values(run_ok(upper, {&x, &w})[0], {1, 1, 4}, {3, 5, 7, 4});
  Node lower = make_node("Conv", 2);
  set_string(lower, "auto_pad", "SAME_LOWER");
  expect_values(run_ok(lower, {&x, &w})[0], {1, 1, 4}, {1, 3, 5, 7});
  Node valid = make_node("Conv", 2);
  set_string(valid, "auto_pad", "VALID");
  expect_values(run_ok(valid, {&x, &w})[0], {1, 1, 3}, {3, 5, 7});
}

TEST(OpConv, ThreeD) {
  Node n = make_node("Conv", 2);
  Tensor x = float_tensor({1, 1, 2, 2, 3}, iota(12, 1));
  Tensor w = float_tensor({1, 1, 2, 2, 2}, std::vector<double>(8, 1.0));
  // windows over the last dim start at 0 and 1: sums of {1,2,4,5,7,8,10,11} and {2,3,5,6,8,9,11,12}
  expect_values(run_ok(n, {&x, &w})[0], {1, 1, 1, 1, 2}, {48, 56});
}

TEST(OpConv, PointwiseChannelsAndBatch) {
  Node n = make_node("Conv", 3);
  Tensor x = float_tensor({2, 2, 1, 1}, {1, 2, -1, 0.5});
  Tensor w = float_tensor({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  Tensor b = float_tensor({3}, {0, 1, -1});
  expect_values(run_ok(n, {&x, &w, &b})[0], {2, 3, 1, 1}, {5, 12, 16, 0, -0, -3});
}

TEST(OpConv, HalfBFloatAndDoubleRoundOnce) {
  for (DType dt : {DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    Node n = make_node("Conv", 2);
    Tensor x = float_tensor({1, 1, 3, 3}, iota(9), dt);
    Tensor w = float_tensor({1, 1, 2, 2}, {1, 1, 1, 1}, dt);
    auto out = run_ok(n, {&x, &w});
    ASSERT_EQ(out[0].dtype(), dt);
    expect_values(out[0], {1, 1, 2, 2}, {8, 12, 20, 24});
  }
  // Accumulating in float and rounding once: 1 + 4 * 2^-12 = 1 + 2^-10 is a float16. Summing in
  // float16 would lose each 2^-12 (half an ulp of 1, ties to even) and give 1.
  Node n = make_node("Conv", 2);
  Tensor x = float_tensor({1, 5, 1, 1}, {1, 1.0 / 4096, 1.0 / 4096, 1.0 / 4096, 1.0 / 4096}, DType::kFloat16);
  Tensor w = float_tensor({1, 5, 1, 1}, {1, 1, 1, 1, 1}, DType::kFloat16);
  expect_values(run_ok(n, {&x, &w})[0], {1, 1, 1, 1}, {1.0009765625}, 0);
}

// Direct 2-D convolution written from the definition, for checking the tiled im2col path.
std::vector<double> direct_conv2d(const std::vector<double>& x, Shape xs, const std::vector<double>& w, Shape ws,
                                  int64_t group, std::vector<int64_t> st, std::vector<int64_t> pads,
                                  std::vector<int64_t> dil, Shape* ys) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], M = ws[0], KH = ws[2], KW = ws[3];
  const int64_t OH = (H + pads[0] + pads[2] - ((KH - 1) * dil[0] + 1)) / st[0] + 1;
  const int64_t OW = (W + pads[1] + pads[3] - ((KW - 1) * dil[1] + 1)) / st[1] + 1;
  *ys = {N, M, OH, OW};
  std::vector<double> y(static_cast<size_t>(N * M * OH * OW), 0.0);
  const int64_t cg = C / group, mg = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = 0;
          const int64_t g = m / mg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * st[0] - pads[0] + kh * dil[0];
                const int64_t iw = ow * st[1] - pads[1] + kw * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += x[static_cast<size_t>(((n * C + g * cg + c) * H + ih) * W + iw)] *
                     w[static_cast<size_t>(((m * cg + c) * KH + kh) * KW + kw)];
              }
          y[static_cast<size_t>(((n * M + m) * OH + oh) * OW + ow)] = s;
        }
  return y;
}

std::vector<double> pseudo_random(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (auto& e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = static_cast<double>(seed >> 8) / static_cast<double>(1u << 24) - 0.5;
  }
  return v;
}

TEST(OpConv, TiledPathMatchesDirectLoopsAcrossTilesAndChannelBlocks) {
  // > 256 output positions and > 64 output channels per group, so several position tiles and
  // channel blocks run; odd strides, pads and dilations.
  const Shape xs{2, 6, 23, 29}, ws{140, 3, 3, 2};
  const auto xv = pseudo_random(static_cast<size_t>(shape_numel(xs)), 1);
  const auto wv = pseudo_random(static_cast<size_t>(shape_numel(ws)), 2);
  Shape ys;
  const auto expected = direct_conv2d(xv, xs, wv, ws, 2, {1, 2}, {1, 0, 2, 1}, {2, 1}, &ys);
  Node n = make_node("Conv", 2);
  set_int(n, "group", 2);
  set_ints(n, "strides", {1, 2});
  set_ints(n, "pads", {1, 0, 2, 1});
  set_ints(n, "dilations", {2, 1});
  Tensor x = float_tensor(xs, xv), w = float_tensor(ws, wv);
  expect_values(run_ok(n, {&x, &w})[0], ys, expected, 1e-4);
}

TEST(OpConv, DepthwisePathMatchesDirectLoops) {
  // One input channel per group (with a channel multiplier of 2): the direct depthwise path.
  for (int64_t stride : {1, 2}) {
    const Shape xs{2, 5, 13, 11}, ws{10, 1, 3, 3};
    const auto xv = pseudo_random(static_cast<size_t>(shape_numel(xs)), 5);
    const auto wv = pseudo_random(static_cast<size_t>(shape_numel(ws)), 6);
    Shape ys;
    const auto expected = direct_conv2d(xv, xs, wv, ws, 5, {stride, stride}, {1, 2, 0, 1}, {1, 2}, &ys);
    Node n = make_node("Conv", 2);
    set_int(n, "group", 5);
    set_ints(n, "strides", {stride, stride});
    set_ints(n, "pads", {1, 2, 0, 1});
    set_ints(n, "dilations", {1, 2});
    Tensor x = float_tensor(xs, xv), w = float_tensor(ws, wv);
    expect_values(run_ok(n, {&x, &w})[0], ys, expected, 1e-5);
  }
}

TEST(OpConv, RejectsInconsistentShapesAndAttributes) {
  Tensor x = float_tensor({1, 3, 4, 4}, {});
  Tensor w = float_tensor({2, 2, 3, 3}, {});
  Node n = make_node("Conv", 2);
  EXPECT_NE(run_error(n, {&x, &w}).find("input channels per group"), std::string::npos);

  Tensor w3 = float_tensor({2, 3, 5, 5}, {});
  EXPECT_NE(run_error(n, {&x, &w3}).find("larger than the padded input"), std::string::npos);

  Tensor w_ok = float_tensor({2, 3, 3, 3}, {});
  Node bad_stride = make_node("Conv", 2);
  set_ints(bad_stride, "strides", {1, int64_t{1} << 40});
  EXPECT_NE(run_error(bad_stride, {&x, &w_ok}).find("strides"), std::string::npos);
  Node zero_stride = make_node("Conv", 2);
  set_ints(zero_stride, "strides", {0, 1});
  EXPECT_NE(run_error(zero_stride, {&x, &w_ok}).find("strides"), std::string::npos);
  Node bad_pads = make_node("Conv", 2);
  set_ints(bad_pads, "pads", {1, 1});
  EXPECT_NE(run_error(bad_pads, {&x, &w_ok}).find("pads"), std::string::npos);
  Node neg_pads = make_node("Conv", 2);
  set_ints(neg_pads, "pads", {-1, 0, 0, 0});
  EXPECT_NE(run_error(neg_pads, {&x, &w_ok}).find("pads"), std::string::npos);
  Node bad_auto = make_node("Conv", 2);
  set_string(bad_auto, "auto_pad", "SAME");
  EXPECT_NE(run_error(bad_auto, {&x, &w_ok}).find("auto_pad"), std::string::npos);
  Node bad_group = make_node("Conv", 2);
  set_int(bad_group, "group", 2);
  EXPECT_NE(run_error(bad_group, {&x, &w_ok}).find("divisible"), std::string::npos);
  Node kshape = make_node("Conv", 2);
  set_ints(kshape, "kernel_shape", {2, 2});
  EXPECT_NE(run_error(kshape, {&x, &w_ok}).find("kernel_shape"), std::string::npos);
  Tensor xi = int64_tensor({1, 3, 4, 4}, {});
  EXPECT_NE(run_error(n, {&xi, &w_ok}).find("dtype"), std::string::npos);
  Tensor bias = float_tensor({3}, {});
  Node with_bias = make_node("Conv", 3);
  EXPECT_NE(run_error(with_bias, {&x, &w_ok, &bias}).find("bias"), std::string::npos);
}

TEST(OpConv, InferLeavesShapeUnknownWithoutInputShapes) {
  Node n = make_node("Conv", 2);
  ValueInfo x{DType::kFloat16, false, {}, nullptr};
  ValueInfo w{DType::kFloat16, true, {4, 3, 3, 3}, nullptr};
  InferContext ctx(n, 17, {&x, &w}, 1);
  ASSERT_TRUE(find_op_schema("Conv")->infer(ctx).ok());
  EXPECT_EQ(ctx.output(0).dtype, DType::kFloat16);
  EXPECT_FALSE(ctx.output(0).shape_known);
}

TEST(OpConv, InferKeepsUnknownBatchDim) {
  Node n = make_node("Conv", 2);
  set_ints(n, "pads", {1, 1, 1, 1});
  ValueInfo x{DType::kFloat32, true, {-1, 3, 224, 224}, nullptr};
  ValueInfo w{DType::kFloat32, true, {64, 3, 3, 3}, nullptr};
  InferContext ctx(n, 17, {&x, &w}, 1);
  ASSERT_TRUE(find_op_schema("Conv")->infer(ctx).ok());
  EXPECT_EQ(ctx.output(0).shape, (Shape{-1, 64, 224, 224}));
}

// ---------------------------------------------------------------------------------------------

TEST(OpConvTranspose, OnnxExampleTwoOutputChannels) {
  Node n = make_node("ConvTranspose", 2);
  Tensor x = float_tensor({1, 1, 3, 3}, iota(9));
  Tensor w = float_tensor({1, 2, 3, 3}, std::vector<double>(18, 1.0));
  const std::vector<double> plane = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                     27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  std::vector<double> expected = plane;
  expected.insert(expected.end(), plane.begin(), plane.end());
  expect_values(run_ok(n, {&x, &w})[0], {1, 2, 5, 5}, expected);
}

TEST(OpConvTranspose, StridePadsOutputPaddingAndOutputShape) {
  Tensor x = float_tensor({1, 1, 2}, {1, 2});
  Tensor w = float_tensor({1, 1, 3}, {1, 1, 1});
  Node plain = make_node("ConvTranspose", 2);
  set_ints(plain, "strides", {2});
  expect_values(run_ok(plain, {&x, &w})[0], {1, 1, 5}, {1, 1, 3, 2, 2});

  Node padded = make_node("ConvTranspose", 2);
  set_ints(padded, "strides", {2});
  set_ints(padded, "pads", {1, 1});
  expect_values(run_ok(padded, {&x, &w})[0], {1, 1, 3}, {1, 3, 2});

  Node outpad = make_node("ConvTranspose", 2);
  set_ints(outpad, "strides", {2});
  set_ints(outpad, "output_padding", {1});
  expect_values(run_ok(outpad, {&x, &w})[0], {1, 1, 6}, {1, 1, 3, 2, 2, 0});

  // output_shape 4 from a full size of 5: one pad, at the beginning (ONNX spec for NOTSET).
  Node shaped = make_node("ConvTranspose", 2);
  set_ints(shaped, "strides", {2});
  set_ints(shaped, "output_shape", {4});
  expect_values(run_ok(shaped, {&x, &w})[0], {1, 1, 4}, {1, 3, 2, 2});

  // output_shape longer than the full size 5: the extra position only gets the bias.
  Node longer = make_node("ConvTranspose", 3);
  set_ints(longer, "strides", {2});
  set_ints(longer, "output_shape", {1, 1, 7});
  Tensor b = float_tensor({1}, {0.5});
  expect_values(run_ok(longer, {&x, &w, &b})[0], {1, 1, 7}, {1.5, 1.5, 3.5, 2.5, 2.5, 0.5, 0.5});

  // SAME_UPPER: output = input * stride = 4, the odd pad goes at the end.
  Node same = make_node("ConvTranspose", 2);
  set_ints(same, "strides", {2});
  set_string(same, "auto_pad", "SAME_UPPER");
  expect_values(run_ok(same, {&x, &w})[0], {1, 1, 4}, {1, 1, 3, 2});
}

TEST(OpConvTranspose, GroupsDilationAndBias) {
  // Two groups, each one input channel -> two output channels; dilation 2 spreads the taps.
  Node n = make_node("ConvTranspose", 3);
  set_int(n, "group", 2);
  set_ints(n, "dilations", {2});
  Tensor x = float_tensor({1, 2, 2}, {1, 2, 3, 4});
  Tensor w = float_tensor({2, 2, 2}, {1, 10, 2, 20, 1, 1, -1, 0});
  Tensor b = float_tensor({4}, {0, 0, 100, 0});
  // out len = (2-1) + (2-1)*2 + 1 = 4; channel m gets x_c[i] * w[c][m][k] at i + 2k
  // g0 (x=[1,2]): m0 w=[1,10] -> [1,2,10,20]; m1 w=[2,20] -> [2,4,20,40]
  // g1 (x=[3,4]): m2 w=[1,1] -> [3,4,3,4] + 100; m3 w=[-1,0] -> [-3,-4,0,0]
  expect_values(run_ok(n, {&x, &w, &b})[0], {1, 4, 4}, {1, 2, 10, 20, 2, 4, 20, 40, 103, 104, 103, 104, -3, -4, 0, 0});
}

TEST(OpConvTranspose, TwoDStridedMatchesScatterDefinition) {
  const Shape xs{2, 4, 5, 6}, ws{4, 3, 3, 2};
  const auto xv = pseudo_random(static_cast<size_t>(shape_numel(xs)), 3);
  const auto wv = pseudo_random(static_cast<size_t>(shape_numel(ws)), 4);
  const int64_t s0 = 2, s1 = 3, p0 = 1, p1 = 0, p2 = 0, p3 = 2, group = 2;
  const int64_t OH = s0 * 4 + 3 - p0 - p2, OW = s1 * 5 + 2 - p1 - p3, M = 3 * group;
  std::vector<double> y(static_cast<size_t>(2 * M * OH * OW), 0.0);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t ih = 0; ih < 5; ++ih)
        for (int64_t iw = 0; iw < 6; ++iw)
          for (int64_t ml = 0; ml < 3; ++ml)
            for (int64_t kh = 0; kh < 3; ++kh)
              for (int64_t kw = 0; kw < 2; ++kw) {
                const int64_t oh = ih * s0 - p0 + kh, ow = iw * s1 - p1 + kw;
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                const int64_t m = (c / 2) * 3 + ml;
                y[static_cast<size_t>(((n * M + m) * OH + oh) * OW + ow)] +=
                    xv[static_cast<size_t>(((n * 4 + c) * 5 + ih) * 6 + iw)] *
                    wv[static_cast<size_t>(((c * 3 + ml) * 3 + kh) * 2 + kw)];
              }
  Node node = make_node("ConvTranspose", 2);
  set_int(node, "group", group);
  set_ints(node, "strides", {s0, s1});
  set_ints(node, "pads", {p0, p1, p2, p3});
  Tensor x = float_tensor(xs, xv), w = float_tensor(ws, wv);
  expect_values(run_ok(node, {&x, &w})[0], {2, M, OH, OW}, y, 1e-5);
}

TEST(OpConvTranspose, RejectsBadShapesAndHugeOutputs) {
  Tensor x = float_tensor({1, 2, 3}, {});
  Tensor w = float_tensor({3, 1, 3}, {});
  Node n = make_node("ConvTranspose", 2);
  EXPECT_NE(run_error(n, {&x, &w}).find("first dim"), std::string::npos);
  Tensor w_ok = float_tensor({2, 1, 3}, {});
  Node huge = make_node("ConvTranspose", 2);
  set_ints(huge, "output_shape", {int64_t{1} << 41});
  EXPECT_NE(run_error(huge, {&x, &w_ok}).find("output_shape"), std::string::npos);
  Node big_stride = make_node("ConvTranspose", 2);
  set_ints(big_stride, "strides", {1 << 20});
  Tensor wide = float_tensor({1, 2, 20000}, {});
  EXPECT_NE(run_error(big_stride, {&wide, &w_ok}).find("too large"), std::string::npos);
  Node bad_outpad = make_node("ConvTranspose", 2);
  set_ints(bad_outpad, "output_padding", {3});
  EXPECT_NE(run_error(bad_outpad, {&x, &w_ok}).find("output_padding"), std::string::npos);
}

}  // namespace
}  // namespace openge::testing
