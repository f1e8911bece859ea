// The kernel variants AOE tuning chooses among (ops/kernel_variant.h): each one the factories
// build computes what the reference (AI CPU) kernel computes, and the text form reads back.
#include <gtest/gtest.h>

#include "ops/kernel.h"
#include "kernels/kernel_test_util.h"
#include "base/cpu_features.h"
#include "ops/op_test_util.h"

namespace openge::testing {
namespace {

std::unique_ptr<CompiledKernel> build(const Node& node, const std::vector<const Tensor*>& inputs,
                                      const Shape& out_shape, const KernelVariant& variant) {
  KernelRequest req{node, 17, {}, {}};
  for (size_t i = 0; i < inputs.size(); ++i) req.inputs.push_back(info_of(inputs[i], i > 0));
  req.outputs.push_back(ValueInfo{DType::kFloat32, true, out_shape, nullptr});
  req.variant = variant;
  auto k = make_aicore_kernel(req);
  EXPECT_TRUE(k.ok()) << k.status().message();
  return k.ok() ? std::move(k.value()) : nullptr;
}

bool has_feature(const std::string& f) {
  const auto all = cpu_features();
  return std::find(all.begin(), all.end(), f) != all.end();
}

TEST(KernelVariant, TextFormReadsBackAndRejectsAnythingElse) {
  const KernelVariant v{ConvAlgorithm::kWinograd, ActivationLayout::kBlocked, WeightLayout::kPlain,
                        ThreadPlan::kSingle};
  EXPECT_EQ(to_string(v), "conv_algorithm=winograd,activations=blocked,weights=plain,threads=single");
  EXPECT_EQ(parse_kernel_variant(to_string(v)), v);
  EXPECT_EQ(parse_kernel_variant(to_string(KernelVariant{})), KernelVariant{});
  for (const char* bad :
       {"", "conv_algorithm=winograd", "conv_algorithm=fft,activations=graph,weights=plain,threads=team",
        "conv_algorithm=direct,activations=graph,weights=plain,threads=team,x=1",
        "conv_algorithm=direct,conv_algorithm=direct,weights=plain,threads=team"})
    EXPECT_FALSE(parse_kernel_variant(bad).has_value()) << bad;
}

// 3x3 stride-1 convolution with bias and a residual, 16 -> 32 channels: every conv variant
// oneDNN builds here matches the reference kernel.
TEST(KernelVariant, ConvVariantsMatchTheReferenceKernel) {
  Node node = make_node("FusedConv", 4);
  set_ints(node, "kernel_shape", {3, 3});
  set_ints(node, "pads", {1, 1, 1, 1});
  set_string(node, "activation", "Relu");
  const Tensor x = random_tensor({1, 16, 12, 12}, 1), w = random_tensor({32, 16, 3, 3}, 2), b = random_tensor({32}, 3),
               r = random_tensor({1, 32, 12, 12}, 4);
  const std::vector<const Tensor*> in{&x, &w, &b, &r};
  auto ref = run_node(node, in);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  int built = 0;
  for (auto algorithm : {ConvAlgorithm::kDirect, ConvAlgorithm::kWinograd})
    for (auto layout : {ActivationLayout::kGraph, ActivationLayout::kBlocked}) {
      const KernelVariant v{algorithm, layout, WeightLayout::kPacked, ThreadPlan::kByGrain};
      auto k = build(node, in, {1, 32, 12, 12}, v);
      if (!k) continue;  // oneDNN has no such kernel here (Winograd needs blocked activations, AVX-512)
      ++built;
      const Tensor y = run_kernel(*k, node, in, DType::kFloat32, {1, 32, 12, 12});
      // Winograd transforms round differently from a direct sum: relative 1e-4.
      EXPECT_LT(max_rel_diff(y, (*ref)[0]), 1e-4) << to_string(v);
      // As a run state runs it: the argument lists (staging reorders included) made once, then
      // runs on other activations and residuals through them.
      const Tensor x2 = random_tensor({1, 16, 12, 12}, 5), r2 = random_tensor({1, 32, 12, 12}, 6);
      const std::vector<const Tensor*> in2{&x2, &w, &b, &r2};
      auto ref2 = run_node(node, in2);
      ASSERT_TRUE(ref2.ok()) << ref2.status().message();
      const auto runs = run_kernel_on_one_state(*k, node, {in, in2, in}, {(*ref)[0]});
      EXPECT_LT(max_rel_diff(runs[0][0], (*ref)[0]), 1e-4) << to_string(v) << ", first run on one state";
      EXPECT_LT(max_rel_diff(runs[1][0], (*ref2)[0]), 1e-4) << to_string(v) << ", second run on one state";
      EXPECT_LT(max_rel_diff(runs[2][0], (*ref)[0]), 1e-4) << to_string(v) << ", third run on one state";
    }
  EXPECT_GE(built, 2);  // direct on either layout always exists
  if (has_feature("avx512f")) {
    // oneDNN 2.x has Winograd for this convolution on AVX-512 CPUs.
    EXPECT_NE(
        build(node, in, {1, 32, 12, 12},
              {ConvAlgorithm::kWinograd, ActivationLayout::kBlocked, WeightLayout::kPacked, ThreadPlan::kByGrain}),
        nullptr);
  }
}

TEST(KernelVariant, MatmulWeightLayoutsMatchTheReferenceKernel) {
  Node node = make_node("MatMul", 2);
  const Tensor a = random_tensor({6, 40}, 5), b = random_tensor({40, 24}, 6);
  const std::vector<const Tensor*> in{&a, &b};
  auto ref = run_node(node, in);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  for (auto layout : {WeightLayout::kPacked, WeightLayout::kPlain}) {
    auto k = build(node, in, {6, 24}, {ConvAlgorithm::kDirect, ActivationLayout::kGraph, layout, ThreadPlan::kByGrain});
    ASSERT_NE(k, nullptr);
    EXPECT_LT(max_rel_diff(run_kernel(*k, node, in, DType::kFloat32, {6, 24}), (*ref)[0]), 1e-5);
  }
}

}  // namespace
}  // namespace openge::testing
