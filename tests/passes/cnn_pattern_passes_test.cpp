// The patterns of modern mobile CNNs : self-gated activations (Swish /
// SiLU as Mul(y, Sigmoid(y)), HardSwish as Mul(y, HardSigmoid(y))) and HardSigmoid fused into the
// convolution, and the whole-graph layout plan that keeps squeeze-and-excitation blocks, residual
// Adds and fire-module Concats in NHWC. Every fused graph is compared with the unfused graph on
// the reference engine, whose Sigmoid, HardSigmoid, Mul and Concat kernels are the independent
// oracle here; the compiled (oneDNN) forms are compared in cnn_fusion_compiled_test.cpp.
#include "../kernels/kernel_test_util.h"
#include "ops/op_registry.h"
#include "pass_test_util.h"
#include "passes/stored_format_test_util.h"

namespace openge::testing {
namespace {

Attributes pads1() { return ints_attr("pads", {1, 1, 1, 1}); }

// y = Conv(x) -> Mul(y, Gate(y)), the gate being `gate_op` with `gate_attrs`.
Graph conv_gated(const char* gate_op, Attributes gate_attrs, bool extra_reader = false) {
  GraphBuilder b;
  const int x = b.input("x");
  const int y = b.node(
      "Conv", {x, b.constant("w", random_tensor({6, 4, 3, 3}, 1)), b.constant("b", random_tensor({6}, 2))}, pads1());
  const int gate = b.node(gate_op, {y}, gate_attrs);
  const int out = b.node("Mul", {gate, y});  // the gate first: either operand order is matched
  b.g.outputs = {out};
  if (extra_reader) b.g.outputs.push_back(b.node("Relu", {y}));
  return b.g;
}

const std::vector<Tensor> kConvInput{random_tensor({2, 4, 7, 7}, 3)};

TEST(TbeConvElemwiseFusionPass, SwishAsSigmoidMulBecomesOnePostOp) {
  Graph g = conv_gated("Sigmoid", {});
  EXPECT_EQ(fuse_and_compare(g, "TbeConvElemwiseFusionPass", kConvInput, 1e-5).applied, 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "FusedConv");
  EXPECT_EQ(g.nodes[0].attrs.get_string("activation", ""), "Swish");
  EXPECT_EQ(g.nodes[0].fused_from.size(), 3u);
}

TEST(TbeConvElemwiseFusionPass, HardSwishAsHardSigmoidMulBecomesOnePostOp) {
  Graph g = conv_gated("HardSigmoid", float_attr("alpha", 1.0f / 6.0f, float_attr("beta", 0.5f)));
  EXPECT_EQ(fuse_and_compare(g, "TbeConvElemwiseFusionPass", kConvInput, 1e-5).applied, 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attrs.get_string("activation", ""), "HardSwish");
}

TEST(TbeConvElemwiseFusionPass, HardSigmoidOfOtherSlopeIsAnActivationNotASwish) {
  // alpha 0.2 is not HardSwish's gate: the Mul stays, the HardSigmoid alone cannot fuse either
  // (the conv output has two readers).
  Graph g = conv_gated("HardSigmoid", float_attr("alpha", 0.2f, float_attr("beta", 0.5f)));
  EXPECT_EQ(fuse_and_compare(g, "TbeConvElemwiseFusionPass", kConvInput).applied, 0);
  EXPECT_EQ(count_ops(g, "Mul"), 1);
  // A lone HardSigmoid after a conv is a post-op with its own alpha and beta.
  GraphBuilder b;
  const int y = b.node("Conv", {b.input("x"), b.constant("w", random_tensor({6, 4, 3, 3}, 1))}, pads1());
  b.g.outputs = {b.node("HardSigmoid", {y}, float_attr("alpha", 0.3f, float_attr("beta", 0.4f)))};
  EXPECT_EQ(fuse_and_compare(b.g, "TbeConvElemwiseFusionPass", kConvInput, 1e-5).applied, 1);
  EXPECT_EQ(b.g.nodes[0].attrs.get_string("activation", ""), "HardSigmoid");
  EXPECT_FLOAT_EQ(b.g.nodes[0].attrs.get_float("activation_alpha", 0), 0.3f);
}

TEST(TbeConvElemwiseFusionPass, GatedPairLeftAloneWhenTheConvOutputHasAnotherReader) {
  Graph g = conv_gated("Sigmoid", {}, /*extra_reader=*/true);
  EXPECT_EQ(fuse_and_compare(g, "TbeConvElemwiseFusionPass", kConvInput).applied, 0);
  EXPECT_EQ(count_ops(g, "Sigmoid"), 1);
  EXPECT_EQ(count_ops(g, "Mul"), 1);
}

// EfficientNet's MBConv block: expand conv + SiLU, depthwise conv + SiLU, squeeze-and-excitation
// (GlobalAveragePool -> conv + SiLU -> conv + Sigmoid -> channel-wise Mul), project conv,
// residual Add.
Graph mbconv_block() {
  GraphBuilder b;
  const int x = b.input("x");
  auto silu = [&](int v) { return b.node("Mul", {v, b.node("Sigmoid", {v})}); };
  int y = silu(b.node("Conv", {x, b.constant("w_exp", random_tensor({16, 8, 1, 1}, 11))}));
  y = silu(b.node("Conv", {y, b.constant("w_dw", random_tensor({16, 1, 3, 3}, 12))}, int_attr("group", 16, pads1())));
  int s = b.node("GlobalAveragePool", {y});
  s = silu(b.node(
      "Conv", {s, b.constant("w_se1", random_tensor({4, 16, 1, 1}, 13)), b.constant("b_se1", random_tensor({4}, 14))}));
  s = b.node("Sigmoid", {b.node("Conv", {s, b.constant("w_se2", random_tensor({16, 4, 1, 1}, 15)),
                                         b.constant("b_se2", random_tensor({16}, 16))})});
  y = b.node("Mul", {y, s});
  y = b.node("Conv", {y, b.constant("w_proj", random_tensor({8, 16, 1, 1}, 17))});
  y = b.node("Add", {y, x});
  // A per-channel constant scale, as a folded normalisation leaves one.
  y = b.node("Mul", {y, b.constant("scale", random_tensor({1, 8, 1, 1}, 18))});
  b.g.outputs = {y};
  return b.g;
}

std::string producer_op(const Graph& g, int v) {
  const int p = g.values[static_cast<size_t>(v)].producer;
  return p < 0 ? "" : g.nodes[static_cast<size_t>(p)].op_type;
}

// Runs every pass in order and checks that the graph still computes what it computed before
// (reference engine, 1e-5).
void run_all_passes(Graph& g, const std::vector<Tensor>& in) {
  const auto before = eval_graph(g, in, true);
  for (const Pass& p : all_passes()) {
    auto r = p.run(g, PassContext{});
    ASSERT_TRUE(r.ok()) << p.name << ": " << r.status().message();
  }
  const auto after = eval_graph(g, in);
  ASSERT_EQ(after.size(), before.size());
  for (size_t o = 0; o < after.size(); ++o) EXPECT_LT(max_abs_diff(after[o], before[o]), 1e-5);
}

TEST(ChannelsLastLayoutPass, SqueezeExcitationBlockStaysInNhwc) {
  Graph g = mbconv_block();
  const std::vector<Tensor> in{random_tensor({1, 8, 9, 9}, 19)};
  run_all_passes(g, in);
  // One conversion in, one out: the SE gate's Mul, the residual and the scale run in NHWC.
  EXPECT_EQ(count_ops(g, "Transpose"), 2);
  EXPECT_EQ(count_ops(g, "Sigmoid"), 0);  // every Sigmoid is a conv post-op (Swish or the gate)
  EXPECT_EQ(count_ops_in_format(g, "GlobalAveragePool", ActivationFormat::kNhwc), 1);
  for (const Node& n : g.nodes) {
    if (n.op_type == "FusedConv") {
      EXPECT_EQ(n.attrs.get_int("channels_last", 0), 1) << n.name;
    }
    if (n.op_type == "Mul") {
      // N x H x W x C operands: the gate [1,1,1,16] and the permuted constant [1,1,1,8].
      const Shape& a = *g.values[static_cast<size_t>(n.inputs[0])].shape;
      const Shape& s = *g.values[static_cast<size_t>(n.inputs[1])].shape;
      EXPECT_EQ(a[3], s[3]) << n.name;
      EXPECT_EQ(s[1], 1) << n.name;
    }
  }
}

// SqueezeNet's fire module: squeeze conv, two expand convs, Concat on channels, MaxPool.
TEST(ChannelsLastLayoutPass, FireModuleConcatRunsOnTheChannelAxisOfNhwc) {
  GraphBuilder b;
  const int x = b.input("x");
  const int sq = b.node("Relu", {b.node("Conv", {x, b.constant("w_sq", random_tensor({4, 6, 1, 1}, 21))})});
  const int e1 = b.node("Relu", {b.node("Conv", {sq, b.constant("w_e1", random_tensor({5, 4, 1, 1}, 22))})});
  const int e3 = b.node("Relu", {b.node("Conv", {sq, b.constant("w_e3", random_tensor({7, 4, 3, 3}, 23))}, pads1())});
  int y = b.node("Concat", {e1, e3}, int_attr("axis", 1));
  y = b.node("MaxPool", {y}, ints_attr("kernel_shape", {3, 3}, ints_attr("strides", {2, 2})));
  b.g.outputs = {y};
  const std::vector<Tensor> in{random_tensor({2, 6, 9, 9}, 24)};
  run_all_passes(b.g, in);
  EXPECT_EQ(count_ops(b.g, "Transpose"), 2);
  ASSERT_EQ(count_ops(b.g, "Concat"), 1);
  for (const Node& n : b.g.nodes)
    if (n.op_type == "Concat") {
      EXPECT_EQ(n.attrs.get_int("axis", 0), 3);
    }
}

// ConvNeXt's block: depthwise conv, the model's own permute to NHWC around its channel-last
// work (a Relu here), the permute back, the residual Add. The region takes the model's permutes
// over instead of adding a cancelling Transpose next to each.
TEST(ChannelsLastLayoutPass, ModelPermutesToAndFromNhwcAreTakenOver) {
  GraphBuilder b;
  const int x = b.input("x");
  const int c0 = b.node("Conv", {x, b.constant("w0", random_tensor({8, 3, 1, 1}, 26))});
  int y = b.node("Conv", {c0, b.constant("w_dw", random_tensor({8, 1, 3, 3}, 27))}, int_attr("group", 8, pads1()));
  y = b.node("Transpose", {y}, ints_attr("perm", {0, 2, 3, 1}));
  const int relu = b.node("Relu", {y});
  y = b.node("Transpose", {relu}, ints_attr("perm", {0, 3, 1, 2}));
  y = b.node("Add", {c0, y});
  b.g.outputs = {b.node("Conv", {y, b.constant("w1", random_tensor({4, 8, 1, 1}, 28))})};
  const std::vector<Tensor> in{random_tensor({1, 3, 6, 6}, 29)};
  run_all_passes(b.g, in);
  for (const Node& n : b.g.nodes) {
    if (n.op_type == "Relu") {  // reads the depthwise conv's NHWC output itself
      EXPECT_EQ(producer_op(b.g, n.inputs[0]), "FusedConv");
    }
    if (n.op_type == "Add") {  // reads the Relu's output itself
      EXPECT_TRUE(producer_op(b.g, n.inputs[0]) == "Relu" || producer_op(b.g, n.inputs[1]) == "Relu");
    }
  }
}

// DenseNet's layer: Concat of earlier features -> BatchNormalization -> Relu -> Conv. The BN has
// no convolution to fold into; as a per-channel Mul and Add it stays in NHWC with its neighbours.
Graph dense_layer(bool constant_stats) {
  GraphBuilder b;
  const int x = b.input("x");
  const int c = b.node("Conv", {x, b.constant("w0", random_tensor({6, 3, 3, 3}, 41))}, pads1());
  const int cat = b.node("Concat", {x, c}, int_attr("axis", 1));
  Tensor var = random_tensor({9}, 45);
  for (int64_t i = 0; i < var.numel(); ++i) var.data<float>()[i] = 0.5f + std::abs(var.data<float>()[i]);
  const int mean = constant_stats ? b.constant("mean", random_tensor({9}, 44)) : b.input("mean");
  int y = b.node("BatchNormalization",
                 {cat, b.constant("scale", random_tensor({9}, 42)), b.constant("beta", random_tensor({9}, 43)), mean,
                  b.constant("var", var)},
                 float_attr("epsilon", 1e-3f));
  y = b.node("Relu", {y});
  b.g.outputs = {b.node("Conv", {y, b.constant("w1", random_tensor({4, 9, 1, 1}, 46))})};
  return b.g;
}

TEST(BatchNormBnInferFusionPass, BatchNormAfterConcatBecomesPerChannelMulAdd) {
  Graph g = dense_layer(true);
  const std::vector<Tensor> in{random_tensor({1, 3, 5, 5}, 47)};
  EXPECT_EQ(fuse_and_compare(g, "BatchNormBnInferFusionPass", in, 1e-5).applied, 1);
  EXPECT_EQ(count_ops(g, "BatchNormalization"), 0);
  EXPECT_EQ(count_ops(g, "Mul"), 1);
  EXPECT_EQ(count_ops(g, "Add"), 1);
  for (const Node& n : g.nodes)
    if (n.op_type == "Mul") {
      EXPECT_EQ(*g.values[static_cast<size_t>(n.inputs[1])].shape, (Shape{1, 9, 1, 1}));
    }
}

TEST(BatchNormBnInferFusionPass, BatchNormWithStatisticsFedAtRunTimeIsLeftAlone) {
  Graph g = dense_layer(false);
  const std::vector<Tensor> in{random_tensor({1, 3, 5, 5}, 47), random_tensor({9}, 44)};
  EXPECT_EQ(fuse_and_compare(g, "BatchNormBnInferFusionPass", in).applied, 0);
  EXPECT_EQ(count_ops(g, "BatchNormalization"), 1);
}

TEST(ChannelsLastLayoutPass, DenseLayerRunsInNhwcWithoutConversionsInside) {
  Graph g = dense_layer(true);
  run_all_passes(g, {random_tensor({1, 3, 5, 5}, 47)});
  // The input's conversion for the first conv, the Concat's own input x, the output's: nothing
  // between the Concat, the BN's Mul and Add, the Relu and the last conv.
  EXPECT_EQ(count_ops(g, "Transpose"), 2);
  EXPECT_EQ(count_ops(g, "BatchNormalization"), 0);
}

TEST(ChannelsLastLayoutPass, ElementwiseOpsOutsideTheRegionStayNchw) {
  // No convolution or pool: nothing joins NHWC, nothing is converted.
  GraphBuilder b;
  const int x = b.input("x");
  b.g.outputs = {b.node("Mul", {b.node("Sigmoid", {x}), x})};
  const std::vector<Tensor> in{random_tensor({1, 3, 4, 4}, 25)};
  run_all_passes(b.g, in);
  EXPECT_EQ(count_ops(b.g, "Transpose"), 0);
}

}  // namespace
}  // namespace openge::testing
