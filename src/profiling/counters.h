// aic_metrics on a CPU (AMB-1): each metric set maps to CPU hardware events read with
// perf_event_open around every task, counting the thread that runs the executor (OpenMP worker
// threads are not counted; documented in docs/PROFILING.md). Where the kernel or the (virtual)
// machine exposes no counters, the columns stay and say N/A, and status() says why.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openge::profiling {

class CounterSet {
 public:
  // The set for an aic_metrics value ("PipeUtilization", ..., "Custom" with raw registers).
  static std::unique_ptr<CounterSet> open(const std::string& metric_set, const std::vector<int>& custom_registers);
  ~CounterSet();

  bool available() const { return group_fd_ >= 0; }
  const std::string& status() const { return status_; }  // "" when counting works
  const std::string& metric_set() const { return metric_set_; }
  const std::vector<std::string>& columns() const { return columns_; }  // op_summary PMU columns
  const std::vector<std::string>& event_names() const { return event_names_; }

  // Cumulative counts of every event of the set (empty when unavailable).
  void read(std::vector<uint64_t>& out) const;
  // Turns counts taken with read() into the increase since then (cleared when a read fails).
  void read_delta(std::vector<uint64_t>& start_then_delta) const;
  // One task's cells for columns(): deltas and ratios; N/A when unavailable.
  std::vector<std::string> cells(const std::vector<uint64_t>& deltas, int64_t duration_ns) const;

 private:
  CounterSet() = default;
  std::string metric_set_, status_;
  std::vector<std::string> event_names_, columns_;
  std::vector<int> fds_;
  int group_fd_ = -1;
  int kind_ = 0;  // index into the metric table
};

}  // namespace openge::profiling
