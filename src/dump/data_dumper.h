// The session's Data Dump and overflow detection (dump_config.*): one per Session while
// enable_dump or enable_dump_debug is True. Each run is an iteration (counted from 0, AMB-17);
// begin_iteration() gives the run's observer (executable.h RunObserver), which copies the
// selected tensors out of the run's arena and hands them to the background DumpWriter.
// Nothing of this exists when dumping is off: the executor's observer pointer stays null.
#pragma once
#include <atomic>
#include <ctime>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "dump/dump_config.h"
#include "dump/dump_writer.h"
#include "dump/staging_pool.h"
#include "runtime/executable.h"

namespace openge::dump {

class DataDumper {
 public:
  // `model_name`: the graph's name (the file's stem when it has none).
  DataDumper(DumpConfig config, std::string model_name);

  // The observer of the next run, or null when dump_step leaves that iteration out.
  std::unique_ptr<RunObserver> begin_iteration(const Executable& exe);
  // After the run: logs its overflows, rewrites the mixlist, and reports a write error.
  Status end_iteration(std::unique_ptr<RunObserver> observer);
  // Waits for every queued file; the first write error.
  Status flush() { return writer_.flush(); }

  const DumpConfig& config() const { return config_; }
  // <dump_path>/<YYYYmmddHHMMSS> of this session, or <YYYYmmddHHMMSS>_<pid> when another process
  // made the per-second folder first; claimed (created) on the first call.
  const std::string& session_dir() const;
  // The modify_mixlist file overflow detection writes (black-lists the op types that overflowed).
  std::string mixlist_path() const;

  // Used by the run observers.
  std::string iteration_dir(int64_t iteration) const;
  void submit(DumpJob job) { writer_.submit(std::move(job)); }

 private:
  friend class IterationObserver;
  DumpConfig config_;
  std::string model_name_;
  uint32_t model_id_;
  std::time_t started_;
  mutable std::once_flag session_dir_claimed_;
  mutable std::string session_dir_;
  std::atomic<int64_t> next_iteration_{0};
  std::mutex overflow_mutex_;
  std::set<std::string> overflow_op_types_;  // Ascend IR op types for the mixlist
  StagingPool staging_{DumpWriter::kDefaultMaxPendingBytes};
  DumpWriter writer_;
};

}  // namespace openge::dump
