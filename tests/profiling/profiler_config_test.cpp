// From the validated options to the profiler's switches (C.3 keys, PROF-1..4, ENV-12/13).
#include "profiling/profiler_config.h"

#include "options/option_builder.h"
#include <set>

#include "profiling_test_util.h"

namespace openge::profiling {
namespace {
using namespace testing;

TEST(ProfilerConfig, TaskTraceLevels) {  // task_trace-2..6
  auto level = [](const char* json) { return profiler_config_from_json(json, "/tmp").value().task_level; };
  EXPECT_EQ(level("{}"), TaskLevel::kL1);
  EXPECT_EQ(level(R"({"task_trace":"on"})"), TaskLevel::kL1);
  EXPECT_EQ(level(R"({"task_trace":"l0"})"), TaskLevel::kL0);
  EXPECT_EQ(level(R"({"task_time":"off"})"), TaskLevel::kOff);
  EXPECT_EQ(level(R"({"task_time":"l1"})"), TaskLevel::kL1);
}

TEST(ProfilerConfig, SwitchesAndValues) {
  auto c = profiler_config_from_json(
      R"({"aicpu":"maybe","msproftx":"on","runtime_api":"on","aic_metrics":"Custom:0x49,8","storage_limit":"250MB",
          "host_sys":"cpu","host_sys_usage":"mem","host_sys_usage_freq":"10","fp_point":"a","bp_point":"b"})",
      "/tmp");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->aicpu);  // aicpu-2: anything but on is off
  EXPECT_TRUE(c->msproftx);
  EXPECT_TRUE(c->runtime_api);
  EXPECT_EQ(c->aic_metrics, "Custom");
  EXPECT_EQ(c->aic_custom_registers, (std::vector<int>{0x49, 8}));
  EXPECT_EQ(*c->storage_limit_mb, 250u);
  EXPECT_TRUE(c->host_cpu);
  EXPECT_TRUE(c->host_mem);
  EXPECT_EQ(c->host_sys_usage_freq, 10);
  EXPECT_EQ(c->fp_point, "a");
  EXPECT_EQ(c->bp_point, "b");
}

TEST(ProfilerConfig, KeysWithoutCpuMeaningAreRecordedWithAReason) {  // AMB-1
  auto c = profiler_config_from_json(R"({"hccl":"on","dvpp_freq":"10","sys_io_sampling_freq":"5","l2":"off"})", "/tmp");
  ASSERT_TRUE(c.ok());
  std::set<std::string> keys;
  for (const auto& [k, why] : c->no_cpu_effect) {
    keys.insert(k);
    EXPECT_FALSE(why.empty());
  }
  // hccl and sys_io_sampling_freq have their meaning: data-parallel training's collectives
  // (hccl_*.json) and the network interfaces' counters (nic.csv).
  EXPECT_EQ(keys, (std::set<std::string>{"dvpp_freq"}));
  EXPECT_TRUE(c->hccl);
  EXPECT_EQ(c->sys_io_sampling_freq, 5);
}

TEST(ProfilerConfig, FromEnvironmentUsesTheOutputKey) {  // PROF-1..4
  const std::string out = scratch_dir("cfg_env");
  options::OptionInputs in;
  in.env = {{"PROFILING_MODE", "true"},
            {"PROFILING_OPTIONS", R"({"output":")" + out + R"(","training_trace":"on","task_trace":"l0"})"}};
  in.cwd = out;
  auto set = options::build_option_set(in);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_TRUE(profiling_enabled(set.value()));
  auto c = profiler_config_from_options(set.value());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->output_dir, out);
  EXPECT_EQ(c->options_source, "PROFILING_OPTIONS");
  EXPECT_EQ(c->task_level, TaskLevel::kL0);
}

TEST(ProfilerConfig, FromWorkPathWhenNoOutput) {  // ENV-9/12
  const std::string work = scratch_dir("cfg_work");
  options::OptionInputs in;
  in.env = {
      {"PROFILING_MODE", "true"}, {"ASCEND_WORK_PATH", work}, {"PROFILING_OPTIONS", R"({"training_trace":"on"})"}};
  in.cwd = work;
  auto set = options::build_option_set(in);
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto c = profiler_config_from_options(set.value());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->output_dir, work + "/profiling_data");
}

TEST(ProfilerConfig, DisabledByDefault) {  // enable_profiling-1
  options::OptionInputs in;
  in.cwd = "/tmp";
  auto set = options::build_option_set(in);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_FALSE(profiling_enabled(set.value()));
}

}  // namespace
}  // namespace openge::profiling
