// The self-contained HTML report (no network, no external script): top operators by total time,
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
};
struct ReportTask {
  std::string name, type, engine;
  double start_us = 0, dur_us = 0;  // start relative to the iteration's start
};
struct ReportData {
  std::string title;
  std::vector<ReportOp> ops;                               // per op name, over all iterations
  std::vector<std::pair<uint32_t, int64_t>> step_times;    // (iteration id, ns)
  std::vector<ReportTask> timeline;                        // one iteration
  std::string timeline_label;
  int64_t timeline_first_start_ns = 0;  // load_report_data: absolute start of the timeline's first task
};

std::string render_report_html(const ReportData& data, const std::vector<std::string>& files);

// Reads a collection folder's exported op_summary/step_trace CSVs back into report data
// (`openge profile-report DIR`). DIR may be the PROF_* folder or its output folder.
Result<ReportData> load_report_data(const std::string& dir);

}  // namespace openge::profiling
