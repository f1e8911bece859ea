// The UB fusion pass (TbeEltwiseFusionPass) and the online compiler (src/compiler/): groups of
// vector ops become one FusedElementwise node; jit_compile decides whether its kernel is
// generated and built with the system compiler or the prebuilt reference kernels run. Every
// g++ run costs about a second, so only five tests compile (TEST names say "Compiles").
// Oracle: the same graph without passes, run op by op on the reference kernels.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compiler/codegen_eltwise.h"
#include "compiler/kernel_meta.h"
#include "compiler/online_compiler.h"
#include "base/sha256.h"
#include "compiler/toolchain.h"
#include "fused_model_test_util.h"
#include "compiler/compile_config_test_util.h"

namespace openge::testing {
namespace {
namespace fs = std::filesystem;
using fused::bitwise_equal;
using fused::compile;
using fused::config;
using fused::fused_nodes;
using fused::Model;
using fused::two_groups;
using options::test::TempDir;

const std::vector<Tensor> kInputs = {random_tensor({2, 3, 5, 7}, 1), random_tensor({2, 3, 5, 7}, 2)};

std::vector<Tensor> run(const Executable& exe) { return fused::run(exe, kInputs); }

TEST(TbeEltwiseFusionPass, GroupsTwoChainsAndKeepsPrebuiltResultsExact) {
  auto cfg = config({{"jit_compile", "false"}});
  auto reference = compile(two_groups(), cfg, /*passes=*/false);
  auto fused = compile(two_groups(), cfg);
  ASSERT_TRUE(reference && fused);
  const auto groups = fused_nodes(*fused);
  ASSERT_EQ(groups.size(), 2u);
  // The first group holds the six exact ops (the LeakyRelu branch joins through Max).
  EXPECT_EQ(groups[0]->node.fused_from.size(), 6u);
  EXPECT_EQ(groups[1]->node.fused_from.size(), 4u);
  for (const CompiledNode* n : groups) EXPECT_EQ(n->engine, Engine::kAiCpu) << "jit_compile=false: prebuilt kernels";
  EXPECT_EQ(fused->nodes().size(), 2u);
  const auto want = run(*reference), got = run(*fused);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(bitwise_equal(got[0], want[0]));
  EXPECT_TRUE(bitwise_equal(got[1], want[1]));
}

TEST(TbeEltwiseFusionPass, LeavesBroadcastsItCannotStreamAndSingleOpsAlone) {
  GraphBuilder b;
  const int x = b.input("x");
  // [3,1,7] on [2,3,5,7]: two matching runs, not one — not fusable; a lone Relu stays a Relu.
  int t = b.node("Add", {x, b.constant("odd", random_tensor({3, 1, 7}, 3))});
  t = b.node("Relu", {t});
  b.g.outputs = {t};
  b.g.values[static_cast<size_t>(x)].dtype = DType::kFloat32;
  b.g.values[static_cast<size_t>(x)].shape = Shape{2, 3, 5, 7};
  auto exe = compile({std::move(b.g), {{2, 3, 5, 7}}}, config({{"jit_compile", "false"}}));
  ASSERT_TRUE(exe);
  EXPECT_TRUE(fused_nodes(*exe).empty());
}

TEST(OnlineCompiler, OPT_jit_compile_1_4_DecisionFollowsModeShapesAndCollectPath) {
  // The decision as a session's compile makes it: from the resolved settings and the model.
  auto decide_jit = [](const std::shared_ptr<const options::OptionSet>& options, bool dynamic_model) {
    auto jit = compiler::resolve_jit_config(*options);
    EXPECT_TRUE(jit.ok()) << jit.status().message();
    return compiler::decide_jit(jit.ok() ? jit.value() : compiler::JitConfig{}, dynamic_model);
  };
  EXPECT_TRUE(decide_jit(config({}), false).online);  // default auto, static shapes
  EXPECT_FALSE(decide_jit(config({}), true).online);  // auto, dynamic shapes
  EXPECT_TRUE(decide_jit(config({{"jit_compile", "true"}}), true).online);
  EXPECT_FALSE(decide_jit(config({{"jit_compile", "false"}}), false).online);
  TempDir d;
  // NPU-14 / AMB-27: NPU_COLLECT_PATH forces online compile, whatever jit_compile says.
  EXPECT_TRUE(decide_jit(config({{"jit_compile", "false"}}, {{"NPU_COLLECT_PATH", d.path()}}), true).online);
}

TEST(OnlineCompiler, OPT_jit_compile_2_AutoRunsPrebuiltKernelsForADynamicShapeModel) {
  auto exe = compile(two_groups(/*dynamic=*/true), config({}));  // auto; no compiler runs
  ASSERT_TRUE(exe);
  ASSERT_EQ(fused_nodes(*exe).size(), 2u);
  // Prebuilt: the AI CPU engine's kernel (the reference, or its prepared form for the compiled
  // shapes, ops/prepared_kernel.h), never a generated one (those run on the AI Core engine).
  for (const CompiledNode* n : fused_nodes(*exe)) {
    EXPECT_EQ(n->engine, Engine::kAiCpu);
    if (n->kernel) {
      EXPECT_EQ(n->kernel->engine(), Engine::kAiCpu);
    }
  }
}

TEST(OnlineCompiler, OPT_jit_compile_3_CompilesTwoKernelsExactAndWithinTolerance) {
  auto reference = compile(two_groups(), config({{"jit_compile", "false"}}), /*passes=*/false);
  // Mode disable: the compiler runs at every compile and no cache folder is made.
  auto jit = compile(two_groups(), config({{"jit_compile", "true"}, {"op_compiler_cache_mode", "disable"}}));
  ASSERT_TRUE(reference && jit);
  for (const CompiledNode* n : fused_nodes(*jit)) {
    ASSERT_NE(n->kernel, nullptr);
    EXPECT_EQ(n->engine, Engine::kAiCore);
  }
  const auto want = run(*reference), got = run(*jit);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(bitwise_equal(got[0], want[0])) << "Add/Mul/Relu/Sub/LeakyRelu/Max are exact";
  // The reference kernels' vectorised sigmoid/tanh, pasted into the kernel, built without FP
  // contraction (the engine's build may contract): not bit for bit.
  EXPECT_LT(max_abs_diff(got[1], want[1]), 1e-5);
  // Runs again (re-entrant, no state kept between runs).
  EXPECT_TRUE(bitwise_equal(run(*jit)[0], want[0]));
}

// Sigmoid, Tanh and Erf: the generated code calls the reference kernels' vectorisable
// approximations (their source pasted in) by default, and libm under high_precision, as the
// reference kernels do (no compile: the source alone).
TEST(OnlineCompiler, GeneratedActivationsFollowTheImplModeAsTheReferenceKernelsDo) {
  compiler::EltwiseKernelSpec spec;
  spec.kernel_name = "k";
  spec.numel = 16;
  spec.inputs = {{1, 16}};
  spec.input_names = {"x"};
  spec.program.steps = {{"Sigmoid", {0}, 0, 0, "s", ""}, {"Tanh", {-1}, 0, 0, "t", ""}, {"Erf", {-2}, 0, 0, "e", ""}};
  const std::string fast = compiler::generate_eltwise_source(spec, {});
  for (const char* call : {"openge::elementwise::fast_sigmoid(", "openge::elementwise::fast_tanh(",
                           "openge::elementwise::fast_erf(", "inline float exp_nonpositive_branchless(float x)"})
    EXPECT_NE(fast.find(call), std::string::npos) << call << "\n" << fast;
  EXPECT_EQ(fast.find("#pragma once"), std::string::npos);
  for (auto& step : spec.program.steps) step.impl_mode = "high_precision";
  const std::string precise = compiler::generate_eltwise_source(spec, {});
  EXPECT_EQ(precise.find("fast_"), std::string::npos) << precise;
  for (const char* call : {"std::exp(-", "std::tanh(", "std::erf("})
    EXPECT_NE(precise.find(call), std::string::npos) << call;
  // Per step: a high_precision Tanh beside a default Sigmoid.
  spec.program.steps[0].impl_mode = "";
  const std::string mixed = compiler::generate_eltwise_source(spec, {});
  EXPECT_NE(mixed.find("openge::elementwise::fast_sigmoid("), std::string::npos);
  EXPECT_NE(mixed.find("std::tanh("), std::string::npos);
  // Exact ops alone: nothing pasted.
  spec.program.steps = {{"Relu", {0}, 0, 0, "r", ""}};
  EXPECT_EQ(compiler::generate_eltwise_source(spec, {}).find("elementwise_fastmath"), std::string::npos);
}

// Under op_select_implmode=high_precision both sides use libm: the generated Sigmoid/Tanh group
// gives the reference kernels' bits.
TEST(OnlineCompiler, OPT_op_select_implmode_2_Compiles_HighPrecisionGroupGivesTheReferenceBits) {
  const options::test::Flags precise = {{"op_select_implmode", "high_precision"}};
  auto flags = precise;
  flags.push_back({"jit_compile", "true"});
  flags.push_back({"op_compiler_cache_mode", "disable"});
  auto reference = compile(two_groups(), config(precise), /*passes=*/false);
  auto jit = compile(two_groups(), config(flags));
  ASSERT_TRUE(reference && jit);
  ASSERT_EQ(fused_nodes(*jit).size(), 2u);
  for (const CompiledNode* n : fused_nodes(*jit)) EXPECT_EQ(n->engine, Engine::kAiCore);
  const Attribute* impl = fused_nodes(*jit)[1]->node.attrs.find("ub_impl");
  ASSERT_NE(impl, nullptr) << "the steps' impl modes are kept";
  EXPECT_NE(std::find(impl->strings.begin(), impl->strings.end(), "high_precision"), impl->strings.end());
  const auto want = run(*reference), got = run(*jit);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(bitwise_equal(got[1], want[1])) << "libm on both sides";
}

TEST(OnlineCompiler, AMissingCompilerIsOneErrorNamingItAndWhatToDo) {
  CompileOptions o;
  o.config = openge::test::compile_config(
      config({{"jit_compile", "true"}, {"op_compiler_cache_mode", "disable"}}, {{"CXX", "/nonexistent/openge-cxx"}}));
  Model m = two_groups();
  auto exe = compiler::compile(std::move(m.graph), m.input_shapes, o);
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("/nonexistent/openge-cxx"), std::string::npos) << exe.status().message();
  EXPECT_NE(exe.status().message().find("jit_compile=false"), std::string::npos) << exe.status().message();
}

TEST(OnlineCompiler, AFailingCompileNamesTheKernelAndShowsTheCompilersOutput) {
  TempDir d;
  // A "compiler" that knows its version but rejects every source.
  const std::string cxx = d.path() + "/fake-cxx";
  {
    std::ofstream f(cxx);
    f << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fake-cxx 1.0'; exit 0; fi\n"
         "echo 'fake-cxx: error: no space for kernels' >&2\nexit 3\n";
  }
  fs::permissions(cxx, fs::perms::owner_all);
  CompileOptions o;
  o.config = openge::test::compile_config(
      config({{"jit_compile", "true"}, {"op_compiler_cache_mode", "disable"}}, {{"CXX", cxx}}));
  Model m = two_groups();
  auto exe = compiler::compile(std::move(m.graph), m.input_shapes, o);
  ASSERT_FALSE(exe.ok());
  const std::string msg = exe.status().message();
  EXPECT_NE(msg.find("kernel 'te_fused_"), std::string::npos) << msg;
  EXPECT_NE(msg.find("exited with 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no space for kernels"), std::string::npos) << msg;
}

TEST(OnlineCompiler, OPT_op_debug_config_10_11_DebugSwitchesChangeTheFlags) {
  const auto plain = compiler::compile_flags({});
  const auto debug = compiler::compile_flags({true, true});
  EXPECT_NE(std::find(plain.begin(), plain.end(), "-O3"), plain.end());
  EXPECT_NE(std::find(debug.begin(), debug.end(), "-O0"), debug.end());
  EXPECT_NE(std::find(debug.begin(), debug.end(), "-g"), debug.end());
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "-g"), plain.end());
}

