// What the profiler collects and where it writes, derived once from the validated OptionSet
// (profiling_config.* / PROFILING_MODE / PROFILING_OPTIONS). Validation of the JSON itself lives
// in options/profiling_options.h; this file only turns the accepted values into typed switches.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "openge/status.h"
#include "options/option_set.h"
#include "options/profiling_options.h"

namespace openge::profiling {

// task_trace / task_time (OPT-...task_trace-1..6): on == l1.
enum class TaskLevel { kOff, kL0, kL1 };

struct ProfilerConfig {
  std::string output_dir;          // the folder PROF_* collection folders go into (absolute)
  std::string output_rule;         // which tier of the path chain chose it
  bool create_output_dir = false;  // ASCEND_WORK_PATH/profiling_data: the work path's own subfolder, made on demand
  int device_id = 0;
  TaskLevel task_level = TaskLevel::kL1;
  bool training_trace = false;     // fills FP/BP columns of step_trace (DISC-11)
  std::string fp_point, bp_point;  // "" = automatic (first / last task of the iteration)
  bool hccl = false;               // hccl_*.json of the collectives (PROF-10)
  bool aicpu = false;              // AI CPU rows in op_summary/op_statistic + aicpu_*.csv (PROF-13)
  bool runtime_api = false;        // host API records (load, compile, run) on the CANN layer
  bool msproftx = false;           // user markers (range push/pop, mark)
  bool l2 = false;
  std::string aic_metrics = "PipeUtilization";
  std::vector<int> aic_custom_registers;     // aic_metrics=Custom:...
  std::optional<uint64_t> storage_limit_mb;  // unset: 90 % of the free disk space
  // How close to the limit (or to a full disk) aging starts: 20 MB as CANN; tests use less so
  // that a long run fits in a small folder.
  uint64_t storage_margin_bytes = 20ull * 1024 * 1024;
  std::optional<uint64_t> storage_limit_bytes_override;  // tests: a limit below the 200 MB minimum
  bool host_cpu = false, host_mem = false;               // host_sys / host_sys_usage
  bool sys_usage_cpu = false, sys_usage_mem = false;     // host_sys_usage: every process of the system too
  int host_sys_usage_freq = 50;                          // Hz
  int sys_io_sampling_freq = 0;                          // Hz of the NIC samples (nic.csv); 0: none
  // Keys accepted and recorded but with no CPU analogue (AMB-1): key -> why.
  std::vector<std::pair<std::string, std::string>> no_cpu_effect;
  options::ProfilingOptions raw;  // every key as the user wrote it (recorded in the info file)
  std::string options_source;     // "PROFILING_OPTIONS", "profiling_config.profiling_options", or ""
};

// True when profiling_config.enable_profiling (or PROFILING_MODE=true) is on.
bool profiling_enabled(const options::OptionSet& options);

// The switches of an enabled profiling configuration, with the output folder resolved by the
// profiling path chain (output > ASCEND_WORK_PATH/profiling_data; ENV-9..13). An error when no
// output folder can be determined (ENV-13).
Result<ProfilerConfig> profiler_config_from_options(const options::OptionSet& options);

// The same switches from a profiling_options JSON text (already validated) and an output
// folder; for tools and tests that have no OptionSet.
Result<ProfilerConfig> profiler_config_from_json(std::string_view json_text, const std::string& output_dir,
                                                 int device_id = 0);

const char* task_level_name(TaskLevel level);  // "off", "l0", "l1"

}  // namespace openge::profiling
