// The transformer fusions: LayerNormONNXFusionPass (the nine nodes PyTorch exports for
// nn.LayerNorm below opset 17) and GeluONNXFusionPass (the five-node erf GELU), each on the
// pattern as the exported BERT-base has it, on its variants, and on near misses that must stay
// unfused; the fused graph computes what the unfused graph computes (reference engine).
// Every pass can be switched off by name in fusion_switch_file (OPT-fusion_switch_file-4).
#include "../kernels/kernel_test_util.h"
#include "ir/attribute_values.h"
#include "options/options_test_util.h"
#include "pass_test_util.h"
#include "passes/pass_registry.h"
#include "passes/pass_selection.h"

namespace openge::testing {
namespace {

struct LayerNormShape {
  std::vector<int64_t> axes = {-1};
  Shape gamma = {16};  // empty: no Mul by gamma and no Add of beta
  bool gamma_first = false;
  bool expose_sub = false;  // the centred value is also a graph output
};

// x [2, 5, 16] -> the decomposition of LayerNorm over `axes`, as torch.onnx exports it.
Graph layer_norm_graph(const LayerNormShape& s) {
  GraphBuilder b;
  const int x = b.input("x");
  const int mean = b.node("ReduceMean", {x}, ints_attr("axes", s.axes));
  const int d = b.node("Sub", {x, mean});
  const int sq = b.node("Pow", {d, b.constant("two", scalar(2.0f))});
  const int var = b.node("ReduceMean", {sq}, ints_attr("axes", s.axes));
  const int ve = b.node("Add", {var, b.constant("eps", scalar(1e-5f))});
  const int root = b.node("Sqrt", {ve});
  int y = b.node("Div", {d, root});
  if (!s.gamma.empty()) {
    const int gamma = b.constant("gamma", random_tensor(s.gamma, 11));
    y = s.gamma_first ? b.node("Mul", {gamma, y}) : b.node("Mul", {y, gamma});
    y = b.node("Add", {y, b.constant("beta", random_tensor(s.gamma, 12))});
  }
  b.g.outputs = {y};
  if (s.expose_sub) b.g.outputs.push_back(d);
  return std::move(b.g);
}

// Runs the pass on `s`'s graph; checks the outputs against the unfused graph; returns the result.
PassResult fuse_and_compare(Graph& g, const char* pass) {
  return testing::fuse_and_compare(g, pass, {random_tensor({2, 5, 16}, 9)});
}

TEST(LayerNormONNXFusionPass, LastAxisBecomesOneLayerNormalization) {
  for (bool gamma_first : {false, true}) {
    Graph g = layer_norm_graph({{-1}, {16}, gamma_first});
    const PassResult r = fuse_and_compare(g, "LayerNormONNXFusionPass");
    EXPECT_EQ(r.matched, 1);
    EXPECT_EQ(r.applied, 1);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "LayerNormalization");
    EXPECT_EQ(g.nodes[0].attrs.get_int("axis", 0), 2);
    EXPECT_FLOAT_EQ(g.nodes[0].attrs.get_float("epsilon", 0), 1e-5f);
    EXPECT_EQ(g.nodes[0].fused_from.size(), 9u);  // the nine nodes it stands for
  }
}

TEST(LayerNormONNXFusionPass, TwoTrailingAxesAndGammaWithLeadingOnes) {
  Graph g = layer_norm_graph({{-2, -1}, {1, 5, 16}});
  const PassResult r = fuse_and_compare(g, "LayerNormONNXFusionPass");
  EXPECT_EQ(r.applied, 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attrs.get_int("axis", 0), 1);
  // The output keeps x's shape.
  EXPECT_EQ(*g.values[static_cast<size_t>(g.outputs[0])].shape, (Shape{2, 5, 16}));
}

TEST(LayerNormONNXFusionPass, WithoutAffineUsesUnitScale) {
  Graph g = layer_norm_graph({{-1}, {}});
  EXPECT_EQ(fuse_and_compare(g, "LayerNormONNXFusionPass").applied, 1);
  EXPECT_EQ(count_ops(g, "LayerNormalization"), 1);
  EXPECT_EQ(g.nodes.size(), 1u);
}

TEST(LayerNormONNXFusionPass, NearMissesStayUnfused) {
  {  // the mean over a middle axis is not a layer norm over the last axes
    Graph g = layer_norm_graph({{1}, {16}});
    EXPECT_EQ(fuse_and_compare(g, "LayerNormONNXFusionPass").applied, 0);
    EXPECT_EQ(count_ops(g, "ReduceMean"), 2);
  }
  {  // the centred value is read outside the pattern
    Graph g = layer_norm_graph({{-1}, {16}, false, true});
    EXPECT_EQ(fuse_and_compare(g, "LayerNormONNXFusionPass").applied, 0);
    EXPECT_EQ(count_ops(g, "Sub"), 1);
  }
  {  // a gamma that would broadcast y to a bigger shape is left to its Mul
    Graph g = layer_norm_graph({{-1}, {3, 1, 1, 16}});
    const std::vector<Tensor> in{random_tensor({2, 5, 16}, 9)};
    eval_graph(g, in, true);
    run_pass(g, "LayerNormONNXFusionPass");
    EXPECT_EQ(count_ops(g, "Mul"), 1);
    EXPECT_EQ(*g.values[static_cast<size_t>(g.outputs[0])].shape, (Shape{3, 2, 5, 16}));
  }
}

// x -> Gelu with no MatMul before it: the standalone Gelu node.
TEST(GeluONNXFusionPass, ErfFormBecomesOneGelu) {
  for (int variant : {0, 1}) {
    GraphBuilder b;
    const int x = b.input("x");
    const int d = b.node("Div", {x, b.constant("sqrt2", scalar(1.4142135f))});
    const int e = b.node("Erf", {d});
    const int one_plus = b.node("Add", {b.constant("one", scalar(1.0f)), e});
    int y;
    if (variant == 0) {
      y = b.node("Mul", {b.node("Mul", {x, one_plus}), b.constant("half", scalar(0.5f))});
    } else {
      y = b.node("Mul", {b.node("Mul", {x, b.constant("half", scalar(0.5f))}), one_plus});
    }
    b.g.outputs = {y};
    const PassResult r = fuse_and_compare(b.g, "GeluONNXFusionPass");
    EXPECT_EQ(r.applied, 1) << variant;
    ASSERT_EQ(b.g.nodes.size(), 1u) << variant;
    EXPECT_EQ(b.g.nodes[0].op_type, "Gelu");
    // Gelu(1) = 0.5 * (1 + erf(1/sqrt 2)) = 0.841344746 (by hand: erf(0.70710678) = 0.682689492).
    Tensor one(DType::kFloat32, {1});
    one.data<float>()[0] = 1.0f;
    const auto y1 = eval_graph(b.g, {one});
    ASSERT_EQ(y1.size(), 1u);
    EXPECT_NEAR(y1[0].data<float>()[0], 0.841344746f, 1e-6f);
  }
}

// approximate = "tanh" (ONNX Gelu, opset 20): x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), and no
// MatMul takes it as its (erf) activation.
TEST(GeluONNXFusionPass, TanhFormGeluIsComputedAsSuchAndNotAbsorbed) {
  GraphBuilder b;
  const int x = b.input("x");
  Tensor w(DType::kFloat32, {1, 1});
  w.data<float>()[0] = 1.0f;
  const int m = b.node("MatMul", {x, b.constant("w", w)});
  Node gelu;
  gelu.op_type = "Gelu";
  gelu.domain = "openge";
  gelu.name = "gelu_tanh";
  gelu.attrs.set("approximate", string_attr("tanh"));
  b.g.outputs = {b.node(gelu, {m})};
  Tensor one(DType::kFloat32, {1, 1});
  one.data<float>()[0] = 1.0f;
  // By hand: u = 0.7978845608 * 1.044715 = 0.8335620; tanh(u) = 0.6823840; (1 + 0.6823840) / 2.
  const auto y1 = eval_graph(b.g, {one}, true);
  ASSERT_EQ(y1.size(), 1u);
  EXPECT_NEAR(y1[0].data<float>()[0], 0.841191991f, 1e-6f);
  EXPECT_EQ(run_pass(b.g, "ATbeMatMulElemwiseFusionPass").applied, 0);
  EXPECT_EQ(count_ops(b.g, "Gelu"), 1);
}

TEST(GeluONNXFusionPass, WrongConstantStaysUnfused) {
  GraphBuilder b;
  const int x = b.input("x");
  const int d = b.node("Div", {x, b.constant("not_sqrt2", scalar(1.5f))});
  const int one_plus = b.node("Add", {b.node("Erf", {d}), b.constant("one", scalar(1.0f))});
  b.g.outputs = {b.node("Mul", {b.node("Mul", {x, one_plus}), b.constant("half", scalar(0.5f))})};
  EXPECT_EQ(fuse_and_compare(b.g, "GeluONNXFusionPass").applied, 0);
  EXPECT_EQ(count_ops(b.g, "Erf"), 1);
}

// Each switchable pass, named "off" in fusion_switch_file under its kind, is the only one off.
TEST(FusionSwitch, OPT_fusion_switch_file_4_EveryPassSwitchesOffByName) {
  options::test::TempDir d;
  for (const Pass& p : all_passes()) {
    const std::string group = p.kind == "ub" ? "UBFusion" : "GraphFusion";
    const std::string file = d.file("fs_" + std::string(p.name) + ".cfg",
                                    R"({"Switch":{")" + group + R"(":{")" + std::string(p.name) + R"(":"off"}}})");
    auto r = options::test::build({{"fusion_switch_file", file}}, {}, {}, true, d.path());
    ASSERT_TRUE(r.options) << options::test::dump_errors(r);
    auto choices = passes::choose_passes(all_passes(), &*r.options);
    ASSERT_TRUE(choices.ok()) << choices.status().message();
    for (const auto& c : *choices) {
      // The named pass goes off when fusion_switch_file decides it; every other pass keeps its default.
      const bool expect_on = c.pass == &p && fusion_switch_controls(p.control) ? false : on_by_default(c.pass->control);
      EXPECT_EQ(c.on, expect_on) << p.name << " off; " << c.pass->name << ": " << c.reason;
    }
  }
}

}  // namespace
}  // namespace openge::testing
