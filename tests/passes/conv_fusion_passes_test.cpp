// Conv fusion passes: the fused graph computes what the unfused graph computes (1e-5).
#include "../kernels/kernel_test_util.h"
#include "ops/op_registry.h"
#include "pass_test_util.h"

namespace openge::testing {
namespace {

Attributes conv_attrs() { return ints_attr("pads", {1, 1, 1, 1}); }

Tensor positive(Shape s, uint32_t seed) {
  Tensor t = random_tensor(std::move(s), seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.5f + std::abs(t.data<float>()[i]);
  return t;
}

// X -> Conv -> BN -> [Add(other)] -> act
struct Block {
  Graph g;
  std::vector<Tensor> inputs;
};

Block conv_bn_block(bool residual, const std::string& act, bool conv_bias = true) {
  GraphBuilder b;
  const int x = b.input("x");
  const int w = b.constant("w", random_tensor({8, 4, 3, 3}, 1));
  std::vector<int> conv_in{x, w};
  if (conv_bias) conv_in.push_back(b.constant("b", random_tensor({8}, 2)));
  int y = b.node("Conv", conv_in, conv_attrs());
  y = b.node("BatchNormalization",
             {y, b.constant("scale", random_tensor({8}, 3)), b.constant("beta", random_tensor({8}, 4)),
              b.constant("mean", random_tensor({8}, 5)), b.constant("var", positive({8}, 6))},
             float_attr("epsilon", 1e-3f));
  Block blk;
  blk.inputs.push_back(random_tensor({2, 4, 6, 6}, 7));
  if (residual) {
    const int r = b.input("r");
    blk.inputs.push_back(random_tensor({2, 8, 6, 6}, 8));
    y = b.node("Add", {y, r});
  }
  if (act == "Clip") {
    Tensor lo(DType::kFloat32, {}), hi(DType::kFloat32, {});
    lo.data<float>()[0] = 0.0f;
    hi.data<float>()[0] = 0.5f;
    y = b.node("Clip", {y, b.constant("lo", lo), b.constant("hi", hi)});
  } else if (!act.empty()) {
    y = b.node(act, {y});
  }
  b.g.outputs = {y};
  blk.g = std::move(b.g);
  eval_graph(blk.g, blk.inputs, /*annotate=*/true);
  return blk;
}

bool have_reference_ops() {
  return find_op_schema("Conv") && find_op_schema("BatchNormalization") && find_op_schema("Add");
}

TEST(ConvBatchnormFusionPass, FoldsBatchNormIntoConvWeights) {
  if (!have_reference_ops()) GTEST_SKIP();
  for (bool bias : {true, false}) {
    Block blk = conv_bn_block(false, "", bias);
    const auto before = eval_graph(blk.g, blk.inputs);
    const PassResult r = run_pass(blk.g, "ConvBatchnormFusionPass");
    EXPECT_EQ(r.applied, 1);
    EXPECT_EQ(count_ops(blk.g, "BatchNormalization"), 0);
    EXPECT_EQ(blk.g.nodes.size(), 1u);
    const auto after = eval_graph(blk.g, blk.inputs);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
  }
}

TEST(ConvBatchnormFusionPass, LeavesSharedConvOutputAlone) {
  if (!have_reference_ops()) GTEST_SKIP();
  Block blk = conv_bn_block(false, "");
  // Make the conv output also a graph output: folding would change it.
  blk.g.outputs.push_back(blk.g.nodes[0].outputs[0]);
  EXPECT_EQ(run_pass(blk.g, "ConvBatchnormFusionPass").applied, 0);
  EXPECT_EQ(count_ops(blk.g, "BatchNormalization"), 1);
}

TEST(TbeConvDoubleInFusionPass, ResidualAddAndReluBecomeOneFusedConv) {
  if (!have_reference_ops() || !find_op_schema("Relu")) GTEST_SKIP();
  Block blk = conv_bn_block(true, "Relu");
  const auto before = eval_graph(blk.g, blk.inputs);
  EXPECT_EQ(run_pass(blk.g, "ConvBatchnormFusionPass").applied, 1);
  EXPECT_EQ(run_pass(blk.g, "TbeConvDoubleInFusionPass").applied, 1);
  EXPECT_EQ(run_pass(blk.g, "TbeConvElemwiseFusionPass").applied, 1);
  ASSERT_EQ(blk.g.nodes.size(), 1u);
  EXPECT_EQ(blk.g.nodes[0].op_type, "FusedConv");
  EXPECT_EQ(blk.g.nodes[0].attrs.get_string("activation", ""), "Relu");
  const auto after = eval_graph(blk.g, blk.inputs);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

TEST(TbeConvElemwiseFusionPass, FusesClipAsRelu6Style) {
  if (!have_reference_ops() || !find_op_schema("Clip")) GTEST_SKIP();
  Block blk = conv_bn_block(false, "Clip");
  const auto before = eval_graph(blk.g, blk.inputs);
  for (const Pass& p : all_passes())
    if (p.name != "ChannelsLastLayoutPass") {
      ASSERT_TRUE(p.run(blk.g, PassContext{}).ok());
    }
  ASSERT_EQ(blk.g.nodes.size(), 1u);
  EXPECT_EQ(blk.g.nodes[0].attrs.get_string("activation", ""), "Clip");
  EXPECT_FLOAT_EQ(blk.g.nodes[0].attrs.get_float("activation_beta", 0), 0.5f);
  const auto after = eval_graph(blk.g, blk.inputs);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

TEST(TbeConvElemwiseFusionPass, EveryActivationMatchesUnfused) {
  if (!have_reference_ops()) GTEST_SKIP();
  for (const char* act : {"Relu", "Sigmoid", "Tanh", "LeakyRelu"}) {
    if (!find_op_schema(act)) continue;
    Block blk = conv_bn_block(false, act);
    const auto before = eval_graph(blk.g, blk.inputs);
    run_pass(blk.g, "ConvBatchnormFusionPass");
    EXPECT_EQ(run_pass(blk.g, "TbeConvElemwiseFusionPass").applied, 1) << act;
    const auto after = eval_graph(blk.g, blk.inputs);
    EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5) << act;
  }
}

}  // namespace
}  // namespace openge::testing
