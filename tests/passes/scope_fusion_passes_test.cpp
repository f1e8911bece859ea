// The scope fusion passes (OPT-enable_scope_fusion_passes-1..4): ScopeLayerNormPass (General,
// always on) and ScopeInstanceNormPass (Non-General, on only when enable_scope_fusion_passes
// names it) on the tf.nn.moments + tf.nn.batch_normalization form tf2onnx exports; the fused
// graph computes what the unfused one computes (reference engine); fusion_switch_file cannot turn
// them off; an unknown name in the option is warned about with the closest names; a compile
// counts them in fusion_result.json, one effect per pattern, eleven nodes gone each.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../kernels/kernel_test_util.h"
#include "logging/log.h"
#include "options/options_test_util.h"
#include "pass_test_util.h"
#include "passes/pass_registry.h"
#include "passes/pass_selection.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge::testing {
namespace {

struct MomentsShape {
  Shape x = {2, 5, 16};
  std::vector<int64_t> axes = {-1};
  Shape gamma = {16};
  bool pow_square = false;  // Pow(d, 2) instead of Mul(d, d)
};

// TensorFlow's layer norm as tf2onnx exports it: moments, then batch_normalization.
Graph moments_graph(const MomentsShape& s) {
  GraphBuilder b;
  const int x = b.input("x");
  const int mean = b.node("ReduceMean", {x}, ints_attr("axes", s.axes));
  const int d = b.node("Sub", {x, mean});
  const int sq = s.pow_square ? b.node("Pow", {d, b.constant("two", scalar(2.0f))}) : b.node("Mul", {d, d});
  const int var = b.node("ReduceMean", {sq}, ints_attr("axes", s.axes));
  const int ve = b.node("Add", {var, b.constant("eps", scalar(1e-3f))});
  const int rstd = b.node("Reciprocal", {b.node("Sqrt", {ve})});
  const int inv = b.node("Mul", {rstd, b.constant("gamma", random_tensor(s.gamma, 21))});
  const int xs = b.node("Mul", {x, inv});
  const int ms = b.node("Mul", {mean, inv});
  const int off = b.node("Sub", {b.constant("beta", random_tensor(s.gamma, 22)), ms});
  b.g.outputs = {b.node("Add", {xs, off})};
  return std::move(b.g);
}

TEST(ScopeLayerNormPass, TfMomentsFormBecomesOneLayerNormalization) {
  for (bool pow_square : {false, true}) {
    Graph g = moments_graph({{2, 5, 16}, {-1}, {16}, pow_square});
    const PassResult r = fuse_and_compare(g, "ScopeLayerNormPass", {random_tensor({2, 5, 16}, 9)});
    EXPECT_EQ(r.matched, 1);
    EXPECT_EQ(r.applied, 1);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "LayerNormalization");
    EXPECT_EQ(g.nodes[0].attrs.get_int("axis", 0), 2);
    EXPECT_FLOAT_EQ(g.nodes[0].attrs.get_float("epsilon", 0), 1e-3f);
    EXPECT_EQ(g.nodes[0].fused_from.size(), 12u);
  }
}

TEST(ScopeLayerNormPass, MomentsOverNonTrailingAxesStayUnfused) {
  Graph g = moments_graph({{2, 5, 16}, {1}, {16}});
  const PassResult r = fuse_and_compare(g, "ScopeLayerNormPass", {random_tensor({2, 5, 16}, 9)});
  EXPECT_EQ(r.matched, 1);  // the form is there, but it is no layer norm
  EXPECT_EQ(r.applied, 0);
  EXPECT_EQ(g.nodes.size(), 12u);
}

TEST(ScopeInstanceNormPass, SpatialMomentsBecomeOneInstanceNormalization) {
  Graph g = moments_graph({{2, 3, 4, 5}, {2, 3}, {3, 1, 1}});
  const PassResult r = fuse_and_compare(g, "ScopeInstanceNormPass", {random_tensor({2, 3, 4, 5}, 9)});
  EXPECT_EQ(r.applied, 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "InstanceNormalization");
  EXPECT_EQ(*g.values[static_cast<size_t>(g.nodes[0].inputs[1])].shape, (Shape{3}));
  // A layer norm is not an instance norm.
  Graph ln = moments_graph({});
  EXPECT_EQ(fuse_and_compare(ln, "ScopeInstanceNormPass", {random_tensor({2, 5, 16}, 9)}).applied, 0);
}

std::vector<passes::PassChoice> choices_for(const options::test::Flags& flags, const options::test::TempDir& d) {
  auto r = options::test::build(flags, {}, {}, true, d.path());
  EXPECT_TRUE(r.options) << options::test::dump_errors(r);
  if (!r.options) return {};
  auto c = passes::choose_passes(all_passes(), &*r.options);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : std::vector<passes::PassChoice>{};
}

