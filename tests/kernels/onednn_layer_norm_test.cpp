// AI Core LayerNormalization (kernels/onednn_layer_norm.h) against the AI CPU reference kernel,
// which accumulates in double: within float32 rounding for the last-axis form of transformers and
// an earlier axis; the forms it leaves to AI CPU (a broadcast Scale, Mean/InvStdDev asked for,
// a high_precision node, float16) build no kernel.
#include <gtest/gtest.h>

#include "../passes/pass_test_util.h"
#include "kernel_test_util.h"

namespace openge {
namespace {
using namespace openge::testing;

Node layer_norm(int64_t axis, const std::string& impl_mode = "") {
  Node n;
  n.op_type = "LayerNormalization";
  n.name = "ln";
  n.impl_mode = impl_mode;
  n.inputs = {0, 1, 2};
  n.outputs = {3};
  n.attrs = int_attr("axis", axis, float_attr("epsilon", 1e-6f));
  return n;
}

TEST(OneDnnLayerNorm, MatchesTheReferenceOnTheLastAxisAndAnEarlierOne) {
  struct Case {
    Shape x;
    int64_t axis;
    Shape normalized;
    bool constant_params;
  };
  for (const Case& c :
       {Case{{1, 197, 384}, -1, {384}, true}, Case{{2, 8, 6, 5}, 2, {6, 5}, false}, Case{{4, 64}, 1, {64}, true}}) {
    const Tensor x = random_tensor(c.x, 1);
    Tensor scale = random_tensor(c.normalized, 2), bias = random_tensor(c.normalized, 3);
    // Rows with a large offset: a one-pass variance in float32 would lose them.
    for (int64_t i = 0; i < x.numel(); i += 7) const_cast<float*>(x.data<float>())[i] += 50.0f;
    const Node node = layer_norm(c.axis);
    auto kernel =
        make_kernel(node, {&x, &scale, &bias}, {false, c.constant_params, c.constant_params}, DType::kFloat32, c.x);
    ASSERT_NE(kernel, nullptr) << shape_to_string(c.x);
    EXPECT_EQ(kernel->engine(), Engine::kAiCore);
    const Tensor got = run_kernel(*kernel, node, {&x, &scale, &bias}, DType::kFloat32, c.x);
    auto want = evaluate_node(node, 17, {&x, &scale, &bias});
    ASSERT_TRUE(want.ok()) << want.status().message();
    EXPECT_LT(max_rel_diff(got, (*want)[0]), 1e-4) << shape_to_string(c.x);
    double worst = 0;
    for (int64_t i = 0; i < got.numel(); ++i)
      worst = std::max(worst, std::abs(static_cast<double>(got.data<float>()[i]) - (*want)[0].data<float>()[i]));
    EXPECT_LT(worst, 5e-5) << shape_to_string(c.x);
  }
}

TEST(OneDnnLayerNorm, FormsLeftToTheReferenceKernelBuildNothing) {
  const Tensor x = random_tensor({3, 16}, 1);
  const Tensor scale = random_tensor({16}, 2), bias = random_tensor({16}, 3), scalar = random_tensor({1}, 4);
  auto none = [&](const Node& node, std::vector<const Tensor*> inputs, DType dtype = DType::kFloat32,
                  size_t outputs = 1) {
    KernelRequest req{node, 17, {}, {}};
    for (const Tensor* t : inputs) req.inputs.push_back(info_of(t, true));
    req.inputs[0].dtype = dtype;
    req.outputs.push_back(ValueInfo{dtype, true, {3, 16}, nullptr});
    for (size_t o = 1; o < outputs; ++o) req.outputs.push_back(ValueInfo{DType::kFloat32, true, {3, 1}, nullptr});
    auto k = make_aicore_kernel(req);
    return k.ok() && !*k;
  };
  EXPECT_TRUE(none(layer_norm(-1, "high_precision"), {&x, &scale, &bias})) << "high_precision stays in double";
  EXPECT_TRUE(none(layer_norm(-1), {&x, &scalar, &bias})) << "a broadcast Scale";
  EXPECT_TRUE(none(layer_norm(-1), {&x, &scale, &bias}, DType::kFloat32, 3)) << "Mean and InvStdDev asked for";
  EXPECT_TRUE(none(layer_norm(-1), {&x, &scale, &bias}, DType::kFloat16)) << "float16";
  EXPECT_FALSE(none(layer_norm(-1), {&x, &scale, &bias})) << "the plain form builds";
}

}  // namespace
}  // namespace openge
