// flock(2) on a lock file, held while the object lives. Processes and threads (each lock opens its
// own descriptor) exclude each other; a killed holder releases it with its descriptors. The
// operator compile cache and the AOE knowledge base serialise their writers with it.
#pragma once
#include <string>

#include "openge/status.h"

namespace openge {

class FileLock {
 public:
  static Result<FileLock> acquire(const std::string& lock_path, bool exclusive);
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace openge
