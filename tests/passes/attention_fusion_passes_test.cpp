// SoftmaxFusionPass (written-out softmax -> Softmax) and FlashAttentionScoreFusionPass (scaled
// dot-product attention -> FusedAttention): each fires on its pattern and its variants, leaves
// near misses alone, and the fused graph computes what the unfused graph computes (the unfused
// run on the reference engine is the reference). Compiled with AI Core kernels, each model
// agrees with the same model compiled with its pass switched off by fusion_switch_file,
// whose fusion_result.json then lacks the pass; with it on, effect_times x (pattern nodes - 1)
// nodes are gone from the compiled graph.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../kernels/kernel_test_util.h"
#include "options/options_test_util.h"
#include "pass_test_util.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge::testing {
namespace {

Tensor int64s(std::vector<int64_t> v) {
  Tensor t(DType::kInt64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

// Exp -> ReduceSum -> Div over `axis`, with the ReduceMax / Sub in front when `stable`.
Graph softmax_graph(int64_t opset, int64_t axis, bool stable) {
  GraphBuilder b(opset);
  const int x = b.input("x");
  int e_in = x;
  if (stable) {
    const int m = b.node("ReduceMax", {x}, ints_attr("axes", {axis}));
    e_in = b.node("Sub", {x, m});
  }
  const int e = b.node("Exp", {e_in});
  // ReduceSum takes its axes as an input from opset 13, as an attribute before.
  const int s = opset >= 13 ? b.node("ReduceSum", {e, b.constant("axes", int64s({axis}))})
                            : b.node("ReduceSum", {e}, ints_attr("axes", {axis}));
  b.g.outputs = {b.node("Div", {e, s})};
  return std::move(b.g);
}

TEST(SoftmaxFusionPass, WrittenOutSoftmaxBecomesOneSoftmax) {
  for (bool stable : {false, true})
    for (int64_t axis : {-1, 1}) {
      Graph g = softmax_graph(13, axis, stable);
      const PassResult r = fuse_and_compare(g, "SoftmaxFusionPass", {random_tensor({2, 5, 7}, 3)}, 1e-6);
      EXPECT_EQ(r.applied, 1) << stable << axis;
      ASSERT_EQ(g.nodes.size(), 1u);
      EXPECT_EQ(g.nodes[0].op_type, "Softmax");
      EXPECT_EQ(g.nodes[0].attrs.get_int("axis", 0), axis < 0 ? 2 : axis);
      EXPECT_EQ(g.nodes[0].fused_from.size(), stable ? 5u : 3u);
    }
}

TEST(SoftmaxFusionPass, OldOpsetFusesOnlyTheLastAxis) {
  Graph last = softmax_graph(11, -1, true);
  EXPECT_EQ(fuse_and_compare(last, "SoftmaxFusionPass", {random_tensor({2, 5, 7}, 3)}, 1e-6).applied, 1);
  // Softmax-11 flattens from its axis: a middle-axis softmax has no one-node form there.
  Graph middle = softmax_graph(11, 1, true);
  EXPECT_EQ(fuse_and_compare(middle, "SoftmaxFusionPass", {random_tensor({2, 5, 7}, 3)}, 1e-6).applied, 0);
  EXPECT_EQ(count_ops(middle, "Exp"), 1);
}

TEST(SoftmaxFusionPass, ExpReadElsewhereStaysUnfused) {
  Graph g = softmax_graph(13, -1, false);
  g.outputs.push_back(g.nodes[0].outputs[0]);  // exp(x) is also a graph output
  EXPECT_EQ(fuse_and_compare(g, "SoftmaxFusionPass", {random_tensor({2, 5, 7}, 3)}, 1e-6).applied, 0);
}

struct AttentionShape {
  Shape q = {12, 8, 16};  // [heads, Lq, D], BERT's seq-first export after the head transpose
  int64_t lk = 8, dv = 16;
  bool scale_q = true;        // Div(Q, 4) before the product (torch's nn.MultiheadAttention)
  bool scale_scores = false;  // Mul(scores, 0.125) after it
  Shape mask;                 // empty: no mask Add
};

Graph attention_graph(const AttentionShape& s) {
  GraphBuilder b;
  int q = b.input("q");
  const int kt = b.input("kt");
  const int v = b.input("v");
  if (s.scale_q) q = b.node("Div", {q, b.constant("four", scalar(4.0f))});
  int scores = b.node("MatMul", {q, kt});
  if (s.scale_scores) scores = b.node("Mul", {b.constant("eighth", scalar(0.125f)), scores});
  if (!s.mask.empty()) scores = b.node("Add", {scores, b.constant("mask", random_tensor(s.mask, 5))});
  const int p = b.node("Softmax", {scores});  // opset 13: the last axis
  b.g.outputs = {b.node("MatMul", {p, v})};
  return std::move(b.g);
}

std::vector<Tensor> attention_inputs(const AttentionShape& s) {
  Shape kt = s.q, v = s.q;
  kt[kt.size() - 2] = s.q.back();
  kt.back() = s.lk;
  v[v.size() - 2] = s.lk;
  v.back() = s.dv;
  return {random_tensor(s.q, 1), random_tensor(kt, 2), random_tensor(v, 3)};
}

TEST(FlashAttentionScoreFusionPass, BertFormBecomesOneFusedAttention) {
  const AttentionShape s{};
  Graph g = attention_graph(s);
  const PassResult r = fuse_and_compare(g, "FlashAttentionScoreFusionPass", attention_inputs(s), 1e-5);
  EXPECT_EQ(r.matched, 1);
  EXPECT_EQ(r.applied, 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "FusedAttention");
  EXPECT_FLOAT_EQ(g.nodes[0].attrs.get_float("scale", 0), 0.25f);
  EXPECT_EQ(g.nodes[0].fused_from.size(), 4u);
}

TEST(FlashAttentionScoreFusionPass, ScaledScoresWithBroadcastMask) {
  for (const Shape& mask : {Shape{1, 1, 8, 6}, Shape{6}, Shape{2, 3, 8, 6}}) {
    AttentionShape s{{2, 3, 8, 16}, 6, 5, false, true, mask};
    Graph g = attention_graph(s);
    const PassResult r = fuse_and_compare(g, "FlashAttentionScoreFusionPass", attention_inputs(s), 1e-5);
    EXPECT_EQ(r.applied, 1);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].inputs.size(), 4u);
    EXPECT_FLOAT_EQ(g.nodes[0].attrs.get_float("scale", 0), 0.125f);
  }
}

TEST(FlashAttentionScoreFusionPass, NearMissesStayUnfused) {
  {  // the probabilities are read outside the pattern
    const AttentionShape s{};
    Graph g = attention_graph(s);
    g.outputs.push_back(g.nodes[g.nodes.size() - 2].outputs[0]);
    EXPECT_EQ(fuse_and_compare(g, "FlashAttentionScoreFusionPass", attention_inputs(s), 1e-5).applied, 0);
  }
  {  // a mask that broadcasts the scores bigger
    AttentionShape s{{3, 8, 16}, 8, 16, false, false, {2, 3, 8, 8}};
    Graph g = attention_graph(s);
    EXPECT_EQ(fuse_and_compare(g, "FlashAttentionScoreFusionPass", attention_inputs(s), 1e-5).applied, 0);
    EXPECT_EQ(count_ops(g, "Softmax"), 1);
  }
}

struct Compiled {
  std::unique_ptr<Executable> exe;
  nlohmann::json fusion;  // this compile's graph entry of fusion_result.json
};

// `g` compiled with AI Core kernels; fusion_switch_file's "GraphFusion" object is `graph_fusion`.
// The UB fusion of the vector ops left over (TbeEltwiseFusionPass) is off in both compiles, so
// node counts differ by the graph fusion alone (and no kernel is compiled online).
Compiled compile_graph(Graph g, const std::vector<Tensor>& inputs, const std::string& graph_fusion) {
  options::test::TempDir d;
  options::test::Flags flags;
  flags.push_back({"fusion_switch_file", d.file("fs.cfg", R"({"Switch":{"GraphFusion":)" + graph_fusion +
                                                              R"(,"UBFusion":{"TbeEltwiseFusionPass":"off"}}})")});
  auto r = options::test::build(flags, {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, {}, true, d.path());
  EXPECT_TRUE(r.options) << options::test::dump_errors(r);
  if (!r.options) return {};
  eval_graph(g, inputs, true);
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  CompileOptions co;
  co.num_threads = 2;
  co.config = openge::test::compile_config(*r.options);
  auto exe = compiler::compile(std::move(g), shapes, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  const auto j = nlohmann::json::parse(
      read_text(d.path() + "/work_path/FE/" + std::to_string(::getpid()) + "/fusion_result.json"), nullptr, false);
  EXPECT_TRUE(j.is_object() && j.size() == 1) << j.dump();
  return {std::move(*exe), j.is_object() && !j.empty() ? j.begin().value() : nlohmann::json()};
}

TEST(FlashAttentionScoreFusionPass, AiCoreKernelMatchesUnfusedAndSwitchesOff) {
  // Scale after the product and a broadcast mask: no other pass takes any of the five nodes.
  const AttentionShape s{{2, 3, 40, 16}, 24, 8, false, true, {1, 1, 40, 24}};
  Compiled fused = compile_graph(attention_graph(s), attention_inputs(s), "{}");
  Compiled plain = compile_graph(attention_graph(s), attention_inputs(s), R"({"FlashAttentionScoreFusionPass":"off"})");
  ASSERT_TRUE(fused.exe && plain.exe);
  int fused_nodes = 0;
  for (const CompiledNode& n : fused.exe->nodes())
    if (n.node.op_type == "FusedAttention") {
      ++fused_nodes;
      EXPECT_EQ(n.engine, Engine::kAiCore);
    }
  EXPECT_EQ(fused_nodes, 1);
  EXPECT_FALSE(plain.fusion["graph_fusion"].contains("FlashAttentionScoreFusionPass")) << plain.fusion.dump();
  const auto& entry = fused.fusion["graph_fusion"]["FlashAttentionScoreFusionPass"];
  ASSERT_TRUE(entry.is_object()) << fused.fusion.dump();
  EXPECT_EQ(entry["match_times"], "1");
  const int effects = std::stoi(entry["effect_times"].get<std::string>());
  EXPECT_EQ(plain.exe->graph().nodes.size() - fused.exe->graph().nodes.size(), static_cast<size_t>(4 * effects));
  const auto inputs = attention_inputs(s);
  auto a = fused.exe->run(inputs);
  auto b = plain.exe->run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(max_abs_diff((*a)[0], (*b)[0]), 1e-5);
}

// Compiled, the stable softmax form: one effect, 5 - 1 nodes gone; switched off, nothing fused
// and nothing listed; the same outputs either way.
TEST(SoftmaxFusionPass, CompiledCountsMatchTheGraphAndSwitchesOff) {
  const std::vector<Tensor> in{random_tensor({2, 5, 7}, 3)};
  Compiled fused = compile_graph(softmax_graph(13, -1, true), in, "{}");
  Compiled plain = compile_graph(softmax_graph(13, -1, true), in, R"({"SoftmaxFusionPass":"off"})");
  ASSERT_TRUE(fused.exe && plain.exe);
  EXPECT_FALSE(plain.fusion["graph_fusion"].contains("SoftmaxFusionPass")) << plain.fusion.dump();
  const auto& entry = fused.fusion["graph_fusion"]["SoftmaxFusionPass"];
  ASSERT_TRUE(entry.is_object()) << fused.fusion.dump();
  EXPECT_EQ(entry["match_times"], "1");
  EXPECT_EQ(entry["effect_times"], "1");
  EXPECT_EQ(plain.exe->graph().nodes.size() - fused.exe->graph().nodes.size(), 4u);
  auto a = fused.exe->run(in);
  auto b = plain.exe->run(in);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(max_abs_diff((*a)[0], (*b)[0]), 1e-6);
}

}  // namespace
}  // namespace openge::testing