// op_debug_level 1 with debug_dir: kernel_meta/ under debug_dir holds the binary, its description
// (with the sha256 of the binary), the source and the source-to-graph map.
TEST(OnlineCompiler, OPT_op_debug_level_2_Compiles_KernelMetaUnderDebugDir) {
  TempDir d;
  auto exe = compile(two_groups(), config({{"jit_compile", "true"}, {"op_debug_level", "1"}, {"debug_dir", d.path()}}));
  ASSERT_TRUE(exe);
  const std::string meta = d.path() + "/kernel_meta";
  ASSERT_TRUE(fs::is_directory(meta));
  int jsons = 0;
  for (const auto& e : fs::directory_iterator(meta)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".json" || name.find("_loc") != std::string::npos) continue;
    ++jsons;
    std::ifstream in(e.path());
    const auto j = nlohmann::json::parse(in);
    const std::string base = j.at("binFileName");
    EXPECT_EQ(j.at("kernelName"), base);
    EXPECT_EQ(j.at("binFileSuffix"), ".so");
    EXPECT_GE(j.at("blockDim").get<int>(), 1);
    EXPECT_TRUE(j.contains("workspace"));
    ASSERT_TRUE(fs::exists(meta + "/" + base + ".so"));
    auto sha = sha256_file(meta + "/" + base + ".so");
    ASSERT_TRUE(sha.ok());
    EXPECT_EQ(j.at("sha256"), sha->sha256);
    EXPECT_TRUE(fs::exists(meta + "/" + base + ".cce")) << "level 1 keeps the source";
    std::ifstream loc(meta + "/" + base + "_loc.json");
    ASSERT_TRUE(loc) << "level 1 keeps the source-to-graph map";
    const auto l = nlohmann::json::parse(loc);
    ASSERT_FALSE(l.at("map").empty());
    // The mapped line of the source computes the node it names.
    std::ifstream src(meta + "/" + base + ".cce");
    std::vector<std::string> lines;
    for (std::string s; std::getline(src, s);) lines.push_back(s);
    const auto& first = l.at("map")[0];
    const int line = first.at("line");
    ASSERT_LE(line, static_cast<int>(lines.size()));
    EXPECT_NE(lines[static_cast<size_t>(line - 1)].find(first.at("node").get<std::string>()), std::string::npos);
  }
  EXPECT_EQ(jsons, 2);
}

