// host_sys sampling from /proc and named fp_point/bp_point in the step trace.
#include <thread>

#include "profiling/exporters.h"
#include "profiling_test_util.h"

namespace openge::profiling {
namespace {
using namespace testing;

TEST(ProfilerHostSys, SamplesCpuAndMemoryFromProc) {  // host_sys-1, host_sys_usage_freq-1
  auto exe = compile_demo();
  auto cfg = profiler_config_from_json(R"({"host_sys":"cpu,mem","host_sys_usage_freq":"50","training_trace":"on"})",
                                       scratch_dir("host"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  profiled_runs(*p, *exe, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // several 20 ms periods
  profiled_runs(*p, *exe, 1);
  ASSERT_TRUE(p->finish().ok());
  const Csv cpu = parse_csv(read_text(p->output_dir() + "/host_cpu_usage.csv"));
  const Csv mem = parse_csv(read_text(p->output_dir() + "/host_mem_usage.csv"));
  EXPECT_GE(cpu.rows.size(), 3u);
  EXPECT_GE(mem.rows.size(), 3u);
  for (const auto& r : cpu.rows) {
    EXPECT_GE(num(r.at("Total Usage(%)")), 0.0);
    EXPECT_LE(num(r.at("Total Usage(%)")), 100.0 + 1e-6);
  }
  for (const auto& r : mem.rows) EXPECT_GT(num(r.at("Process RSS(KB)")), 0.0);
  // The samples also appear as counter events in the timelines.
  size_t counters = 0;
  for (int i = 1; i <= 2; ++i)
    for (const auto& e : check_trace(read_text(p->output_dir() + "/msprof_0_1_" + std::to_string(i) + ".json")))
      counters += e["ph"] == "C";
  EXPECT_GE(counters, 3u);
}

TEST(ProfilerStepTrace, NamedFpAndBpPoints) {  // fp_point-1, bp_point-1
  auto exe = compile_demo();
  ASSERT_GE(exe->nodes().size(), 3u);
  const std::string fp = exe->nodes()[1].node.name, bp = exe->nodes()[exe->nodes().size() - 2].node.name;
  auto cfg = profiler_config_from_json(
      R"({"training_trace":"on","aicpu":"on","fp_point":")" + fp + R"(","bp_point":")" + bp + R"("})",
      scratch_dir("fpbp"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  profiled_runs(*p, *exe, 1);
  ASSERT_TRUE(p->finish().ok());
  const Csv summary = parse_csv(read_text(p->output_dir() + "/op_summary_0_1_1.csv"));
  const Csv step = parse_csv(read_text(p->output_dir() + "/step_trace_0_1_1.csv"));
  const auto& s = step.rows.at(0);
  const auto& fp_row = summary.rows.at(1);
  const auto& bp_row = summary.rows.at(summary.rows.size() - 2);
  EXPECT_NEAR(num(s.at("FP Start(us)")), num(fp_row.at("Task Start Time(us)")), 1e-2);
  EXPECT_NEAR(num(s.at("BP End(us)")),
              num(bp_row.at("Task Start Time(us)")) + num(bp_row.at("Task Duration(us)")), 0.5);
  // Differences of absolute epoch microseconds parsed as doubles carry ~0.25 us of rounding.
  EXPECT_NEAR(num(s.at("FP to BP Time(us)")), num(s.at("BP End(us)")) - num(s.at("FP Start(us)")), 0.5);
  EXPECT_NEAR(num(s.at("Iteration Refresh(us)")), num(s.at("Iteration End(us)")) - num(s.at("BP End(us)")), 0.5);
}

}  // namespace
}  // namespace openge::profiling
