// fusion_switch_file turns the named passes on and off (OPT-fusion_switch_file-3..8), and every
// compile records the passes that acted in fusion_result.json (ENV-31/32,
// OPT-fusion_switch_file-9). The model is models/demo.onnx, whose 13 nodes the expectations
// below are counted from by hand: conv1 -> bn1 -> relu1 -> pool1 -> conv2 -> relu2 -> conv3 ->
// residual_add(conv3, pool1) -> relu3 -> gap -> flatten -> fc -> softmax. All passes on:
// ConvBatchnormFusionPass folds bn1 (1), TbeConvDoubleInFusionPass takes residual_add into conv3
// (1), TbeConvElemwiseFusionPass takes relu1, relu2 and relu3 (3).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frontend/onnx_loader.h"
#include "logging/log.h"
#include "options/options_test_util.h"
#include "passes/pass_registry.h"
#include "passes/pass_selection.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge::options::test {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string kDemoModel = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

std::shared_ptr<const OptionSet> options_with(const TempDir& d, const Flags& flags, const EnvMap& env = {}) {
  BuildReport r = build(flags, env, {}, /*check_files=*/true, d.path());
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  if (!r.options) return nullptr;
  return std::make_shared<const OptionSet>(std::move(*r.options));
}

std::shared_ptr<const OptionSet> with_switch_file(const TempDir& d, const std::string& json, const EnvMap& env = {}) {
  return options_with(d, {{"fusion_switch_file", d.file("inputs/fusion_switch.cfg", json)}}, env);
}

// The demo model compiled, and what the compile's passes did (its report); nullopt on failure.
std::optional<compiler::Compilation> compile_demo(std::shared_ptr<const OptionSet> config) {
  auto g = load_onnx(kDemoModel);
  EXPECT_TRUE(g.ok()) << g.status().message();
  if (!g.ok()) return {};
  std::vector<Shape> shapes;
  for (int in : g->inputs) {
    Shape s = *g->values[static_cast<size_t>(in)].shape;
    for (auto& dim : s) dim = dim < 0 ? 1 : dim;
    shapes.push_back(s);
  }
  CompileOptions co;
  co.num_threads = 1;
  co.config = openge::test::compile_config(config);
  auto compiled = compiler::compile_with_report(std::move(*g), shapes, co);
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  if (!compiled.ok()) return std::nullopt;
  return std::move(compiled.value());
}

// Nodes of the compiled graph with this (default-domain) op.
int count_op(const compiler::Compilation& compiled, const std::string& op) {
  int n = 0;
  for (const Node& node : compiled.executable->graph().nodes) n += node.op_type == op && node.domain.empty();
  return n;
}

bool ran(const compiler::Compilation& compiled, const std::string& pass) {
  for (const PassStat& p : compiled.report.pass_stats)
    if (p.name == pass) return true;
  return false;
}

Json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
}

std::string work_file(const TempDir& d) {
  return d.path() + "/work_path/FE/" + std::to_string(::getpid()) + "/fusion_result.json";
}

TEST(FusionSwitch, OPT_fusion_switch_file_3_EveryRuleOnByDefault) {
  TempDir d;
  auto exe = compile_demo(options_with(d, {}));
  ASSERT_TRUE(exe);
  EXPECT_EQ(count_op(*exe, "BatchNormalization"), 0);
  EXPECT_EQ(count_op(*exe, "Relu"), 0);
  EXPECT_EQ(count_op(*exe, "Add"), 0);
}

