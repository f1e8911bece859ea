// The precedence rules between precision options, read from what the precision pass gave each
// node (its compute dtype, its implementation mode), not from the option layer's warnings. The
// options are built as a session builds them, the files are real files and the SoC profile is the
// shipped opp/ one; every case compares against the same graph without the outranking option, so
// a test fails when the outranking option stops acting or stops winning.
#include <gtest/gtest.h>

#include <map>

#include "options/options_test_util.h"
#include "precision/precision_pass.h"

namespace openge::precision {
namespace {

using options::test::Flags;
using options::test::TempDir;
constexpr DType f32 = DType::kFloat32, f16 = DType::kFloat16;

int value(Graph& g, const std::string& name) {
  const int v = g.add_value(name);
  g.values[static_cast<size_t>(v)].dtype = f32;
  g.values[static_cast<size_t>(v)].shape = {2, 8};
  return v;
}

void node(Graph& g, const std::string& name, const std::string& type, int in, int out) {
  Node n;
  n.name = name;
  n.op_type = type;
  n.inputs = {in};
  n.outputs = {out};
  g.values[static_cast<size_t>(out)].producer = static_cast<int>(g.nodes.size());
  g.nodes.push_back(std::move(n));
}

//   x -> Exp -> e -> Softmax -> s -> Relu -> r   (r is the output)
Graph chain() {
  Graph g;
  g.name = "precedence";
  g.opset = 17;
  const int x = value(g, "x"), e = value(g, "e"), s = value(g, "s"), r = value(g, "r");
  g.inputs = {x};
  node(g, "exp", "Exp", x, e);
  node(g, "softmax", "Softmax", e, s);
  node(g, "relu", "Relu", s, r);
  g.outputs = {r};
  return g;
}

struct Given {
  std::map<std::string, std::pair<DType, DType>> dtypes;  // node -> (input, output)
  std::map<std::string, std::string> impl;                // node -> implementation mode
};

Given run(const Flags& flags) {
  Given out;
  auto report = options::test::build(flags);
  EXPECT_TRUE(report.errors.empty()) << options::test::dump_errors(report);
  if (!report.options) return out;
  auto setup = load_precision_setup(*report.options);
  EXPECT_TRUE(setup.ok()) << setup.status().message();
  if (!setup.ok()) return out;
  Graph g = chain();
  auto decisions = apply_precision(g, *setup);
  EXPECT_TRUE(decisions.ok()) << decisions.status().message();
  if (!decisions.ok()) return out;
  for (const PrecisionDecision& d : *decisions) {
    out.dtypes[d.node_name] = {d.input_dtype, d.output_dtype};
    out.impl[d.node_name] = d.impl_mode;
  }
  for (const Node& n : g.nodes)  // the node itself carries the mode its kernel reads
    if (out.impl.count(n.name)) EXPECT_EQ(n.impl_mode, out.impl[n.name]) << n.name;
  return out;
}

const Flags kFp16 = {{"soc_version", "Ascend910B"},
                     {"graph_run_mode", "0"},
                     {"precision_mode", "force_fp16"}};  // force_fp16: online inference only

Flags with(Flags flags, const std::string& key, const std::string& value) {
  flags.push_back({key, value});
  return flags;
}

// customize_dtypes sets individual operators; the rest of the model follows precision_mode.
TEST(PrecisionPrecedence, OPT_customize_dtypes_1_OutranksPrecisionModeForItsNodes) {
  TempDir d;
  const Given mode_only = run(kFp16);
  ASSERT_EQ(mode_only.dtypes.at("relu"), std::make_pair(f16, f16)) << "force_fp16 must lower Relu";
  ASSERT_EQ(mode_only.dtypes.at("exp"), std::make_pair(f16, f16));
  const std::string cfg = d.file("custom.cfg",
                                 "relu::InputDtype:float32,OutputDtype:float32\n"
                                 "OpType::Exp:InputDtype:float32,OutputDtype:float32\n");
  const Given custom = run(with(kFp16, "customize_dtypes", cfg));
  EXPECT_EQ(custom.dtypes.at("relu"), std::make_pair(f32, f32));           // by name
  EXPECT_EQ(custom.dtypes.at("exp"), std::make_pair(f32, f32));            // by type
  EXPECT_EQ(custom.dtypes.at("softmax"), mode_only.dtypes.at("softmax"));  // no rule: precision_mode's
}

// must_keep_origin_dtype outranks customize_dtypes: the file then changes nothing.
TEST(PrecisionPrecedence, OPT_customize_dtypes_2_NoEffectUnderMustKeepOriginDtype) {
  TempDir d;
  const std::string cfg = d.file("custom.cfg", "relu::InputDtype:float16,OutputDtype:float16\n");
  const Flags keep = {{"soc_version", "Ascend910B"}, {"precision_mode", "must_keep_origin_dtype"}};
  const Given given = run(with(keep, "customize_dtypes", cfg));
  EXPECT_EQ(given.dtypes.at("relu"), std::make_pair(f32, f32));
  // The same file under a mode that allows it does act (the file is good).
  const Flags allow = {{"soc_version", "Ascend910B"}, {"precision_mode", "force_fp32"}};
  EXPECT_EQ(run(with(allow, "customize_dtypes", cfg)).dtypes.at("relu"), std::make_pair(f16, f16));
}

// op_precision_mode outranks op_select_implmode + optypelist_for_implmode: with all three set,
// only the ini's modes reach the nodes.
TEST(PrecisionPrecedence, OPT_op_precision_mode_8_OutranksImplmodeOptionsOnEveryNode) {
  TempDir d;
  const Flags keep = {{"soc_version", "Ascend910B"}, {"precision_mode", "must_keep_origin_dtype"}};
  const Flags select =
      with(with(keep, "op_select_implmode", "high_performance"), "optypelist_for_implmode", "SoftmaxV2");
  const Given select_only = run(select);
  ASSERT_EQ(select_only.impl.at("softmax"), "high_performance") << "op_select_implmode must reach SoftmaxV2";
  ASSERT_EQ(select_only.impl.at("exp"), "");  // not listed

  const std::string ini = d.file("op_precision.ini", "[ByOpType]\nExp=high_precision\n");
  const Given all_three = run(with(select, "op_precision_mode", ini));
  EXPECT_EQ(all_three.impl.at("exp"), "high_precision");  // the ini's
  EXPECT_EQ(all_three.impl.at("softmax"), "");            // op_select_implmode ignored
  EXPECT_EQ(all_three.impl.at("relu"), "");
}

// [ByNodeName] outranks [ByOpType] through the real ini parser and the real profile.
TEST(PrecisionPrecedence, OPT_op_precision_mode_2_NodeNameOutranksOpTypeFromTheIniFile) {
  TempDir d;
  const Flags keep = {{"soc_version", "Ascend910B"}, {"precision_mode", "must_keep_origin_dtype"}};
  const std::string ini = d.file("op_precision.ini",
                                 "[ByOpType]\nSoftmaxV2=high_performance\nExp=high_performance\n"
                                 "[ByNodeName]\nsoftmax=high_precision\n");
  const Given given = run(with(keep, "op_precision_mode", ini));
  EXPECT_EQ(given.impl.at("softmax"), "high_precision");
  EXPECT_EQ(given.impl.at("exp"), "high_performance");
}

}  // namespace
}  // namespace openge::precision
