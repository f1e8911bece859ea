// profiling_config.profiling_options / PROFILING_OPTIONS: the keys of spec C.3, their ranges at
// the boundaries, the product rules and the interactions.
#include <gtest/gtest.h>

#include "options/profiling_options.h"
#include "options_test_util.h"

namespace openge::options::test {
namespace {

struct Checked {
  std::vector<Problem> errors;
  std::vector<std::string> warnings;
  std::optional<ProfilingOptions> options;
};

Checked check(const std::string& json, const std::string& soc = "Ascend910B", int mode = 1) {
  Checked c;
  c.options = check_profiling_options(json, "profiling_options", ProfilingContext{soc, mode}, c.errors, c.warnings);
  return c;
}

bool ok(const std::string& json, const std::string& soc = "Ascend910B") { return check(json, soc).errors.empty(); }

std::string kv(const std::string& k, const std::string& v) { return "{\"" + k + "\":\"" + v + "\"}"; }

TEST(ProfOptions, PROF_3_EnvExampleOfThePageIsAcceptedVerbatim) {
  const std::string s3 =
      R"({"output":"/tmp/profiling","storage_limit": "xxMB","training_trace":"on","l2":"on","hccl":"on","task_trace":"on","aicpu":"on","fp_point":"","bp_point":"","aic_metrics":"PipeUtilization","msproftx":"on"})";
  auto r = build({}, {{"PROFILING_MODE", "true"}, {"PROFILING_OPTIONS", s3}});
  ASSERT_TRUE(r.errors.empty()) << dump_errors(r);
  EXPECT_EQ(value_of(r, "profiling_config.enable_profiling"), "True");
  EXPECT_EQ(r.options->find("profiling_config.enable_profiling")->source, Source::kEnv);
  EXPECT_EQ(r.options->find("profiling_config.profiling_options")->origin, "PROFILING_OPTIONS");
  EXPECT_TRUE(has_warning(r, "documentation placeholder"));
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_2_PageExampleAccepted) {
  const std::string s2 =
      R"({"output":"/tmp/profiling","training_trace":"on","fp_point":"resnet_model/conv2d/Conv2Dresnet_model/batch_normalization/FusedBatchNormV3_Reduce","bp_point":"gradients/AddN_70"})";
  auto r = build({{"profiling_config.enable_profiling", "True"}, {"profiling_config.profiling_options", s2}});
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
}

TEST(ProfOptions, UnknownKeyGetsDidYouMean) {
  auto c = check(R"({"trainng_trace":"on"})");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].parameter, "profiling_options.trainng_trace");
  EXPECT_NE(c.errors[0].reason.find("did you mean 'training_trace'"), std::string::npos);
}

TEST(ProfOptions, NotJsonOrNotAnObject) {
  EXPECT_FALSE(ok("{"));
  EXPECT_FALSE(ok("[1]"));
  EXPECT_FALSE(ok("\"x\""));
  EXPECT_FALSE(ok(R"({"output":["a"]})"));
  EXPECT_FALSE(ok(R"({"l2":true})"));
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_storage_limit_3_Range) {
  EXPECT_FALSE(ok(kv("storage_limit", "199MB")));
  EXPECT_TRUE(ok(kv("storage_limit", "200MB")));
  EXPECT_TRUE(ok(kv("storage_limit", "4294967295MB")));
  EXPECT_FALSE(ok(kv("storage_limit", "4294967296MB")));
  EXPECT_FALSE(ok(kv("storage_limit", "abcMB")));
}

TEST(ProfOptions, OnOffKeys) {
  for (const char* k : {"training_trace", "hccl", "l2", "msproftx", "runtime_api"}) {
    EXPECT_TRUE(ok(kv(k, "on"))) << k;
    EXPECT_TRUE(ok(kv(k, "off"))) << k;
    EXPECT_FALSE(ok(kv(k, "ON"))) << k;
    EXPECT_FALSE(ok(kv(k, "1"))) << k;
  }
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_task_trace_2_5_Values) {
  for (const char* k : {"task_trace", "task_time"})
    for (const char* v : {"on", "off", "l0", "l1"})
      EXPECT_TRUE(ok("{\"training_trace\":\"on\",\"" + std::string(k) + "\":\"" + v + "\"}")) << k << "=" << v;
  EXPECT_FALSE(ok(kv("task_trace", "l2")));
}

TEST(ProfOptions, AMB_22_TaskTraceAndTaskTimeMustAgree) {
  EXPECT_TRUE(ok(R"({"training_trace":"on","task_trace":"l0","task_time":"l0"})"));
  EXPECT_FALSE(ok(R"({"training_trace":"on","task_trace":"l0","task_time":"l1"})"));
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_training_trace_3_TaskTraceOnNeedsTrainingTrace) {
  EXPECT_FALSE(ok(R"({"task_trace":"on"})"));
  EXPECT_FALSE(ok(R"({"task_trace":"on","training_trace":"off"})"));
  EXPECT_TRUE(ok(R"({"task_trace":"on","training_trace":"on"})"));
  EXPECT_TRUE(check(R"({"task_trace":"on"})", "Ascend910B", 0).errors.empty());  // online inference
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_aicpu_2_OtherValuesAreOff) {
  auto c = check(kv("aicpu", "maybe"));
  EXPECT_TRUE(c.errors.empty());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("taken as off"), std::string::npos);
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_aic_metrics_1_8_NamedSets) {
  for (const char* v : {"ArithmeticUtilization", "PipeUtilization", "Memory", "MemoryL0", "MemoryUB",
                        "ResourceConflictRatio", "L2Cache"})
    EXPECT_TRUE(ok(kv("aic_metrics", v))) << v;
  EXPECT_FALSE(ok(kv("aic_metrics", "pipeutilization")));
  EXPECT_FALSE(ok(kv("aic_metrics", "L2Cache"), "Ascend910"));  // A2 only
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_aic_metrics_10_13_Custom) {
  EXPECT_TRUE(ok(kv("aic_metrics", "Custom:0x49,0x8,0x15,0x1b,0x64,0x10")));
  EXPECT_TRUE(ok(kv("aic_metrics", "Custom:73,8,21")));
  EXPECT_FALSE(ok(kv("aic_metrics", "Custom:0x49,0x8,0x15,0x1b,0x64,0x10,0x1,0x2,0x3")));
  EXPECT_FALSE(ok(kv("aic_metrics", "Custom:0x6F")));
}

