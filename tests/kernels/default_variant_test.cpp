// The default implementation of a kernel (kernels/default_variant.h): which convolutions run
// oneDNN's Winograd algorithm untuned, worked out by hand, and end to end that the default build
// is within float32 rounding of a double-precision convolution while op_select_implmode=
// high_precision (Conv2D lists the mode in all_ops_impl_mode.ini) keeps the direct algorithm,
// whose error is smaller where Winograd runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../compiler/fused_model_test_util.h"
#include "aoe/tuning_space.h"
#include "kernels/default_variant.h"
#include "ops/layout/activation_format.h"
#include "compiler/compile_config_test_util.h"

namespace openge {
namespace {

ValueInfo known(Shape shape) { return ValueInfo{DType::kFloat32, true, std::move(shape), nullptr}; }

struct ConvCase {
  int64_t in_channels, out_channels, kernel, size, stride, group;
};

KernelVariant default_for(const ConvCase& c, const std::string& impl_mode = "") {
  Node n;
  n.op_type = "Conv";
  n.name = "conv";
  n.impl_mode = impl_mode;
  const int64_t pad = c.kernel / 2;
  n.attrs = testing::ints_attr("strides", {c.stride, c.stride},
                               testing::ints_attr("pads", {pad, pad, pad, pad}, testing::int_attr("group", c.group)));
  const int64_t out_size = c.size / c.stride;
  return default_variant(KernelRequest{
      n,
      17,
      {known({1, c.in_channels, c.size, c.size}), known({c.out_channels, c.in_channels / c.group, c.kernel, c.kernel})},
      {known({1, c.out_channels, out_size, out_size})}});
}

bool winograd(const KernelVariant& v) {
  const bool w = v.conv_algorithm == ConvAlgorithm::kWinograd;
  if (w) {
    EXPECT_EQ(v.activations, ActivationLayout::kBlocked) << "oneDNN's Winograd runs on blocked activations";
  }
  return w;
}

TEST(DefaultVariant, WinogradForLargeEnoughStrideOneThreeByThreeConvolutionsOnly) {
  const bool here = winograd_available();
  // ResNet's 3x3 convolutions at 56x56x64, 28x28x128 and 14x14x256.
  EXPECT_EQ(winograd(default_for({64, 64, 3, 56, 1, 1})), here);
  EXPECT_EQ(winograd(default_for({128, 128, 3, 28, 1, 1})), here);
  EXPECT_EQ(winograd(default_for({256, 256, 3, 14, 1, 1})), here);
  // Not: 7x7 outputs (196 pixels is the least), stride 2, 1x1, 16 channels, 40 channels (not a
  // multiple of 16), groups, and a high_precision node.
  EXPECT_FALSE(winograd(default_for({512, 512, 3, 7, 1, 1})));
  EXPECT_FALSE(winograd(default_for({64, 64, 3, 56, 2, 1})));
  EXPECT_FALSE(winograd(default_for({64, 64, 1, 56, 1, 1})));
  EXPECT_FALSE(winograd(default_for({16, 64, 3, 56, 1, 1})));
  EXPECT_FALSE(winograd(default_for({40, 64, 3, 56, 1, 1})));
  EXPECT_FALSE(winograd(default_for({64, 64, 3, 56, 1, 2})));
  EXPECT_FALSE(winograd(default_for({64, 64, 3, 56, 1, 1}, "high_precision")));
  EXPECT_EQ(winograd(default_for({64, 64, 3, 56, 1, 1}, "high_performance")), here);
}

// A FusedConv of an NC1HWC0 region (ChannelsLastLayoutPass): stored shapes N x C1 x H x W x C0.
KernelRequest nc1hwc0_conv(Node& n, int64_t channels, int64_t kernel, int64_t size) {
  n.op_type = "FusedConv";
  n.name = "conv";
  const int64_t pad = kernel / 2;
  n.attrs = testing::ints_attr("pads", {pad, pad, pad, pad}, testing::int_attr("nc1hwc0", 1));
  const Shape act = stored_shape({1, channels, size, size}, ActivationFormat::kNc1hwc0);
  return KernelRequest{n, 17, {known(act), known({channels, channels, kernel, kernel})}, {known(act)}};
}

// In an NC1HWC0 region a direct convolution with a window on a small image runs on NHWC, staged:
// oneDNN's brgemm kernels beat its nChw16c ones there (ResNet's last stage, bench/RESULTS.md);
// 1x1 convolutions and larger images stay on the region's layout, and Winograd keeps its rule.
TEST(DefaultVariant, SmallImageWindowsOfNc1hwc0RegionsRunOnNhwc) {
  Node n;
  const KernelVariant last_stage = default_variant(nc1hwc0_conv(n, 512, 3, 7));
  EXPECT_EQ(last_stage.conv_algorithm, ConvAlgorithm::kDirect);
  EXPECT_EQ(last_stage.activations, ActivationLayout::kChannelsLast);
  EXPECT_EQ(default_variant(nc1hwc0_conv(n, 512, 1, 7)).activations, ActivationLayout::kGraph);
  EXPECT_EQ(winograd(default_variant(nc1hwc0_conv(n, 256, 3, 14))), winograd_available());
  if (!winograd_available()) {
    EXPECT_EQ(default_variant(nc1hwc0_conv(n, 256, 3, 14)).activations, ActivationLayout::kGraph);
  }
  // AOE measures NHWC staging among the convolution's candidates, the default first.
  const auto candidates = aoe::candidate_variants(nc1hwc0_conv(n, 512, 3, 7), 1);
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), last_stage);
  size_t staged = 0;
  for (const KernelVariant& v : candidates) staged += v.activations == ActivationLayout::kChannelsLast;
  EXPECT_EQ(staged, 1u);
  EXPECT_EQ(parse_kernel_variant(to_string(last_stage)), last_stage) << to_string(last_stage);
}

