// The boundary between the options and the engine (session/compile_config_resolver.h): each option
// a compile uses lands in its typed field of CompileConfig when the session opens, artifact paths
// are resolved there, and every problem is reported together. The compile pipeline sees only
// these fields, so a field set here is the option's effect on the compile.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "compiler/compile_config.h"
#include "options/option_set.h"
#include "options/options_test_util.h"
#include "session/compile_config_resolver.h"

namespace openge {
namespace {

using options::test::Flags;
using options::test::TempDir;

// The options of `flags` and `env`, checked as a session's are, from the working directory `cwd`.
std::shared_ptr<const options::OptionSet> options_of(const Flags& flags, const options::EnvMap& env,
                                                     const std::string& cwd) {
  auto r = options::test::build(flags, env, {}, /*check_files=*/true, cwd);
  EXPECT_TRUE(r.errors.empty()) << options::test::dump_errors(r);
  return r.options ? std::make_shared<const options::OptionSet>(std::move(*r.options)) : nullptr;
}

std::shared_ptr<const compiler::CompileConfig> resolved(const options::OptionSet& options,
                                                        CompileConfigScope scope = {}) {
  auto c = resolve_compile_config(options, scope);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c.value() : nullptr;
}

TEST(CompileConfigResolver, DefaultsGiveTheEngineDefaults) {
  TempDir d;
  auto options = options_of({}, {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->jit.mode, "auto");
  EXPECT_EQ(c->jit.compiler, "g++");
  EXPECT_FALSE(c->jit.npu_collect);
  EXPECT_FALSE(c->deterministic);
  EXPECT_EQ(c->stream_sync_timeout_ms, -1);
  EXPECT_EQ(c->atomic_clean_policy, 0);
  EXPECT_EQ(c->threading_grain_cycles, 0);
  EXPECT_EQ(c->graph_dump.detail, 0);
  EXPECT_EQ(c->tuning.mode, 0);
  EXPECT_FALSE(c->small_channel_user_set);
  ASSERT_TRUE(c->precision);
  ASSERT_TRUE(c->pass_choices);
  ASSERT_TRUE(c->jit.cache);  // the compile cache is on by default (OPT-op_compiler_cache_mode-1)
  EXPECT_EQ(c->grain_cache_root, c->jit.cache->root);
}

TEST(CompileConfigResolver,
     OPT_deterministic_3_And_OPT_stream_sync_timeout_1_And_OPT_memory_config_atomic_clean_policy_3) {
  TempDir d;
  auto options = options_of({{"deterministic", "1"},
                             {"stream_sync_timeout", "1500"},
                             {"memory_config.atomic_clean_policy", "1"},
                             {"threading_grain_cycles", "12345"},
                             {"stream_max_parallel_num", "AIcoreEngine:1,DNN_VM_AICPU:2"}},
                            {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->deterministic);
  EXPECT_EQ(c->stream_sync_timeout_ms, 1500);
  EXPECT_EQ(c->jit.debug.check_flag_timeout_ms, 1500);  // check_flag's wait (docs/DECISIONS.md)
  EXPECT_EQ(c->atomic_clean_policy, 1);
  EXPECT_EQ(c->threading_grain_cycles, 12345);
  EXPECT_EQ(c->stream_max_parallel_num, "AIcoreEngine:1,DNN_VM_AICPU:2");
}

TEST(CompileConfigResolver, OPT_jit_compile_1_4_ModeCompilerAndCollectPathAreResolved) {
  TempDir d;
  auto options = options_of({{"jit_compile", "false"}},
                            {{"HOME", d.path()}, {"CXX", "clang++"}, {"NPU_COLLECT_PATH", d.dir("collect")}}, d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->jit.mode, "false");
  EXPECT_EQ(c->jit.compiler, "clang++");
  EXPECT_TRUE(c->jit.npu_collect);
  EXPECT_EQ(c->jit.collect.path.rfind(d.path() + "/collect", 0), 0u) << c->jit.collect.path;
  // NPU_COLLECT_PATH wins over jit_compile=false for the compile (NPU-14, AMB-27).
  EXPECT_TRUE(compiler::jit_settings_for(c->jit, /*dynamic_model=*/true).decision.online);
}

TEST(CompileConfigResolver, OPT_op_compiler_cache_mode_DisableLeavesNoCacheFolder) {
  TempDir d;
  auto on = options_of({{"op_compiler_cache_dir", d.path()}}, {{"HOME", d.path()}}, d.path());
  auto off = options_of({{"op_compiler_cache_dir", d.path()}, {"op_compiler_cache_mode", "disable"}},
                        {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(on && off);
  auto c_on = resolved(*on), c_off = resolved(*off);
  ASSERT_TRUE(c_on && c_off);
  ASSERT_TRUE(c_on->jit.cache);
  EXPECT_EQ(c_on->jit.cache->root, d.path() + "/kernel_cache");
  EXPECT_EQ(c_on->grain_cache_root, d.path() + "/kernel_cache");
  ASSERT_TRUE(c_off->jit.cache);
  EXPECT_EQ(c_off->jit.cache->mode, compiler::CacheMode::kDisable);
  EXPECT_EQ(c_off->grain_cache_root, "");
  EXPECT_FALSE(std::filesystem::exists(d.path() + "/kernel_cache"));  // resolving creates nothing
}

TEST(CompileConfigResolver, OPT_fusion_switch_file_3_PassChoicesAndTheOptionsThatShapedTheGraph) {
  TempDir d;
  const std::string file =
      d.file("inputs/fusion_switch.cfg", R"({"Switch":{"GraphFusion":{"ConvBatchnormFusionPass":"off"}}})");
  auto options =
      options_of({{"fusion_switch_file", file}, {"precision_mode", "force_fp32"}}, {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->pass_choices);
  int off = 0;
  for (const passes::PassChoice& choice : *c->pass_choices)
    if (std::string(choice.pass->name) == "ConvBatchnormFusionPass") off += choice.on ? 0 : 1;
  EXPECT_EQ(off, 1);
  ASSERT_TRUE(c->precision);
  EXPECT_EQ(c->precision->mode.value, "force_fp32");
  // Both shaped the graph (a .oge records them), and the session's set knows they were read.
  EXPECT_TRUE(c->shaping_options.count("fusion_switch_file"));
  EXPECT_TRUE(c->shaping_options.count("precision_mode"));
  EXPECT_TRUE(options->options_read().count("fusion_switch_file"));
  EXPECT_TRUE(options->options_read().count("precision_mode"));
}

TEST(CompileConfigResolver, ACompiledModelAndASessionWithoutPassesResolveLess) {
  TempDir d;
  auto options = options_of({}, {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  auto precompiled = resolved(*options, {.rewrites = false, .run_passes = true});
  ASSERT_TRUE(precompiled);
  EXPECT_FALSE(precompiled->precision);
  EXPECT_FALSE(precompiled->pass_choices);
  EXPECT_TRUE(precompiled->shaping_options.empty());
  auto no_passes = resolved(*options, {.rewrites = true, .run_passes = false});
  ASSERT_TRUE(no_passes);
  EXPECT_TRUE(no_passes->precision);
  EXPECT_FALSE(no_passes->pass_choices);
}

TEST(CompileConfigResolver, OPT_enable_small_channel_1_UserSettingIsKept) {
  TempDir d;
  auto options = options_of({{"enable_small_channel", "1"}}, {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->small_channel_user_set);
  EXPECT_TRUE(c->small_channel_on);
}

TEST(CompileConfigResolver, OPT_aoe_config_aoe_mode_2_TuningModeAndWorkPath) {
  TempDir d;
  auto options = options_of({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.dir("aoe")}},
                            {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->tuning.mode, 2);
  EXPECT_EQ(c->tuning.aoe_data.path.rfind(d.path() + "/aoe", 0), 0u) << c->tuning.aoe_data.path;
}

TEST(CompileConfigResolver, ENV_24_GraphDumpLevelAndFolder) {
  TempDir d;
  auto options = options_of(
      {}, {{"HOME", d.path()}, {"DUMP_GE_GRAPH", "2"}, {"DUMP_GRAPH_LEVEL", "3"}, {"DUMP_GRAPH_PATH", d.dir("graphs")}},
      d.path());
  ASSERT_TRUE(options);
  auto c = resolved(*options);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->graph_dump.detail, 2);
  EXPECT_EQ(c->graph_dump.level, 3);
  EXPECT_EQ(c->graph_dump.where.path.rfind(d.path() + "/graphs", 0), 0u) << c->graph_dump.where.path;
}

// Files that vanished after the options were checked: one error names both, before any compile.
TEST(CompileConfigResolver, EveryProblemIsReportedTogether) {
  TempDir d;
  const std::string switches = d.file("inputs/fusion_switch.cfg", R"({"Switch":{"GraphFusion":{"ALL":"off"}}})");
  const std::string debug = d.file("inputs/op_debug.cfg", "op_debug_config = oom\n");
  auto options =
      options_of({{"fusion_switch_file", switches}, {"op_debug_config", debug}}, {{"HOME", d.path()}}, d.path());
  ASSERT_TRUE(options);
  std::filesystem::remove(switches);
  std::filesystem::remove(debug);
  auto c = resolve_compile_config(*options);
  ASSERT_FALSE(c.ok());
  const std::string msg = c.status().message();
  EXPECT_NE(msg.find("fusion_switch_file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("op_debug_config"), std::string::npos) << msg;
}

}  // namespace
}  // namespace openge