TEST(FusionSwitch, OPT_fusion_switch_file_4_NamedRuleOff) {
  TempDir d;
  auto exe = compile_demo(with_switch_file(d, R"({"Switch":{"GraphFusion":{"ConvBatchnormFusionPass":"off"}}})"));
  ASSERT_TRUE(exe);
  EXPECT_FALSE(ran(*exe, "ConvBatchnormFusionPass"));
  // bn1 is not folded into conv1: BatchNormBnInferFusionPass writes it as a per-channel Mul and
  // Add, and relu1, which follows it and not a Conv, joins them in one FusedElementwise; relu2
  // and relu3 are fused into their convolutions.
  EXPECT_TRUE(ran(*exe, "BatchNormBnInferFusionPass"));
  EXPECT_EQ(count_op(*exe, "BatchNormalization"), 0);
  EXPECT_EQ(count_op(*exe, "Relu"), 0);
  EXPECT_EQ(count_op(*exe, "Add"), 0);
  int fused_elementwise = 0;
  for (const Node& node : exe->executable->graph().nodes) fused_elementwise += node.op_type == "FusedElementwise";
  EXPECT_EQ(fused_elementwise, 1);
}

TEST(FusionSwitch, OPT_fusion_switch_file_6_7_AllOffKeepsTheLayoutPass) {
  TempDir d;
  auto exe = compile_demo(with_switch_file(d, R"({"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off"}}})"));
  ASSERT_TRUE(exe);
  EXPECT_EQ(count_op(*exe, "BatchNormalization"), 1);
  EXPECT_EQ(count_op(*exe, "Relu"), 3);
  EXPECT_EQ(count_op(*exe, "Add"), 1);
  for (const Pass& p : all_passes())
    EXPECT_EQ(ran(*exe, std::string(p.name)), !fusion_switch_controls(p.control) && on_by_default(p.control)) << p.name;
}

TEST(FusionSwitch, OPT_fusion_switch_file_8_AllOffWithOneRuleOn) {
  TempDir d;
  auto exe = compile_demo(with_switch_file(
      d, R"({"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off","TbeConvElemwiseFusionPass":"on"}}})"));
  ASSERT_TRUE(exe);
  EXPECT_EQ(count_op(*exe, "BatchNormalization"), 1);
  // Only conv2 -> relu2 has a Relu right after a Conv: relu1 follows bn1, relu3 the Add.
  EXPECT_EQ(count_op(*exe, "Relu"), 2);
  EXPECT_EQ(count_op(*exe, "Add"), 1);
}

TEST(FusionSwitch, OPT_fusion_switch_file_4_RuleUnderTheWrongKindIsIgnored) {
  TempDir d;
  auto config = with_switch_file(d, R"({"Switch":{"UBFusion":{"ConvBatchnormFusionPass":"off","Bogus":"off"}}})");
  ASSERT_TRUE(config);
  auto choices = passes::choose_passes(all_passes(), config.get());
  ASSERT_TRUE(choices.ok()) << choices.status().message();
  for (const auto& c : *choices) EXPECT_EQ(c.on, on_by_default(c.pass->control)) << c.pass->name << ": " << c.reason;
}

TEST(FusionSwitch, OPT_fusion_switch_file_6_FusedAndUnfusedOutputsAgree) {
  TempDir d;
  auto fused = compile_demo(options_with(d, {}));
  auto plain =
      compile_demo(with_switch_file(d, R"({"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off"}}})"));
  ASSERT_TRUE(fused && plain);
  std::vector<Tensor> inputs;
  for (int in : fused->executable->graph().inputs) {
    Tensor t(DType::kFloat32, *fused->executable->graph().values[static_cast<size_t>(in)].shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
    inputs.push_back(std::move(t));
  }
  auto a = fused->executable->run(inputs);
  auto b = plain->executable->run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t o = 0; o < a->size(); ++o) {
    ASSERT_EQ((*a)[o].numel(), (*b)[o].numel());
    for (int64_t i = 0; i < (*a)[o].numel(); ++i)
      EXPECT_NEAR((*a)[o].data<float>()[i], (*b)[o].data<float>()[i], 1e-4) << "output " << o << " element " << i;
  }
}

