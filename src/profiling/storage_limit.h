// storage_limit (OPT-profiling_config.profiling_options.storage_limit-1..4): the profiling files
// in the output folder stay under a limit. Before a file is written, when the files would come
// within `margin` (20 MB) of the limit, or the disk's free space would drop to `margin`, the
// oldest profiling files are deleted first. Without the option the limit is 90 % of the disk's
// free space when collection starts. A file that still does not fit is not written (the caller
// records that in the info file), so the limit is never exceeded.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::profiling {

class StorageGuard {
 public:
  static constexpr uint64_t kMiB = 1024 * 1024;
  static constexpr uint64_t kDefaultMargin = 20 * kMiB;

  // `root`: the output folder; its existing PROF_* files count and may be aged. `limit_bytes`
  // 0 = 90 % of the free space now. `free_bytes` reports the disk's free space (tests pass a fake).
  StorageGuard(std::string root, uint64_t limit_bytes, uint64_t margin = kDefaultMargin,
               std::function<uint64_t()> free_bytes = {});

  // Makes room for `bytes` more; false when even deleting every older file does not.
  bool reserve(uint64_t bytes);
  // Records a file just written (the newest).
  void added(const std::string& path, uint64_t bytes);
  // Files that must never be aged (the current collection's metadata).
  void protect(const std::string& path) { protected_.push_back(path); }

  uint64_t used() const { return used_; }
  uint64_t limit() const { return limit_; }
  const std::vector<std::string>& deleted() const { return deleted_; }
  std::string describe() const;  // for the info file
  // Why `bytes` more do not fit after reserve() failed: the free space of the disk holding the
  // output folder (named, with the bytes free) or the limit, whichever is short.
  std::string why_full(uint64_t bytes) const;

 private:
  struct File {
    int64_t mtime_ns;
    std::string path;
    uint64_t bytes;
  };
  bool delete_oldest();
  std::string root_;
  uint64_t limit_ = 0, margin_ = 0, used_ = 0;
  std::function<uint64_t()> free_bytes_;
  std::deque<File> files_;  // oldest first
  std::vector<std::string> protected_, deleted_;
  bool default_limit_ = false;
};

// Free bytes on the file system holding `path` (0 when unknown).
uint64_t disk_free_bytes(const std::string& path);

}  // namespace openge::profiling
