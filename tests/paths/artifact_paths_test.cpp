// Path resolvers: every priority chain of spec A/B in every combination of set and unset tiers,
// relative paths from the working directory, the rule that decided, folders created on demand.
#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>

#include "../options/options_test_util.h"
#include "paths/artifact_paths.h"

namespace openge::paths {
namespace {

using options::test::build;
using options::test::Flags;
using options::test::TempDir;

const std::string kCwd = "/run/here";

RunIds ids() {
  RunIds r;
  r.pid = 4242;
  r.session_id = "7";
  r.host_id = "hostA";
  return r;
}

ResolvedPath resolve(ArtifactKind k, const Flags& flags, const options::EnvMap& env, const RunIds& id = ids()) {
  auto r = build(flags, env, {}, false, kCwd);
  EXPECT_TRUE(r.errors.empty()) << options::format_problems(r.errors);
  return resolve_artifact(k, *r.options, id);
}

// A tier of a chain: how to set it, and the path it must give.
struct TierCase {
  Flags flags;
  options::EnvMap env;
  std::string expected;
  std::string rule_prefix;
};

// Every subset of tiers set: the highest one set decides; none set gives the default.
void check_chain(ArtifactKind kind, const std::vector<TierCase>& tiers, const std::string& default_path,
                 const std::string& default_rule, const options::EnvMap& base_env = {{"HOME", "/home/u"}}) {
  const int n = static_cast<int>(tiers.size());
  for (int mask = 0; mask < (1 << n); ++mask) {
    Flags flags;
    options::EnvMap env = base_env;
    int winner = -1;
    for (int i = 0; i < n; ++i) {
      if (!(mask & (1 << i))) continue;
      if (winner < 0) winner = i;
      flags.insert(flags.end(), tiers[i].flags.begin(), tiers[i].flags.end());
      env.insert(tiers[i].env.begin(), tiers[i].env.end());
    }
    auto r = resolve(kind, flags, env);
    const std::string want = winner < 0 ? default_path : tiers[winner].expected;
    const std::string rule = winner < 0 ? default_rule : tiers[winner].rule_prefix;
    EXPECT_EQ(r.path, want) << artifact_name(kind) << " mask " << mask;
    EXPECT_EQ(r.rule.rfind(rule, 0), 0u) << artifact_name(kind) << " mask " << mask << ": " << r.rule;
  }
}

TEST(EnvChains, ENV_6_LogChain) {
  check_chain(ArtifactKind::kLog,
              {{{}, {{"ASCEND_PROCESS_LOG_PATH", "/plog"}}, "/plog", "ASCEND_PROCESS_LOG_PATH"},
               {{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/log", "ASCEND_WORK_PATH"}},
              "/home/u/ascend/log", "default $HOME/ascend/log");
}

TEST(EnvChains, AMB_30_LogWithoutHome) {
  auto r = resolve(ArtifactKind::kLog, {}, {});
  EXPECT_EQ(r.path, kCwd + "/ascend/log");
}

TEST(EnvChains, ENV_8_AtraceChain) {
  check_chain(ArtifactKind::kAtrace,
              {{{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/atrace", "ASCEND_WORK_PATH"}},
              "/home/u/ascend/atrace", "default $HOME/ascend/atrace");
}

TEST(EnvChains, ENV_12_13_ProfilingChain) {
  check_chain(
      ArtifactKind::kProfiling,
      {{{{"profiling_options", R"({"output":"/prof"})"}}, {}, "/prof", "profiling_options"},
       {{}, {{"PROFILING_OPTIONS", R"({"output":"rel/prof"})"}}, kCwd + "/rel/prof", ""},
       {{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/profiling_data", "ASCEND_WORK_PATH"}},
      "", "none: set \"output\"");
}

TEST(EnvChains, PROF_4_ProfilingOptionsEnvOutputBeatsWorkPath) {
  auto r =
      resolve(ArtifactKind::kProfiling, {}, {{"PROFILING_OPTIONS", R"({"output":"/p"})"}, {"ASCEND_WORK_PATH", "/w"}});
  EXPECT_EQ(r.path, "/p");
  EXPECT_EQ(r.rule.rfind("PROFILING_OPTIONS", 0), 0u);
}

TEST(EnvChains, ENV_23_KernelMetaChain) {
  check_chain(ArtifactKind::kKernelMeta,
              {{{{"debug_dir", "/dbg"}}, {}, "/dbg/kernel_meta", "debug_dir"},
               {{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/kernel_meta", "ASCEND_WORK_PATH"}},
              kCwd + "/kernel_meta", "default ./kernel_meta");
}

TEST(EnvChains, ENV_25_GraphDumpChain) {
  check_chain(ArtifactKind::kGraphDump,
              {{{}, {{"DUMP_GRAPH_PATH", "/g"}}, "/g", "DUMP_GRAPH_PATH"},
               {{}, {{"NPU_COLLECT_PATH", "/n"}}, "/n/4242_0", "NPU_COLLECT_PATH"},
               {{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/4242_0", "ASCEND_WORK_PATH"}},
              kCwd, "default: working directory");
}

TEST(EnvChains, ENV_24_GraphDumpFolderUsesDeviceId) {
  auto r = resolve(ArtifactKind::kGraphDump, {{"device_id", "3"}}, {{"ASCEND_WORK_PATH", "/w"}});
  EXPECT_EQ(r.path, "/w/4242_3");
}

TEST(EnvChains, ENV_27_NPU_10_ExceptionDumpChain) {
  check_chain(
      ArtifactKind::kExceptionDump,
      {{{}, {{"NPU_COLLECT_PATH", "/n"}}, "/n/extra-info/data-dump", "NPU_COLLECT_PATH"},
       {{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/extra-info/data-dump", "ASCEND_WORK_PATH"}},
      kCwd + "/extra-info/data-dump", "default ./extra-info/data-dump");
}

TEST(EnvChains, ENV_30_DISC_1_ExternalWeightsChain) {
  check_chain(
      ArtifactKind::kExternalWeights,
      {{{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/tmp_weight_4242_7", "ASCEND_WORK_PATH"}},
      kCwd + "/tmp_weight_4242_7", "default ./tmp_weight");
}

TEST(EnvChains, ENV_31_32_FusionResultChain) {
  check_chain(ArtifactKind::kFusionResult,
              {{{},
                {{"ASCEND_WORK_PATH", "/data/ascend_work"}},
                "/data/ascend_work/FE/4242/fusion_result.json",
                "ASCEND_WORK_PATH"}},
              kCwd + "/fusion_result.json", "default ./fusion_result.json");
  auto r = resolve(ArtifactKind::kFusionResult, {}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}});
  EXPECT_TRUE(r.is_file);
  EXPECT_EQ(r.directory(), "/data/ascend_work/FE/4242");
}

TEST(EnvChains, ENV_35_CheckResultChain) {
  for (int mask = 0; mask < 4; ++mask) {
    RunIds id = ids();
    options::EnvMap env;
    if (mask & 1) id.check_report = "reports/check.json";
    if (mask & 2) env["ASCEND_WORK_PATH"] = "/data/ascend_work";
    auto r = resolve(ArtifactKind::kCheckResult, {}, env, id);
    const std::string want = (mask & 1)   ? kCwd + "/reports/check.json"
                             : (mask & 2) ? "/data/ascend_work/check_result.json"
                                          : kCwd + "/check_result.json";
    EXPECT_EQ(r.path, want) << mask;
  }
}

TEST(EnvChains, ENV_3_AMB_21_AoeDataChain) {
  check_chain(ArtifactKind::kAoeData,
              {{{{"aoe_config.work_path", "aoe_out"}}, {}, kCwd + "/aoe_out", "aoe_config.work_path"},
               {{}, {{"ASCEND_WORK_PATH", "/data/ascend_work"}}, "/data/ascend_work/aoe_data", "ASCEND_WORK_PATH"}},
              kCwd, "default: working directory");
}

TEST(EnvChains, OPT_op_compiler_cache_dir_5_CompileCacheChain) {
  check_chain(ArtifactKind::kCompileCache,
              {{{{"op_compiler_cache_dir", "/home/test/kernel_cache"}},
                {},
                "/home/test/kernel_cache/kernel_cache",
                "op_compiler_cache_dir"},
               {{}, {{"ASCEND_CACHE_PATH", "/cache"}}, "/cache/kernel_cache_hostA", "ASCEND_CACHE_PATH"}},
              "/home/u/atc_data/kernel_cache_hostA", "default $HOME/atc_data");
}

TEST(EnvChains, NPU_15_CollectCompileChain) {
  check_chain(ArtifactKind::kCollectCompile,
              {{{}, {{"NPU_COLLECT_PATH", "/n"}}, "/n/op_compile", "NPU_COLLECT_PATH"},
               {{}, {{"ASCEND_CACHE_PATH", "/cache"}}, "/cache/kernel_cache_hostA", "ASCEND_CACHE_PATH"}},
              "/home/u/atc_data/kernel_cache_hostA", "default $HOME/atc_data");
}

TEST(EnvChains, NPU_2_RelativePathsResolveAgainstTheWorkingDirectory) {
  auto r = resolve(ArtifactKind::kExceptionDump, {}, {{"NPU_COLLECT_PATH", "demo/"}});
  EXPECT_EQ(r.path, kCwd + "/demo/extra-info/data-dump");
  r = resolve(ArtifactKind::kLog, {}, {{"ASCEND_WORK_PATH", "../w"}});
  EXPECT_EQ(r.path, "/run/w/log");
}

TEST(EnvChains, ResolveAllCoversEveryKind) {
  auto r = build({}, {}, {}, false, kCwd);
  auto all = resolve_all_artifacts(*r.options, ids());
  ASSERT_EQ(all.size(), all_artifact_kinds().size());
  EXPECT_EQ(all.size(), 13u);  // data_dump is the 13th
  for (const auto& p : all) EXPECT_FALSE(p.chain.empty()) << artifact_name(p.kind);
}

TEST(EnvPrepare, NPU_4_CreatesMissingFolders) {
  TempDir d;
  auto r = build({}, {{"NPU_COLLECT_PATH", d.path() + "/a/b"}}, {}, false, d.path());
  auto p = resolve_artifact(ArtifactKind::kExceptionDump, *r.options, ids());
  ASSERT_TRUE(prepare_artifact_directory(p, *r.options).ok());
  EXPECT_TRUE(std::filesystem::is_directory(d.path() + "/a/b/extra-info/data-dump"));
}

TEST(EnvPrepare, NPU_3_NeedsReadWriteExecute) {
  TempDir d;
  // root ignores permission bits; /proc/1 is a folder nobody may write.
  const std::string dir = ::geteuid() == 0 ? "/proc/1" : d.dir("locked");
  if (::geteuid() != 0) ::chmod(dir.c_str(), 0500);
  auto r = build({}, {{"NPU_COLLECT_PATH", dir}}, {}, false, d.path());
  auto p = resolve_artifact(ArtifactKind::kExceptionDump, *r.options, ids());
  EXPECT_FALSE(prepare_artifact_directory(p, *r.options).ok());
}

TEST(EnvPrepare, ENV_13_ProfilingWithoutFolderIsAnError) {
  auto r = build({}, {}, {}, false, kCwd);
  auto p = resolve_artifact(ArtifactKind::kProfiling, *r.options, ids());
  auto st = prepare_artifact_directory(p, *r.options);
  ASSERT_FALSE(st.ok());
  // The fix, in plain words: where to set a folder.
  EXPECT_NE(st.message().find("set \"output\" in profiling_options or ASCEND_WORK_PATH"), std::string::npos)
      << st.message();
}

TEST(EnvPrepare, AFileWhereAFolderIsExpected) {
  TempDir d;
  d.file("work_path", "not a folder");
  auto r = build({}, {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, {}, false, d.path());
  auto p = resolve_artifact(ArtifactKind::kKernelMeta, *r.options, ids());
  EXPECT_FALSE(prepare_artifact_directory(p, *r.options).ok());
}

TEST(OpCacheLimits, OPT_op_compiler_cache_mode_15_IniBeforeEnvBeforeDefault) {
  TempDir d;
  auto none = build({}, {}, {}, false, d.path());
  auto l = resolve_op_cache_limits(*none.options, d.path());
  EXPECT_EQ(l.max_size_mb, 500);
  EXPECT_EQ(l.remain_ratio_percent, 50);
  auto env = build({}, {{"ASCEND_MAX_OP_CACHE_SIZE", "800"}, {"ASCEND_REMAIN_CACHE_SIZE_RATIO", "70"}}, {}, false);
  l = resolve_op_cache_limits(*env.options, d.path());
  EXPECT_EQ(l.max_size_mb, 800);
  EXPECT_EQ(l.remain_ratio_percent, 70);
  d.file("op_cache.ini", "[op_compiler_cache]\nascend_max_op_cache_size=300\nascend_remain_cache_size_ratio=80\n");
  l = resolve_op_cache_limits(*env.options, d.path());
  EXPECT_EQ(l.max_size_mb, 300);
  EXPECT_EQ(l.remain_ratio_percent, 80);
  EXPECT_EQ(l.rule.rfind("op_cache.ini", 0), 0u);
  // An ini with one invalid value is not used (OPT-op_compiler_cache_mode-12).
  d.file("op_cache.ini", "[op_compiler_cache]\nascend_max_op_cache_size=300\nascend_remain_cache_size_ratio=0\n");
  l = resolve_op_cache_limits(*env.options, d.path());
  EXPECT_EQ(l.max_size_mb, 800);
  EXPECT_FALSE(l.warnings.empty());
}

}  // namespace
}  // namespace openge::paths