bool is_on(const std::vector<passes::PassChoice>& choices, std::string_view pass) {
  for (const auto& c : choices)
    if (c.pass->name == pass) return c.on;
  ADD_FAILURE() << pass << " is not a pass";
  return false;
}

TEST(ScopeFusion, OPT_enable_scope_fusion_passes_3_GeneralAlwaysOn) {
  options::test::TempDir d;
  const std::string off = d.file("fs.cfg", R"({"Switch":{"GraphFusion":{"ALL":"off","ScopeLayerNormPass":"off"}}})");
  EXPECT_TRUE(is_on(choices_for({}, d), "ScopeLayerNormPass"));
  EXPECT_TRUE(is_on(choices_for({{"fusion_switch_file", off}}, d), "ScopeLayerNormPass"));
}

TEST(ScopeFusion, OPT_enable_scope_fusion_passes_4_NonGeneralOnlyWhenNamed) {
  options::test::TempDir d;
  EXPECT_FALSE(is_on(choices_for({}, d), "ScopeInstanceNormPass"));
  EXPECT_TRUE(is_on(choices_for({{"enable_scope_fusion_passes", "ScopeLayerNormPass, ScopeInstanceNormPass"}}, d),
                    "ScopeInstanceNormPass"));
  // fusion_switch_file does not reach scope passes, either way.
  const std::string on = d.file("on.cfg", R"({"Switch":{"GraphFusion":{"ScopeInstanceNormPass":"on"}}})");
  EXPECT_FALSE(is_on(choices_for({{"fusion_switch_file", on}}, d), "ScopeInstanceNormPass"));
  const std::string off = d.file("off.cfg", R"({"Switch":{"GraphFusion":{"ALL":"off"}}})");
  EXPECT_TRUE(
      is_on(choices_for({{"fusion_switch_file", off}, {"enable_scope_fusion_passes", "ScopeInstanceNormPass"}}, d),
            "ScopeInstanceNormPass"));
}

TEST(ScopeFusion, OPT_enable_scope_fusion_passes_1_UnknownNameWarnsWithDidYouMean) {
  options::test::TempDir d;
  auto r = options::test::build({{"enable_scope_fusion_passes", "ScopeInstanceNormPas,SoftmaxFusionPass"}},
                                {{"ASCEND_PROCESS_LOG_PATH", d.path() + "/log"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}}, {},
                                true, d.path());
  ASSERT_TRUE(r.options) << options::test::dump_errors(r);
  logging::configure(*r.options);
  auto c = passes::choose_passes(all_passes(), &*r.options);
  const std::string log = logging::current_log_file();
  logging::unconfigure();
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (const auto& choice : *c)
    if (choice.pass->name == "ScopeInstanceNormPass") {
      EXPECT_FALSE(choice.on);
    }
  const std::string text = read_text(log);
  EXPECT_NE(text.find("ScopeInstanceNormPas names no scope fusion pass"), std::string::npos) << text;
  EXPECT_NE(text.find("did you mean 'ScopeInstanceNormPass'"), std::string::npos) << text;
  EXPECT_NE(text.find("SoftmaxFusionPass names no scope fusion pass of this engine; it is ignored (it is a graph "
                      "fusion pass: fusion_switch_file turns it on and off)"),
            std::string::npos)
      << text;
}

// A compiled TF layer norm: fusion_result.json counts one match and one effect of
// ScopeLayerNormPass, and the compiled graph has the pattern's 12 nodes (by hand) less 1.
TEST(ScopeFusion, ENV_31_CountedInFusionResult) {
  options::test::TempDir d;
  Graph g = moments_graph({});
  const std::vector<Tensor> in{random_tensor({2, 5, 16}, 9)};
  const auto expected = eval_graph(g, in, true);
  auto r = options::test::build({}, {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, {}, true, d.path());
  ASSERT_TRUE(r.options) << options::test::dump_errors(r);
  CompileOptions co;
  co.num_threads = 1;
  co.config = openge::test::compile_config(*r.options);
  const size_t nodes_before = g.nodes.size();
  auto exe = compiler::compile(std::move(g), {{2, 5, 16}}, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const auto j = nlohmann::json::parse(
      read_text(d.path() + "/work_path/FE/" + std::to_string(::getpid()) + "/fusion_result.json"), nullptr, false);
  ASSERT_TRUE(j.is_object() && j.size() == 1) << j.dump();
  const auto& entry = j.begin().value()["graph_fusion"]["ScopeLayerNormPass"];
  EXPECT_EQ(entry["match_times"], "1") << j.dump();
  EXPECT_EQ(entry["effect_times"], "1") << j.dump();
  EXPECT_EQ(nodes_before - (*exe)->graph().nodes.size(), 11u);
  auto out = (*exe)->run(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_LT(max_abs_diff((*out)[0], expected[0]), 2e-5);
}

}  // namespace
}  // namespace openge::testing
