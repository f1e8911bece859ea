// Writes Data Dump files on one background thread, so that a run only pays for copying the
// tensors out of its arena (docs/DECISIONS.md: why this is a thread of its own and not the
// OpenMP pool). The bytes waiting to be written are capped: past the cap, submit() waits.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dump/dump_file.h"
#include "openge/status.h"

namespace openge::dump {

struct DumpJob {
  std::string dir;   // created (missing parts 0700) before the file
  std::string file;  // file name inside `dir`
  DumpRecord record;
  bool stats = false;  // write `file`.csv with the statistics instead of the tensor file
  std::string text;    // when not empty: written as `file` instead of a tensor file
  // The memory of the record's copied tensors (StagingPool), released once the file is written.
  std::vector<std::shared_ptr<void>> holders;
};

class DumpWriter {
 public:
  static constexpr size_t kDefaultMaxPendingBytes = size_t{512} << 20;
  explicit DumpWriter(size_t max_pending_bytes = kDefaultMaxPendingBytes);
  ~DumpWriter();  // writes everything still queued
  DumpWriter(const DumpWriter&) = delete;
  DumpWriter& operator=(const DumpWriter&) = delete;

  void submit(DumpJob job);
  // Waits until every submitted job is written; the first write error, if any.
  Status flush();
  // The first write error so far (Ok while all went well).
  Status error() const;

 private:
  void loop();
  Status write(const DumpJob& job);
  Status make_dirs(const std::string& dir);

  const size_t max_pending_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable wake_writer_, wake_producers_;
  std::deque<DumpJob> queue_;
  size_t pending_bytes_ = 0;
  size_t in_progress_ = 0;
  bool stopping_ = false;
  Status error_;
  std::set<std::string> made_dirs_;  // touched by the writer thread only
  std::thread thread_;
};

size_t record_bytes(const DumpRecord& record);

}  // namespace openge::dump
