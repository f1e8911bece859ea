#include "io/file_lock.h"

#include "base/file_modes.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace openge {

Result<FileLock> FileLock::acquire(const std::string& lock_path, bool exclusive) {
  // Created with its mode set explicitly (whatever the umask); one that exists keeps its own.
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, kDataFileMode);
  if (fd >= 0) {
    Status moded = set_mode(fd, lock_path, kDataFileMode);
    if (!moded.ok()) {
      ::close(fd);
      return moded;
    }
  } else if (errno == EEXIST) {
    fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  }
  if (fd < 0) return io_error("cannot open the lock file " + lock_path + ": " + std::strerror(errno));
  while (::flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    return io_error("cannot lock " + lock_path + ": " + std::strerror(err));
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace openge
