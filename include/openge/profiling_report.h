// The self-contained HTML report (no network, no external script): top operators by steady median,
// time by op type and by engine, per-iteration step times and a timeline of one iteration.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "openge/status.h"

namespace openge::profiling {

struct ReportOp {
  std::string name, type, engine;
  uint64_t count = 0;
  int64_t total_ns = 0;
  std::vector<std::pair<uint32_t, int64_t>> per_iteration_ns;  // (iteration id, the op's time in it)
};
// Iteration 1 compiles and warms up, so an op's figures are taken over iterations 2..N;
// a collection of one iteration has no steady state and reports that one (steady_iterations 0).
struct OpSteadyStats {
  int64_t first_ns = -1;  // iteration 1 (-1: the op did not run in it)
  int64_t median_ns = 0, min_ns = 0;
  size_t steady_iterations = 0;
};
OpSteadyStats steady_stats(const ReportOp& op);
// The ops ordered by their steady median, largest first.
std::vector<std::pair<ReportOp, OpSteadyStats>> ops_by_steady_median(const std::vector<ReportOp>& ops);
// Median step time over iterations 2..N (iteration 1 when it is the only one); 0 without steps.
int64_t steady_median_step_ns(const std::vector<std::pair<uint32_t, int64_t>>& step_times);
struct ReportTask {
  std::string name, type, engine;
  double start_us = 0, dur_us = 0;  // start relative to the iteration's start
};
struct ReportData {
  std::string title;
  std::string folder;  // load_report_data: the folder the summaries were read from
  std::string model;   // the profiled model's name ("" when unknown)
  std::vector<std::pair<std::string, std::string>> options;  // the profiling options in effect
  std::vector<ReportOp> ops;                                 // per op name, over all iterations
  std::vector<std::pair<uint32_t, int64_t>> step_times;      // (iteration id, ns)
  std::vector<ReportTask> timeline;                          // one iteration
  std::string timeline_label;
  int64_t timeline_first_start_ns = 0;  // load_report_data: absolute start of the timeline's first task
};

std::string render_report_html(const ReportData& data, const std::vector<std::string>& files);

// Reads a collection folder's exported op_summary/step_trace CSVs back into report data
// (`openge profile-report DIR`). DIR may be the PROF_* folder, its output folder, or a folder
// holding exactly one PROF_* folder (the profiling output folder a run was given).
Result<ReportData> load_report_data(const std::string& dir);

}  // namespace openge::profiling
