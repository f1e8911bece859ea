// Sources and precedence: flag (and C++ API) > options file > environment > default, in every
// combination of set and unset sources; the environment comes only from the map given.
#include <gtest/gtest.h>

#include "options_test_util.h"

namespace openge::options::test {
namespace {

TEST(OptSources, PrecedenceInEveryCombination) {
  // device_id is fed by ASCEND_DEVICE_ID, a file and a flag.
  TempDir d;
  const std::string file = d.file("o.py", "npu.global_options().device_id = 2\n");
  for (int mask = 0; mask < 8; ++mask) {
    const bool flag = mask & 4, in_file = mask & 2, env = mask & 1;
    Flags f;
    if (flag) f.push_back({"device_id", "3"});
    EnvMap e;
    if (env) e["ASCEND_DEVICE_ID"] = "1";
    auto r = build(f, e, in_file ? std::vector<std::string>{file} : std::vector<std::string>{});
    const std::string expect = flag ? "3" : in_file ? "2" : env ? "1" : "0";
    const Source src = flag ? Source::kFlag : in_file ? Source::kFile : env ? Source::kEnv : Source::kDefault;
    EXPECT_EQ(value_of(r, "device_id"), expect) << "mask " << mask;
    EXPECT_EQ(r.options->find("device_id")->source, src) << "mask " << mask;
  }
}

TEST(OptSources, AMB_2_ProfilingEnvVersusOptionsIsWholeObjectReplace) {
  auto r =
      build({{"profiling_options", R"({"output":"/a"})"}}, {{"PROFILING_OPTIONS", R"({"output":"/b","l2":"on"})"}});
  EXPECT_EQ(value_of(r, "profiling_config.profiling_options"), R"({"output":"/a"})");
  r = build({{"enable_profiling", "False"}}, {{"PROFILING_MODE", "true"}, {"ASCEND_WORK_PATH", "/w"}});
  EXPECT_EQ(value_of(r, "profiling_config.enable_profiling"), "False");
}

TEST(OptSources, LaterFilesAndFlagsWin) {
  TempDir d;
  const std::string a = d.file("a.json", R"({"deterministic": 0, "jit_compile": "true"})");
  const std::string b = d.file("b.py", "deterministic = 1\n");
  auto r = build({{"jit_compile", "false"}, {"jit_compile", "auto"}}, {}, {a, b});
  EXPECT_EQ(value_of(r, "deterministic"), "1");
  EXPECT_EQ(r.options->find("deterministic")->origin, b + ":1");
  EXPECT_EQ(value_of(r, "jit_compile"), "auto");
}

TEST(OptSources, EnvironmentComesOnlyFromTheMap) {
  ::setenv("ASCEND_WORK_PATH", "/from/process", 1);
  auto r = build({});
  EXPECT_EQ(value_of(r, "ASCEND_WORK_PATH"), "");
  r = build({}, {{"ASCEND_WORK_PATH", "/from/map"}});
  EXPECT_EQ(value_of(r, "ASCEND_WORK_PATH"), "/from/map");
  ::unsetenv("ASCEND_WORK_PATH");
}

TEST(OptSources, EmptyEnvironmentVariableCountsAsUnset) {
  auto r = build({}, {{"ASCEND_DEVICE_ID", ""}, {"AOE_MODE", ""}});
  EXPECT_EQ(value_of(r, "device_id"), "0");
  EXPECT_EQ(value_of(r, "aoe_config.aoe_mode"), "");
}

TEST(OptSources, EnvVarsOfTheIssueAreRead) {
  const EnvMap env = {{"PROFILING_MODE", "true"},
                      {"PROFILING_OPTIONS", R"({"output":"/p"})"},
                      {"ASCEND_WORK_PATH", "/w"},
                      {"NPU_COLLECT_PATH", "/n"},
                      {"ASCEND_PROCESS_LOG_PATH", "/l"},
                      {"ASCEND_CACHE_PATH", "/c"},
                      {"ASCEND_MAX_OP_CACHE_SIZE", "800"},
                      {"ASCEND_REMAIN_CACHE_SIZE_RATIO", "70"},
                      {"DUMP_GE_GRAPH", "2"},
                      {"DUMP_GRAPH_LEVEL", "3"},
                      {"DUMP_GRAPH_PATH", "/g"},
                      {"HCCL_EXEC_TIMEOUT", "1836"},
                      {"ASCEND_DEVICE_ID", "5"},
                      {"AOE_MODE", "2"}};
  auto r = build({}, env);
  ASSERT_TRUE(r.errors.empty()) << dump_errors(r);
  EXPECT_EQ(r.options->get("profiling_config.enable_profiling"), "True");
  EXPECT_EQ(r.options->get("profiling_config.profiling_options"), R"({"output":"/p"})");
  EXPECT_EQ(r.options->get("aoe_config.aoe_mode"), "2");
  EXPECT_EQ(r.options->device_id(), 5);
  for (const auto& [k, v] : env) {
    if (k.rfind("PROFILING", 0) == 0 || k == "AOE_MODE" || k == "ASCEND_DEVICE_ID") continue;
    EXPECT_EQ(r.options->get(k), v) << k;
    EXPECT_EQ(r.options->find(k)->source, Source::kEnv) << k;
  }
}

TEST(OptSources, EnvVarValuesAreValidated) {
  auto r = build({}, {{"ASCEND_REMAIN_CACHE_SIZE_RATIO", "0"},
                      {"ASCEND_DEVICE_ID", "x"},
                      {"DUMP_GE_GRAPH", "4"},
                      {"HCCL_EXEC_TIMEOUT", "17341"},
                      {"AOE_MODE", "3"},
                      {"PROFILING_MODE", "yes"},
                      {"ASCEND_MAX_OP_CACHE_SIZE", "0"}});
  EXPECT_EQ(r.errors.size(), 7u) << dump_errors(r);
  EXPECT_TRUE(has_error(r, "device_id", "from ASCEND_DEVICE_ID"));
}

TEST(OptSources, ImmutableSetKnowsWorkingDirectoryAndHome) {
  auto r = build({}, {{"HOME", "/home/u"}}, {}, false, "/data/dir");
  EXPECT_EQ(r.options->cwd(), "/data/dir");
  EXPECT_EQ(r.options->home(), "/home/u");
}

TEST(OptSources, BuildOptionSetReturnsEveryProblem) {
  OptionInputs in;
  in.flags = {{"deterministic", "9", "api"}, {"jit_compile", "never", "api"}};
  auto s = build_option_set(in);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("[deterministic]"), std::string::npos);
  EXPECT_NE(s.status().message().find("[jit_compile]"), std::string::npos);
}

}  // namespace
}  // namespace openge::options::test