// Conv 3x3, 64 -> 64 channels, pads 1, on 28x28: its output, and the largest error against a
// double-precision convolution relative to the largest |output|.
constexpr int64_t kC = 64, kS = 28;

Tensor pattern(Shape shape, int seed, float scale) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = scale * static_cast<float>((i * 7919 + seed * 104729) % 2001 - 1000) / 1000.0f;
  return t;
}

struct ConvResult {
  Tensor output;
  double relative_error = INFINITY;
};

ConvResult conv_under(const std::shared_ptr<const options::OptionSet>& cfg) {
  testing::GraphBuilder b(17);
  b.g.source = "default_variant_test";
  const int x = b.input("x", {1, kC, kS, kS});
  const Tensor w = pattern({kC, kC, 3, 3}, 1, 0.1f);
  Node conv;
  conv.op_type = "Conv";
  conv.name = "conv";
  conv.attrs = testing::ints_attr("pads", {1, 1, 1, 1});
  b.g.outputs = {b.node(conv, {x, b.constant("w", w)})};
  // One thread: the two compiles differ only in the algorithm (no thread plan or grain to vary).
  CompileOptions o;
  o.num_threads = 1;
  o.config = openge::test::compile_config(cfg);
  auto compiled = compiler::compile(std::move(b.g), {{1, kC, kS, kS}}, o);
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  if (!compiled.ok()) return {};
  const std::unique_ptr<Executable> exe = std::move(compiled.value());
  const Tensor in = pattern({1, kC, kS, kS}, 2, 1.0f);
  auto out = exe->run({in});
  EXPECT_TRUE(out.ok());
  if (!out.ok()) return {};
  const float* xi = in.data<float>();
  const float* wi = w.data<float>();
  const float* y = (*out)[0].data<float>();
  double worst = 0, largest = 0;
  for (int64_t o = 0; o < kC; ++o)
    for (int64_t r = 0; r < kS; ++r)
      for (int64_t c = 0; c < kS; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < kC; ++i)
          for (int64_t kr = 0; kr < 3; ++kr)
            for (int64_t kc = 0; kc < 3; ++kc) {
              const int64_t rr = r + kr - 1, cc = c + kc - 1;
              if (rr < 0 || rr >= kS || cc < 0 || cc >= kS) continue;
              sum += static_cast<double>(xi[(i * kS + rr) * kS + cc]) * wi[((o * kC + i) * 3 + kr) * 3 + kc];
            }
        worst = std::max(worst, std::abs(sum - y[(o * kS + r) * kS + c]));
        largest = std::max(largest, std::abs(sum));
      }
  return {(*out)[0], worst / largest};
}

TEST(DefaultVariant, OPT_op_select_implmode_2_HighPrecisionKeepsTheDirectConvolution) {
  const ConvResult by_default = conv_under(testing::fused::config({}));
  const ConvResult precise = conv_under(testing::fused::config({{"op_select_implmode", "high_precision"}}));
  // Both within float32 rounding of the exact result (the zoo's bound against ONNX Runtime is 1e-4;
  // measured here: Winograd 5.9e-7, direct 1.0e-6).
  EXPECT_LT(by_default.relative_error, 1e-5);
  EXPECT_LT(precise.relative_error, 1e-5);
  // Where Winograd is the default the two algorithms round differently; where it is not, both are
  // the same direct convolution.
  ASSERT_TRUE(by_default.output.defined() && precise.output.defined());
  const bool same = std::memcmp(by_default.output.raw(), precise.output.raw(), precise.output.nbytes()) == 0;
  EXPECT_EQ(same, !winograd_available());
}

}  // namespace
}  // namespace openge
