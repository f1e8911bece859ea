// host_sys sampling from /proc and named fp_point/bp_point in the step trace.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
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

// host_sys_usage is the whole system: every process of /proc, not only this one. A child that
// spins on a core shows up under its own pid with a CPU share; the init process and this one are
// listed too, each with its resident memory.
TEST(ProfilerHostSys, OPT_profiling_config_profiling_options_host_sys_usage_1_SamplesEveryProcessOfTheSystem) {
  auto exe = compile_demo();
  auto cfg = profiler_config_from_json(
      R"({"host_sys_usage":"cpu,mem","host_sys_usage_freq":"20","training_trace":"on"})", scratch_dir("sys_usage"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  const pid_t spinner = ::fork();
  ASSERT_GE(spinner, 0);
  if (spinner == 0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
    volatile uint64_t n = 0;
    while (std::chrono::steady_clock::now() < end) n = n + 1;
    ::_exit(0);
  }
  profiled_runs(*p, *exe, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // about ten 50 ms periods
  profiled_runs(*p, *exe, 1);
  int wstatus = 0;
  ::waitpid(spinner, &wstatus, 0);
  ASSERT_TRUE(p->finish().ok());
  const Csv cpu = parse_csv(read_text(p->output_dir() + "/host_sys_usage_cpu.csv"));
  const Csv mem = parse_csv(read_text(p->output_dir() + "/host_sys_usage_mem.csv"));
  std::map<long, double> peak_cpu;
  for (const auto& r : cpu.rows) {
    const long pid = std::stol(r.at("PID"));
    peak_cpu[pid] = std::max(peak_cpu[pid], num(r.at("CPU Usage(%)")));
  }
  ASSERT_TRUE(peak_cpu.count(spinner)) << "the spinning child is not sampled";
  // Busy for whole periods: a clear share of all CPUs' time even on a machine shared tenfold
  // (a sleeping process shows 0).
  EXPECT_GT(peak_cpu[spinner], 100.0 / static_cast<double>(std::thread::hardware_concurrency()) / 10);
  EXPECT_TRUE(peak_cpu.count(::getpid()));
  std::map<long, int64_t> rss;
  for (const auto& r : mem.rows) rss[std::stol(r.at("PID"))] = std::stoll(r.at("RSS(KB)"));
  EXPECT_GT(rss[::getpid()], 0);
  EXPECT_GE(rss.size(), 2u) << "only one process sampled";
  EXPECT_TRUE(rss.count(1) || rss.size() >= 3) << "the system's other processes are missing";
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
  EXPECT_NEAR(num(s.at("BP End(us)")), num(bp_row.at("Task Start Time(us)")) + num(bp_row.at("Task Duration(us)")),
              0.5);
  // Differences of absolute epoch microseconds parsed as doubles carry ~0.25 us of rounding.
  EXPECT_NEAR(num(s.at("FP to BP Time(us)")), num(s.at("BP End(us)")) - num(s.at("FP Start(us)")), 0.5);
  EXPECT_NEAR(num(s.at("Iteration Refresh(us)")), num(s.at("Iteration End(us)")) - num(s.at("BP End(us)")), 0.5);
}

}  // namespace
}  // namespace openge::profiling