TEST(FusionSwitch, OPT_fusion_switch_file_4_SwitchedOffPassIsLogged) {
  TempDir d;
  auto config =
      options_with(d,
                   {{"fusion_switch_file",
                     d.file("inputs/fs.cfg", R"({"Switch":{"GraphFusion":{"ConvBatchnormFusionPass":"off"}}})")}},
                   {{"ASCEND_PROCESS_LOG_PATH", d.path() + "/log"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}});
  ASSERT_TRUE(config);
  logging::configure(*config);
  auto exe = compile_demo(config);
  const std::string log = logging::current_log_file();
  logging::unconfigure();
  ASSERT_TRUE(exe);
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("[INFO] FE("), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("fusion pass ConvBatchnormFusionPass is off"), std::string::npos) << ss.str();
}

// The counts in the file are what the compiled graph shows: each effect is one original node
// gone from the graph.
TEST(FusionResult, ENV_31_CountsMatchTheCompiledGraph) {
  TempDir d;
  auto exe = compile_demo(options_with(d, {}, {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}));
  ASSERT_TRUE(exe);
  const Json j = read_json(work_file(d));
  ASSERT_TRUE(j.is_object() && j.size() == 1) << j.dump();
  const std::string key = j.begin().key();
  EXPECT_EQ(key.rfind("session_and_graph_id_0_", 0), 0u) << key;
  const Json& graph = j.begin().value();
  ASSERT_TRUE(graph.contains("graph_fusion") && graph.contains("ub_fusion")) << graph.dump();
  const Json& bn = graph["graph_fusion"]["ConvBatchnormFusionPass"];
  EXPECT_EQ(bn["match_times"], "1");
  EXPECT_EQ(bn["effect_times"], std::to_string(1 - count_op(*exe, "BatchNormalization")));
  const Json& relu = graph["ub_fusion"]["TbeConvElemwiseFusionPass"];
  EXPECT_EQ(relu["effect_times"], std::to_string(3 - count_op(*exe, "Relu")));
  EXPECT_EQ(relu["repository_hit_times"], "0");
  EXPECT_EQ(graph["ub_fusion"]["TbeConvDoubleInFusionPass"]["effect_times"], std::to_string(1 - count_op(*exe, "Add")));
  // Counters are strings, as CANN writes them; graph passes have no repository_hit_times.
  EXPECT_FALSE(bn.contains("repository_hit_times"));
  // A pass that found nothing is not listed (the demo has no MatMul).
  EXPECT_FALSE(graph["graph_fusion"].contains("MatMulBiasAddFusionPass"));
}

TEST(FusionResult, OPT_fusion_switch_file_9_SwitchedOffPassesAreNotListed) {
  TempDir d;
  auto exe = compile_demo(with_switch_file(d, R"({"Switch":{"GraphFusion":{"ConvBatchnormFusionPass":"off"}}})",
                                           {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}));
  ASSERT_TRUE(exe);
  const Json j = read_json(work_file(d));
  ASSERT_EQ(j.size(), 1u) << j.dump();
  EXPECT_FALSE(j.begin().value()["graph_fusion"].contains("ConvBatchnormFusionPass")) << j.dump();
  EXPECT_EQ(j.begin().value()["ub_fusion"]["TbeConvElemwiseFusionPass"]["effect_times"], "2");
}

TEST(FusionResult, ENV_32_WorkingDirectoryWithoutWorkPathAndOneKeyPerGraph) {
  TempDir d;
  auto config = options_with(d, {});
  auto first = compile_demo(config);
  auto second = compile_demo(config);
  ASSERT_TRUE(first && second);
  const Json j = read_json(d.path() + "/fusion_result.json");
  ASSERT_EQ(j.size(), 2u) << j.dump();
  for (const auto& [key, graph] : j.items()) {
    EXPECT_EQ(key.rfind("session_and_graph_id_0_", 0), 0u) << key;
    EXPECT_EQ(graph["graph_fusion"]["ConvBatchnormFusionPass"]["effect_times"], "1");
  }
  EXPECT_FALSE(fs::exists(d.path() + "/FE"));
}

}  // namespace
}  // namespace openge::options::test