TEST(ProfOptions, FrequencyRangesAtTheirBoundaries) {
  const std::tuple<const char*, int, int> kFreq[] = {
      {"sys_hardware_mem_freq", 1, 100},   {"sys_io_sampling_freq", 1, 100},
      {"sys_interconnection_freq", 1, 50}, {"dvpp_freq", 1, 100},
      {"host_sys_usage_freq", 1, 50},      {"instr_profiling_freq", 300, 30000}};
  for (const auto& [k, lo, hi] : kFreq) {
    // A copy: clang 14 cannot capture a structured binding in a lambda.
    auto json = [key = std::string(k)](int v) { return "{\"" + key + "\":" + std::to_string(v) + "}"; };
    EXPECT_FALSE(ok(json(lo - 1))) << k;
    EXPECT_TRUE(ok(json(lo))) << k;
    EXPECT_TRUE(ok(json((lo + hi) / 2))) << k;
    EXPECT_TRUE(ok(json(hi))) << k;
    EXPECT_FALSE(ok(json(hi + 1))) << k;
    EXPECT_TRUE(ok(kv(k, std::to_string(hi)))) << k << " as a string";
    EXPECT_FALSE(ok(kv(k, "fast"))) << k;
  }
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_instr_profiling_freq_2_A2Only) {
  EXPECT_TRUE(ok(R"({"instr_profiling_freq":300})", "Ascend910B"));
  EXPECT_FALSE(ok(R"({"instr_profiling_freq":300})", "Ascend910"));
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_instr_profiling_freq_3_ExclusiveWithTenKeys) {
  const char* kKeys[] = {"training_trace", "task_trace",  "hccl", "aicpu",     "fp_point",
                         "bp_point",       "aic_metrics", "l2",   "task_time", "runtime_api"};
  for (const char* k : kKeys) {
    const std::string v = std::string(k) == "aic_metrics"                     ? "Memory"
                          : std::string(k).find("point") != std::string::npos ? ""
                                                                              : "off";
    auto c = check("{\"instr_profiling_freq\":1000,\"" + std::string(k) + "\":\"" + v + "\"}");
    bool found = false;
    for (const auto& e : c.errors) found |= e.reason.find("cannot be collected together with " + std::string(k)) == 0;
    EXPECT_TRUE(found) << k;
  }
  EXPECT_TRUE(ok(R"({"instr_profiling_freq":1000,"output":"/tmp","host_sys":"cpu"})"));
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_host_sys_1_Values) {
  for (const char* k : {"host_sys", "host_sys_usage"}) {
    for (const char* v : {"cpu", "mem", "cpu,mem"}) EXPECT_TRUE(ok(kv(k, v))) << k << "=" << v;
    for (const char* v : {"gpu", "cpu,", "cpu mem", ""}) EXPECT_FALSE(ok(kv(k, v))) << k << "=" << v;
  }
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_llc_profiling_1_Values) {
  EXPECT_TRUE(ok(kv("llc_profiling", "read")));
  EXPECT_TRUE(ok(kv("llc_profiling", "write")));
  EXPECT_FALSE(ok(kv("llc_profiling", "rw")));
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_fp_point_2_EmptyMeansAuto) {
  EXPECT_TRUE(ok(R"({"fp_point":"","bp_point":""})"));
}

TEST(ProfOptions, ENV_13_ProfilingNeedsOutputOrWorkPath) {
  auto r = build({{"profiling_config.enable_profiling", "True"}});
  EXPECT_TRUE(has_error(r, "profiling_config.profiling_options", "needs an output folder"));
  EXPECT_TRUE(build({{"profiling_config.enable_profiling", "True"}}, {{"ASCEND_WORK_PATH", "/tmp"}}).errors.empty());
  EXPECT_TRUE(build({{"profiling_config.enable_profiling", "True"},
                     {"profiling_config.profiling_options", R"({"output":"/tmp"})"}})
                  .errors.empty());
  EXPECT_TRUE(build({}, {{"PROFILING_MODE", "true"}, {"PROFILING_OPTIONS", R"({"output":"/tmp"})"}}).errors.empty());
  EXPECT_FALSE(build({}, {{"PROFILING_MODE", "true"}}).errors.empty());
  EXPECT_TRUE(build({}, {{"PROFILING_MODE", "false"}}).errors.empty());
}

TEST(ProfOptions, OPT_profiling_config_profiling_options_output_2_MustExist) {
  TempDir d;
  auto r = build({{"profiling_config.enable_profiling", "True"},
                  {"profiling_config.profiling_options", "{\"output\":\"" + d.path() + "/none\"}"}},
                 {}, {}, true);
  EXPECT_TRUE(has_error(r, "profiling_config.profiling_options.output", "does not exist"));
}

TEST(ProfOptions, PROF_2_ErrorsInTheEnvVarNameTheVariable) {
  auto r = build({}, {{"PROFILING_OPTIONS", R"({"l2":"maybe"})"}});
  EXPECT_TRUE(has_error(r, "PROFILING_OPTIONS.l2", "must be on or off"));
}

}  // namespace
}  // namespace openge::options::test
