// The precision pass against page 002's rules. One graph holds a cube op (MatMul, white list), a
// white vector op (Relu), a black vector op (Exp) and two gray ops (Add): every mode's expected
// dtypes and Casts are written out below from the page's text, not from the code.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "precision/precision_pass.h"

namespace openge::precision {
namespace {

constexpr DType f32 = DType::kFloat32, f16 = DType::kFloat16, bf16 = DType::kBFloat16;

SocOpInfo op(std::string_view onnx_type, OpClass cls, std::vector<DType> in, std::vector<DType> out, MixList list,
             std::vector<std::string> impl_modes = {}) {
  SocOpInfo info;
  info.ascend_type = ascend_op_type(onnx_type);
  info.op_class = cls;
  info.dtypes = std::move(in);
  info.output_dtypes = std::move(out);
  info.mix_list = list;
  info.impl_modes = std::move(impl_modes);
  return info;
}

void add(SocProfile& p, SocOpInfo info) { p.ops[info.ascend_type] = std::move(info); }

// Atlas A2-like: everything in fp16, fp32 and bf16; the cube op also fp16 in / fp32 out.
SocProfile a2_profile() {
  SocProfile p;
  p.soc_version = "TestA2";
  add(p, op("MatMul", OpClass::kCube, {f16, f32, bf16, f16}, {f16, f32, bf16, f32}, MixList::kWhite));
  add(p, op("Relu", OpClass::kVector, {f16, f32, bf16}, {f16, f32, bf16}, MixList::kWhite));
  add(p, op("Exp", OpClass::kVector, {f16, f32, bf16}, {f16, f32, bf16}, MixList::kBlack,
            {"high_precision", "high_performance"}));
  add(p, op("Add", OpClass::kVector, {f16, f32, bf16}, {f16, f32, bf16}, MixList::kGray));
  return p;
}

// Atlas training series-like: the cube op only in fp16, Exp only in fp16 (black-listed).
SocProfile training_profile() {
  SocProfile p;
  p.soc_version = "TestTraining";
  add(p, op("MatMul", OpClass::kCube, {f16}, {f16}, MixList::kWhite));
  add(p, op("Relu", OpClass::kVector, {f16, f32}, {f16, f32}, MixList::kWhite));
  add(p, op("Exp", OpClass::kVector, {f16}, {f16}, MixList::kBlack));
  add(p, op("Add", OpClass::kVector, {f16, f32}, {f16, f32}, MixList::kGray));
  return p;
}

int value(Graph& g, const std::string& name, Shape shape, bool constant = false) {
  const int v = g.add_value(name);
  g.values[static_cast<size_t>(v)].dtype = f32;
  g.values[static_cast<size_t>(v)].shape = shape;
  if (constant) {
    Tensor t(f32, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.1f * static_cast<float>(i + 1);
    g.values[static_cast<size_t>(v)].constant = t;
  }
  return v;
}

void node(Graph& g, const std::string& name, const std::string& type, std::vector<int> in, std::vector<int> out) {
  Node n;
  n.name = name;
  n.op_type = type;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  for (int o : n.outputs) g.values[static_cast<size_t>(o)].producer = static_cast<int>(g.nodes.size());
  g.nodes.push_back(std::move(n));
}

//   x -> MatMul(w) -> m -> Relu -> r -> Exp -> e ;  a = Add(r, e) ;  a2 = Add(r, b) ;  outputs a, a2
Graph test_graph() {
  Graph g;
  g.name = "precision_test";
  g.opset = 17;
  const int x = value(g, "x", {2, 4}), w = value(g, "w", {4, 4}, true), b = value(g, "b", {4}, true);
  const int m = value(g, "m", {2, 4}), r = value(g, "r", {2, 4}), e = value(g, "e", {2, 4});
  const int a = value(g, "a", {2, 4}), a2 = value(g, "a2", {2, 4});
  g.inputs = {x};
  node(g, "matmul", "MatMul", {x, w}, {m});
  node(g, "relu", "Relu", {m}, {r});
  node(g, "exp", "Exp", {r}, {e});
  node(g, "add", "Add", {r, e}, {a});
  node(g, "add2", "Add", {r, b}, {a2});
  g.outputs = {a, a2};
  return g;
}

PrecisionSetup setup_for(const std::string& option, const std::string& value, SocProfile profile,
                         const options::MixListEdits* edits = nullptr) {
  PrecisionSetup s;
  auto mode = precision_mode_from(option, value);
  EXPECT_TRUE(mode.ok()) << mode.status().message();
  s.mode = *mode;
  s.profile = std::move(profile);
  s.lists = MixLists::build(s.profile, edits, &s.warnings);
  return s;
}

using DtypePair = std::pair<DType, DType>;
struct Outcome {
  std::map<std::string, DtypePair> dtypes;    // node -> (input, output) dtype
  std::map<std::string, bool> aicpu;          // node -> moved to AI CPU
  std::set<std::string> casts;                // "<input value> -> <dtype>" of every Cast node
  std::set<std::string> converted_constants;  // constants the pass converted ("w/float16")
  Graph graph;
};

Outcome run_pass(const PrecisionSetup& setup) {
  Outcome out;
  out.graph = test_graph();
  auto decisions = apply_precision(out.graph, setup);
  EXPECT_TRUE(decisions.ok()) << decisions.status().message();
  if (!decisions.ok()) return out;
  for (const PrecisionDecision& d : *decisions) {
    out.dtypes[d.node_name] = {d.input_dtype, d.output_dtype};
    out.aicpu[d.node_name] = d.aicpu_only;
    EXPECT_FALSE(d.rule.empty()) << d.node_name;
  }
  const Graph& g = out.graph;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Cast") continue;
    const Value& in = g.values[static_cast<size_t>(n.inputs[0])];
    const Value& o = g.values[static_cast<size_t>(n.outputs[0])];
    out.casts.insert(in.name + " -> " + dtype_name(o.dtype));
    EXPECT_FALSE(in.constant) << "a constant is converted at compile time, never by a Cast node: " << in.name;
  }
  for (const Value& v : g.values)
    if (v.constant && v.name.find('/') != std::string::npos) out.converted_constants.insert(v.name);
  // Every node reads exactly the dtype it computes in, and graph outputs keep float32.
  for (const Node& n : g.nodes) {
    if (n.op_type == "Cast") continue;
    const DtypePair want = out.dtypes[n.name];
    for (int v : n.inputs) EXPECT_EQ(g.values[static_cast<size_t>(v)].dtype, want.first) << n.name;
    for (int v : n.outputs) EXPECT_EQ(g.values[static_cast<size_t>(v)].dtype, want.second) << n.name;
  }
  for (int v : g.outputs) EXPECT_EQ(g.values[static_cast<size_t>(v)].dtype, f32);
  EXPECT_TRUE(g.topological_order().ok());
  return out;
}

std::map<std::string, DtypePair> all(DtypePair p) {
  return {{"matmul", p}, {"relu", p}, {"exp", p}, {"add", p}, {"add2", p}};
}

TEST(PrecisionPass, OPT_precision_mode_9_MustKeepOriginDtypeChangesNothing) {
  Outcome o = run_pass(setup_for("precision_mode", "must_keep_origin_dtype", a2_profile()));
  EXPECT_EQ(o.dtypes, all({f32, f32}));
  EXPECT_TRUE(o.casts.empty());
  EXPECT_TRUE(o.converted_constants.empty());
}

TEST(PrecisionPass, OPT_precision_mode_v2_3_OriginChangesNothing) {
  Outcome o = run_pass(setup_for("precision_mode_v2", "origin", a2_profile()));
  EXPECT_EQ(o.dtypes, all({f32, f32}));
  EXPECT_TRUE(o.casts.empty());
}

TEST(PrecisionPass, OPT_precision_mode_2_AllowFp32ToFp16LowersCubeOpsOnly) {
  Outcome o = run_pass(setup_for("precision_mode", "allow_fp32_to_fp16", a2_profile()));
  auto want = all({f32, f32});
  want["matmul"] = {f16, f16};
  EXPECT_EQ(o.dtypes, want);
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> float16", "m -> float32"}));
  EXPECT_EQ(o.converted_constants, (std::set<std::string>{"w/float16"}));
}

TEST(PrecisionPass, OPT_precision_mode_15_AllowFp32ToBf16LowersCubeOpsOnly) {
  Outcome o = run_pass(setup_for("precision_mode", "allow_fp32_to_bf16", a2_profile()));
  auto want = all({f32, f32});
  want["matmul"] = {bf16, bf16};
  EXPECT_EQ(o.dtypes, want);
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> bfloat16", "m -> float32"}));
}

TEST(PrecisionPass, OPT_precision_mode_3_ForceFp16LowersEveryOpWithFp16) {
  Outcome o = run_pass(setup_for("precision_mode", "force_fp16", a2_profile()));
  EXPECT_EQ(o.dtypes, all({f16, f16}));
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> float16", "a/float16 -> float32", "a2/float16 -> float32"}));
  EXPECT_EQ(o.converted_constants, (std::set<std::string>{"w/float16", "b/float16"}));
}

TEST(PrecisionPass, OPT_precision_mode_v2_2_Fp16IsForceFp16) {
  EXPECT_EQ(run_pass(setup_for("precision_mode_v2", "fp16", a2_profile())).dtypes,
            run_pass(setup_for("precision_mode", "force_fp16", a2_profile())).dtypes);
}

TEST(PrecisionPass, OPT_precision_mode_5_CubeFp16InFp32OutFirstChoice) {
  Outcome o = run_pass(setup_for("precision_mode", "cube_fp16in_fp32out", a2_profile()));
  auto want = all({f32, f32});
  want["matmul"] = {f16, f32};
  EXPECT_EQ(o.dtypes, want);
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> float16"}));
}

TEST(PrecisionPass, OPT_precision_mode_4_ForceFp32IsCubeFp16InFp32Out) {
  EXPECT_EQ(run_pass(setup_for("precision_mode", "force_fp32", a2_profile())).dtypes,
            run_pass(setup_for("precision_mode", "cube_fp16in_fp32out", a2_profile())).dtypes);
  EXPECT_EQ(run_pass(setup_for("precision_mode_v2", "cube_fp16in_fp32out", a2_profile())).dtypes,
            run_pass(setup_for("precision_mode", "cube_fp16in_fp32out", a2_profile())).dtypes);
}

TEST(PrecisionPass, OPT_precision_mode_5_CubeFp16InFp16OutWhenOnlyFp16) {
  // Training-series profile: the cube op has fp16 only -> step (3); Relu/Add have fp32 -> fp32
  // (OPT-precision_mode-6); Exp has no fp32 and is black-listed -> fp32 on AI CPU (-8).
  Outcome o = run_pass(setup_for("precision_mode", "cube_fp16in_fp32out", training_profile()));
  auto want = all({f32, f32});
  want["matmul"] = {f16, f16};
  EXPECT_EQ(o.dtypes, want);
  EXPECT_TRUE(o.aicpu["exp"]);
  EXPECT_FALSE(o.aicpu["relu"]);
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> float16", "m -> float32"}));
}

TEST(PrecisionPass, OPT_precision_mode_7_VectorOpWithoutFp32KeepsFp16UnlessBlackListed) {
  options::MixListEdits edits;
  edits.black_remove = {ascend_op_type("Exp")};  // Exp becomes gray: no longer black-listed
  Outcome o = run_pass(setup_for("precision_mode", "cube_fp16in_fp32out", training_profile(), &edits));
  EXPECT_EQ(o.dtypes["exp"], (DtypePair{f16, f16}));
  EXPECT_FALSE(o.aicpu["exp"]);
}

TEST(PrecisionPass, OPT_precision_mode_6_VectorOpsRunInFp32EvenWhenTheModelHasFp16) {
  // Same rule from the other side: a graph already in fp16 gets its vector ops raised.
  PrecisionSetup s = setup_for("precision_mode", "cube_fp16in_fp32out", a2_profile());
  Graph g = test_graph();
  for (Value& v : g.values) {
    v.dtype = f16;
    if (v.constant) v.constant = Tensor(f16, v.constant->shape());
  }
  auto d = apply_precision(g, s);
  ASSERT_TRUE(d.ok()) << d.status().message();
  for (const auto& decision : *d)
    if (decision.node_name == "relu") {
      EXPECT_EQ(decision.input_dtype, f32);
    }
}

TEST(PrecisionPass, OPT_precision_mode_10_MustKeepOriginDtypeRefusesFp16OnlyOps) {
  Graph g = test_graph();
  auto d = apply_precision(g, setup_for("precision_mode", "must_keep_origin_dtype", training_profile()));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("OPT-precision_mode-10"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find("matmul"), std::string::npos) << d.status().message();
}

TEST(PrecisionPass, OPT_precision_mode_11_AllowMixPrecisionFollowsTheLists) {
  // White MatMul and Relu lowered; black Exp kept; gray Add(r, e) has one fp32 input -> fp32;
  // gray Add2(r, const) follows the lowered Relu -> fp16. One Cast r -> fp32 serves Exp and Add.
  Outcome o = run_pass(setup_for("precision_mode", "allow_mix_precision", a2_profile()));
  std::map<std::string, DtypePair> want = {
      {"matmul", {f16, f16}}, {"relu", {f16, f16}}, {"exp", {f32, f32}}, {"add", {f32, f32}}, {"add2", {f16, f16}}};
  EXPECT_EQ(o.dtypes, want);
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> float16", "r -> float32", "a2/float16 -> float32"}));
  EXPECT_EQ(run_pass(setup_for("precision_mode", "allow_mix_precision_fp16", a2_profile())).dtypes, want);
  EXPECT_EQ(run_pass(setup_for("precision_mode_v2", "mixed_float16", a2_profile())).dtypes, want);
}

TEST(PrecisionPass, OPT_precision_mode_13_AllowMixPrecisionBf16) {
  Outcome o = run_pass(setup_for("precision_mode", "allow_mix_precision_bf16", a2_profile()));
  std::map<std::string, DtypePair> want = {{"matmul", {bf16, bf16}},
                                           {"relu", {bf16, bf16}},
                                           {"exp", {f32, f32}},
                                           {"add", {f32, f32}},
                                           {"add2", {bf16, bf16}}};
  EXPECT_EQ(o.dtypes, want);
  EXPECT_EQ(o.casts, (std::set<std::string>{"x -> bfloat16", "r -> float32", "a2/bfloat16 -> float32"}));
  EXPECT_EQ(run_pass(setup_for("precision_mode_v2", "mixed_bfloat16", a2_profile())).dtypes, want);
}

TEST(PrecisionPass, OPT_modify_mixlist_4_BlackToRemoveMakesGray) {
  options::MixListEdits edits;
  edits.black_remove = {ascend_op_type("Exp")};
  Outcome o = run_pass(setup_for("precision_mode", "allow_mix_precision", a2_profile(), &edits));
  EXPECT_EQ(o.dtypes["exp"], (DtypePair{f16, f16}));  // gray now, follows the lowered Relu
  EXPECT_EQ(o.dtypes["add"], (DtypePair{f16, f16}));  // both inputs lowered
}

TEST(PrecisionPass, OPT_modify_mixlist_5_BlackToAddKeepsFp32) {
  options::MixListEdits edits;
  edits.black_add = {"Relu"};
  Outcome o = run_pass(setup_for("precision_mode", "allow_mix_precision", a2_profile(), &edits));
  EXPECT_EQ(o.dtypes["relu"], (DtypePair{f32, f32}));
  EXPECT_EQ(o.dtypes["add2"], (DtypePair{f32, f32}));  // gray after an fp32 Relu
}

TEST(PrecisionPass, OPT_modify_mixlist_6_WhiteToRemoveMakesGray) {
  options::MixListEdits edits;
  edits.white_remove = {ascend_op_type("MatMul")};
  Outcome o = run_pass(setup_for("precision_mode", "allow_mix_precision", a2_profile(), &edits));
  EXPECT_EQ(o.dtypes["matmul"], (DtypePair{f32, f32}));  // gray after a graph input: not lowered
  EXPECT_EQ(o.dtypes["relu"], (DtypePair{f16, f16}));    // still white
}

TEST(PrecisionPass, OPT_modify_mixlist_7_WhiteToAddLowers) {
  options::MixListEdits edits;
  edits.white_add = {ascend_op_type("Exp")};
  Outcome o = run_pass(setup_for("precision_mode", "allow_mix_precision", a2_profile(), &edits));
  EXPECT_EQ(o.dtypes["exp"], (DtypePair{f16, f16}));
}

TEST(PrecisionPass, OPT_modify_mixlist_3_UnknownNamesAreReportedAndIgnored) {
  options::MixListEdits edits;
  edits.white_add = {"Xlog1py"};
  PrecisionSetup s = setup_for("precision_mode", "allow_mix_precision", a2_profile(), &edits);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("Xlog1py"), std::string::npos);
}

TEST(PrecisionPass, OPT_customize_dtypes_6_NodeNameBeatsOpType) {
  PrecisionSetup s = setup_for("precision_mode", "allow_fp32_to_fp16", a2_profile());
  s.custom_dtypes_file = "custom.cfg";
  options::CustomDtypeRule by_type{true, "Relu", {"float32"}, {"float32"}, 1};
  options::CustomDtypeRule by_name{false, "relu", {"float16"}, {"float16"}, 2};
  options::CustomDtypeRule add_type{true, "Add", {"bfloat16"}, {"bfloat16"}, 3};
  s.custom_dtypes = {by_type, by_name, add_type};
  Outcome o = run_pass(s);
  EXPECT_EQ(o.dtypes["relu"], (DtypePair{f16, f16}));   // by name
  EXPECT_EQ(o.dtypes["add"], (DtypePair{bf16, bf16}));  // by type
  EXPECT_EQ(o.dtypes["add2"], (DtypePair{bf16, bf16}));
  EXPECT_EQ(o.dtypes["exp"], (DtypePair{f32, f32}));  // no rule: the mode's choice
}

TEST(PrecisionPass, OPT_customize_dtypes_1_RefusesIntegerTypesForFloatTensors) {
  PrecisionSetup s = setup_for("precision_mode", "allow_fp32_to_fp16", a2_profile());
  s.custom_dtypes_file = "custom.cfg";
  s.custom_dtypes = {options::CustomDtypeRule{false, "relu", {"int8"}, {"int8"}, 7}};
  Graph g = test_graph();
  auto d = apply_precision(g, s);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("custom.cfg:7"), std::string::npos) << d.status().message();
}

