#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace openge {

Status write_file_atomically(const std::string& path, std::string_view contents) {
  return write_file_atomically(path, std::vector<std::string_view>{contents});
}

Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create " + path + ": " + std::strerror(errno));
  for (std::string_view piece : pieces) {
    size_t done = 0;
    while (done < piece.size()) {
      const ssize_t n = ::write(fd, piece.data() + done, piece.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        const std::string reason = std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        return io_error("cannot write " + path + ": " + reason + (errno == ENOSPC ? " (free some disk space)" : ""));
      }
      done += static_cast<size_t>(n);
    }
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    return io_error("cannot write " + path + ": " + reason);
  }
  return Status::Ok();
}

}  // namespace openge
