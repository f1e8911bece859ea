// What the profiler collects, as plain data: tasks (one per executed node), iterations (one per
// run), host API calls and user markers. Times are nanoseconds of the steady clock; writers turn
// them into microseconds since the epoch with the collection's clock anchor (clock.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/dtype.h"
#include "openge/tensor.h"
#include "ops/layout/activation_format.h"

namespace openge {
struct CompiledNode;
}

namespace openge::profiling {

struct TensorDesc {
  DType dtype = DType::kUndefined;
  Shape shape;
  ActivationFormat format = ActivationFormat::kNchw;  // as stored (a channels-last region's NHWC / NC1HWC0)
  bool present = false;                               // false for an omitted optional input/output
};

// One executed node = one task on a stream (the run's lane; the second branch of a step has a
// stream of its own), or one MemSet task (atomic_clean_policy: `node` null).
struct TaskRecord {
  const CompiledNode* node = nullptr;  // the Executable outlives the iteration's flush
  uint32_t task_id = 0;                // position in the run (executor step); MemSets after the nodes
  uint32_t stream_id = 0;
  int64_t memset_bytes = 0;  // a MemSet's bytes
  int memset_before = -1;    // a MemSet's node (policy 1); -1: before the graph (policy 0)
  std::string memset_name;   // a MemSet's op name: "MemSet", or "<node>_MemSet" before one node
  int64_t start_ns = 0, end_ns = 0;
  int64_t block_num = 1;  // parallel chunks the task ran as
  // l1 only: the operator's basic information.
  std::vector<TensorDesc> inputs, outputs;
  // Hardware counters (aic_metrics), one per configured event; empty when unavailable.
  std::vector<uint64_t> counters;
  // l2=on: the L2Cache (last-level cache) events; empty when unavailable.
  std::vector<uint64_t> l2_counters;
};

// A host API call (runtime_api): model load, compile, run, copies.
struct ApiRecord {
  std::string name;  // e.g. "ModelLoad", "ModelCompile", "ModelExecute"
  int64_t start_ns = 0, end_ns = 0;
  uint64_t thread_id = 0;
};

// One batch of a training data pipeline (the data-preprocessing profile, dp_*.csv): when the
// step took it, how long gathering it took and how long the step waited for it.
struct DataBatchRecord {
  int64_t taken_ns = 0;
  int64_t gather_ns = 0, wait_ns = 0;
  int64_t samples = 0;
  int64_t cached = 0;  // batches ready in the pipeline's buffer when the step asked (0 or 1)
};

// A user marker (msproftx): a pushed/popped range or a single mark.
struct MarkerRecord {
  std::string message;
  int64_t start_ns = 0, end_ns = 0;  // equal for a mark
  bool is_range = true;
  uint64_t thread_id = 0;
  int depth = 0;  // nesting level of a range at push time
};

// One host sample (host_sys / host_sys_usage).
struct HostSample {
  int64_t time_ns = 0;
  double cpu_total_percent = -1;    // whole system; -1 = not sampled
  double cpu_process_percent = -1;  // this process
  double mem_used_percent = -1;     // whole system
  int64_t process_rss_kb = -1;
};

// One collective operation of data-parallel training (hccl_*.json, the communication lane, the
// step trace's reduce spans), as the communication thread ran it.
struct CollectiveRecord {
  std::string name;       // "allReduce", "broadcast", "barrier"
  std::string what;       // e.g. "gradient bucket 1"
  std::string algorithm;  // the MPI call that made it
  int bucket = -1;        // gradient bucket; -1 for the others
  int rank = 0, ranks = 1;
  int64_t step = 0;
  int64_t bytes = 0;
  int64_t start_ns = 0, end_ns = 0;
};

// One network interface between two samples (sys_io_sampling_freq): the NIC counters of
// /proc/net/dev as rates; data-parallel training's MPI traffic crosses them (lo on one host).
struct NicSample {
  int64_t time_ns = 0;
  std::string interface;
  double rx_mb_per_s = 0, tx_mb_per_s = 0;
  double rx_packets_per_s = 0, tx_packets_per_s = 0;
  double rx_error_percent = 0, rx_dropped_percent = 0, tx_error_percent = 0, tx_dropped_percent = 0;
};

struct IterationRecord {
  uint32_t model_id = 0;
  uint32_t iteration_id = 0;  // 1-based per model
  uint32_t stream_id = 0;     // lane: concurrent runs get different streams
  // The stream of the steps' second branches (runtime/branch_schedule.h); stream_id when the
  // model runs no two branches at once.
  uint32_t second_stream_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  int64_t previous_end_ns = -1;  // end of the model's previous iteration (-1: first)
  bool ok = true;
  std::vector<TaskRecord> tasks;
  std::vector<CollectiveRecord> collectives;  // data-parallel steps: the step's communication
};

}  // namespace openge::profiling
