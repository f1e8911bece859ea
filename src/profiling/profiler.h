// The profiler of one session: collects tasks (every executed node) per iteration, host API
// calls (runtime_api), user markers (msproftx) and host samples, and writes CANN's collection
// folder PROF_<6 digits>_<17-digit timestamp>_<random>/ with device_<id>/, host/ and the exported
// timelines and summaries under mindstudio_profiler_output/ (docs/PROFILING.md).
//
// Usage (what Session does when profiling is on):
//   auto it = profiler.begin_iteration(exe.get(), exe->nodes().size());
//   auto out = exe->run(inputs, &stats, it.get());
//   profiler.end_iteration(std::move(it), out.ok());
// Iterations of concurrent runs record independently (no lock in the per-node hooks) and get
// different stream ids. Each iteration's files are written when it ends (end_iteration, after
// the run), so a process killed at any moment leaves every completed iteration readable by
// `openge profile-report`; they are synced to disk (fsync) at the end of an iteration at least
// a second after the last sync, and at finish(); host records and the HTML report follow at finish().
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "openge/status.h"
#include "profiling/clock.h"
#include "profiling/profiler_config.h"
#include "profiling/records.h"
#include "openge/profiling_report.h"
#include "runtime/executable.h"

namespace openge::profiling {

class StorageGuard;
class CounterSet;
class HostSampler;

class Profiler {
 public:
  // Creates the collection folder inside config.output_dir (which must exist and be writable),
  // atomically: a failure leaves no folder behind.
  static Result<std::unique_ptr<Profiler>> create(ProfilerConfig config);
  ~Profiler();  // finish(), errors ignored

  // One run of a compiled model: the recorder is the RunObserver to pass to Executable::run.
  class Iteration : public RunObserver {
   public:
    void on_node_start(size_t index, const CompiledNode& node) override;
    void on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                     const std::vector<const Tensor*>& outputs) override;
    void on_outputs_start() override;
    void on_outputs_end(size_t copied_bytes) override;
    void on_memset_start() override;
    void on_memset_end(int before_node, size_t bytes) override;

   private:
    friend class Profiler;
    IterationRecord record_;
    const Executable* model_ = nullptr;  // for the stored formats of its values
    TaskLevel level_ = TaskLevel::kL1;
    CounterSet* counters_ = nullptr;
    CounterSet* l2_counters_ = nullptr;
    int64_t chunks_at_start_ = 0;
    std::vector<char> on_second_;  // per node: in a step's second branch (its own stream)
    uint32_t memsets_ = 0;
    int64_t copy_start_ns_ = 0, copy_end_ns_ = 0;  // output hand-over (runtime_api "OutputCopy")
  };
  // `model` is the compiled model (its model id is assigned on first sight); it must outlive
  // the next flush().
  // The profiled model's name, for info.json and the report's header.
  void set_model_name(std::string name);
  std::unique_ptr<Iteration> begin_iteration(const Executable* model, size_t expected_tasks = 0);
  // A run left out of the profile (Session::pause_profiling): counted, so that the recorded
  // iterations keep their numbers.
  void skip_iteration(const Executable* model);
  // Closes the iteration; its files are written with the next batch.
  Status end_iteration(std::unique_ptr<Iteration> iteration, bool ok = true);

  // runtime_api: a host API call (recorded only when runtime_api=on).
  void record_api(const std::string& name, int64_t start_ns, int64_t end_ns);

  // msproftx: user markers on the calling thread (recorded only when msproftx=on). pop without
  // push is an error.
  void range_push(const std::string& message);
  Status range_pop();
  void mark(const std::string& message);

  // A collective of a data-parallel step (hccl_*.json with hccl=on; the timeline's communication
  // lane and the step trace's reduce spans always): it joins the iteration that ends next.
  void record_collective(CollectiveRecord collective);

  // A training batch's data-pipeline times (dp_*.csv of the iteration that takes it).
  void record_data_batch(const DataBatchRecord& batch);

  // Writes everything pending, the end info and the HTML report. Idempotent.
  Status flush();
  Status finish();

  const ProfilerConfig& config() const { return config_; }
  const std::string& collection_dir() const { return collection_dir_; }
  std::string output_dir() const;  // <collection>/mindstudio_profiler_output
  // Why hardware counters are unavailable ("" when they work or were not asked for).
  const std::string& counters_status() const;

 private:
  Profiler() = default;
  Status write_pending_locked();
  Status write_file_locked(const std::string& path, const std::string& contents);
  std::string info_json_locked() const;
  // nic.csv (sys_io_sampling_freq): one row per interface and sample.
  std::string nic_csv() const;

  ProfilerConfig config_;
  ClockAnchor anchor_;
  std::string collection_dir_;
  long pid_ = 0;
  std::string model_name_;
  std::mutex mutex_;
  std::map<const Executable*, uint32_t> model_ids_;
  std::map<uint32_t, std::string> fusion_op_per_model_;  // fusion_op CSV text ("" = no fusion)
  std::map<uint32_t, uint32_t> iterations_per_model_;
  std::map<uint32_t, int64_t> last_end_per_model_;
  std::vector<bool> streams_busy_;
  std::vector<IterationRecord> pending_;
  // The last iteration written and the host records its files hold: records that end after it
  // (a marker popped after the last run) are added to it, and its files rewritten, at finish().
  struct WrittenIteration {
    IterationRecord record;
    std::vector<ApiRecord> apis;
    std::vector<MarkerRecord> markers;
    std::vector<DataBatchRecord> batches;
    std::vector<HostSample> host;
  };
  std::unique_ptr<WrittenIteration> last_written_;
  std::vector<HostSample> requeued_host_;  // the host samples of an iteration written again
  std::vector<std::string> unsynced_;      // files written since the last sync_to_disk
  int64_t last_sync_ns_ = 0;
  std::vector<ApiRecord> apis_;
  std::vector<MarkerRecord> markers_;
  std::vector<DataBatchRecord> data_batches_;
  std::vector<CollectiveRecord> collectives_;                  // not yet in an iteration
  std::map<uint64_t, std::vector<MarkerRecord>> open_ranges_;  // per thread
  std::vector<std::string> written_;                           // exported files, for the report and tests
  std::vector<std::string> notes_;                             // recorded in the info file (dropped files, N/A reasons)
  std::unique_ptr<StorageGuard> storage_;
  std::unique_ptr<CounterSet> counters_;
  std::unique_ptr<CounterSet> l2_counters_;  // l2=on
  std::unique_ptr<HostSampler> host_;
  std::vector<HostSample> host_samples_;
  std::vector<NicSample> nic_samples_;
  std::vector<ReportTask> timeline_;  // the last written iteration, for the report
  std::string timeline_label_;
  bool finished_ = false;
  // Summary across iterations for the report: written when finishing.
  struct OpTotals {
    std::string type, engine;
    uint64_t count = 0;
    int64_t total_ns = 0;
    std::vector<std::pair<uint32_t, int64_t>> per_iteration_ns;  // (iteration, ns)
  };
  std::map<std::string, OpTotals> op_totals_;             // by op name
  std::vector<std::pair<uint32_t, int64_t>> step_times_;  // (iteration, ns)
};

}  // namespace openge::profiling