TEST(PrecisionPass, OPT_op_precision_mode_2_NodeNameBeatsOpTypeAndUnsupportedModesAreDropped) {
  PrecisionSetup s = setup_for("precision_mode", "must_keep_origin_dtype", a2_profile());
  s.has_op_precision_mode = true;
  s.op_precision_modes.by_op_type = {{"Exp", "high_performance"}, {"Relu", "high_precision"}};
  s.op_precision_modes.by_node_name = {{"exp", "high_precision"}};
  Graph g = test_graph();
  auto d = apply_precision(g, s);
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::map<std::string, std::string> modes;
  for (const auto& decision : *d) modes[decision.node_name] = decision.impl_mode;
  EXPECT_EQ(modes["exp"], "high_precision");  // [ByNodeName] wins
  EXPECT_EQ(modes["relu"], "");               // Relu lists no impl modes in this profile
  for (const Node& n : g.nodes)
    if (n.name == "exp") {
      EXPECT_EQ(n.impl_mode, "high_precision");
    }
}

TEST(PrecisionPass, OPT_op_select_implmode_1_AppliesToTheListedTypesOnly) {
  PrecisionSetup s = setup_for("precision_mode", "must_keep_origin_dtype", a2_profile());
  s.select_implmode = "high_performance";
  s.implmode_op_types = {"Relu"};
  Graph g = test_graph();
  auto d = apply_precision(g, s);
  ASSERT_TRUE(d.ok());
  for (const auto& decision : *d) EXPECT_EQ(decision.impl_mode, "") << decision.node_name;  // Exp not listed
  s.implmode_op_types.clear();  // alone: every op that has the mode (AMB-20)
  Graph g2 = test_graph();
  d = apply_precision(g2, s);
  ASSERT_TRUE(d.ok());
  for (const auto& decision : *d)
    EXPECT_EQ(decision.impl_mode, decision.node_name == "exp" ? "high_performance" : "") << decision.node_name;
}

}  // namespace
}  // namespace openge::precision