// oom: a kernel whose every read of input 0 is shifted one element past its end (the test-only
// hook of the code generator) stops with EZ9999 naming the op, the input and the offset.
TEST(OnlineCompiler, OPT_op_debug_config_3_5_Compiles_OomCatchesAPlantedOutOfBoundsRead) {
  TempDir d;
  GraphBuilder b;
  const int x = b.input("x");
  int t = b.node("Add", {x, b.constant("one", scalar(1.0f))});
  t = b.node("Relu", {t});
  b.g.outputs = {t};
  Node node;
  node.name = "planted";
  node.op_type = kFusedElementwise;
  node.inputs = {x, 1};
  EltwiseProgram program;
  program.steps = {{"Add", {0, 1}, 0, 0, "add_1", ""}, {"Relu", {-1}, 0, 0, "relu_1", ""}};
  write_eltwise_program(node, program);
  compiler::KernelRequest request{&node, {{4, 8}, {}}, {"x", "one"}, {4, 8}};
  compiler::JitSettings settings;
  settings.decision.online = true;
  settings.compiler = "g++";
  settings.debug.config.flags = {"oom"};
  settings.kernel_meta.path = d.path() + "/kernel_meta";
  compiler::CodegenOptions planted;
  planted.test_only_input0_shift = 1;
  auto kernels = compiler::compile_kernels({request}, settings, &planted);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  Tensor in = random_tensor({4, 8}, 5), one = scalar(1.0f), out(DType::kFloat32, {4, 8});
  KernelContext ctx(node, 13, {&in, &one}, {&out});
  const Status s = (*kernels)[0]->run(ctx);
  ASSERT_FALSE(s.ok());
  const std::string msg = s.message();
  EXPECT_NE(msg.find("EZ9999"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'planted'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Add 'add_1'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("read of input 0 ('x') at element 32 of a tensor of 32 elements"), std::string::npos) << msg;
  EXPECT_TRUE(fs::exists(d.path() + "/kernel_meta")) << "oom keeps .so/.json in kernel_meta";
}

}  // namespace
}  // namespace openge::testing
