// The exported files of one iteration, as text: CANN's summaries (CSV, column sets of
// docs/FORMATS.md, "Profiling: summary CSVs") and timelines (Chrome trace event JSON, numeric ts). Pure functions of
// the records, so tests can check them without running a model.
#pragma once
#include <string>
#include <vector>

#include "profiling/clock.h"
#include "profiling/profiler_config.h"
#include "profiling/records.h"

namespace openge::profiling {

class CounterSet;
}  // namespace openge::profiling
namespace openge {
class Executable;
}
namespace openge::profiling {

struct ExportContext {
  const ProfilerConfig* config = nullptr;
  ClockAnchor anchor;                       // steady -> epoch, for the absolute CSV timestamps
  int64_t origin_ns = 0;                    // steady time of ts = 0 in the JSON timelines
  long pid = 0;                             // the profiled process
  const CounterSet* counters = nullptr;     // aic_metrics columns; null = no PMU columns
  const CounterSet* l2_counters = nullptr;  // l2=on: the L2Cache events
};

// "_{device_id}_{model_id}_{iter_id}" (PROF-6).
std::string file_suffix(int device_id, uint32_t model_id, uint32_t iteration_id);

// Step trace of one iteration (all times steady ns; -1 = not applicable).
struct StepTrace {
  int64_t fp_start = -1, bp_end = -1, iteration_end = 0, iteration_time = 0;
  int64_t fp_to_bp = -1, refresh = -1, data_aug_bound = -1;
};
StepTrace compute_step_trace(const IterationRecord& it, const ProfilerConfig& config);

// Whether a task appears in op_summary/op_statistic (PROF-13: AI CPU tasks only with aicpu=on).
bool in_op_summary(const TaskRecord& task, const ProfilerConfig& config);
// Task Wait Time: from the previous task's end on the stream (or the iteration's start).
int64_t task_wait_ns(const IterationRecord& it, size_t task_index);

std::vector<std::string> op_summary_header(const ProfilerConfig& config, const CounterSet* counters);
std::string op_summary_csv(const IterationRecord& it, const ExportContext& ctx);
std::string op_statistic_csv(const IterationRecord& it, const ExportContext& ctx);
std::string task_time_csv(const IterationRecord& it, const ExportContext& ctx);
std::string step_trace_csv(const IterationRecord& it, const ExportContext& ctx);
// dp_*.csv (docs/FORMATS.md, "Profiling: data preprocessing"): one row per batch a training step
// took from its data pipeline.
std::string data_preprocess_csv(const std::vector<DataBatchRecord>& batches, const ExportContext& ctx);
std::string aicpu_csv(const IterationRecord& it, const ExportContext& ctx);
// l2=on (PROF-20): per task the last-level cache read hit rate; N/A where no counters exist.
std::string l2_cache_csv(const IterationRecord& it, const ExportContext& ctx);
// PROF-19: every fused node of a compiled model with the model nodes it stands for and its
// memory; "" when no pass fused anything.
std::string fusion_op_csv(const Executable& exe, uint32_t model_id, int device_id);

std::string msprof_json(const IterationRecord& it, const std::vector<ApiRecord>& apis,
                        const std::vector<MarkerRecord>& markers, const std::vector<HostSample>& host,
                        const ExportContext& ctx);
std::string task_time_json(const IterationRecord& it, const ExportContext& ctx);
std::string step_trace_json(const IterationRecord& it, const ExportContext& ctx);
// hccl_{device}_{model}_{iter}.json (PROF-10, hccl=on): the step's collectives on this rank's
// communication lane, each with its bucket, bytes, ranks and the MPI call that made it.
std::string hccl_json(const IterationRecord& it, const ExportContext& ctx);

// Helpers shared with the report.
const char* task_type(const TaskRecord& task);  // "AI_CORE" / "AI_CPU"
const std::string& task_op_name(const TaskRecord& task);
const std::string& task_op_type(const TaskRecord& task);

}  // namespace openge::profiling
