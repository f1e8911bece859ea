#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "base/file_modes.h"
#include "io/stale_temporaries.h"

namespace openge {

static_assert(kDataFileMode == 0640, "atomic_file.h's default mode is the data file mode");

Status write_file_atomically(const std::string& path, std::string_view contents, mode_t mode) {
  return write_file_atomically(path, std::vector<std::string_view>{contents}, mode);
}

Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces, mode_t mode) {
  // The first write of this process into a folder removes what killed writers left there.
  remove_dead_temporaries(std::filesystem::path(path).parent_path().string());
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return io_error("cannot create " + path + ": " + std::strerror(errno));
  if (Status moded = set_mode(fd, tmp, mode); !moded.ok()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return moded;
  }
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

Status sync_to_disk(const std::vector<std::string>& paths) {
  std::vector<std::string> folders;
  auto sync = [](const std::string& path, int flags) -> Status {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return Status::Ok();  // removed meanwhile (aged): nothing to sync
    if (fd < 0) return io_error("cannot open " + path + " to sync it: " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0)
      return io_error("cannot sync " + path + " to disk: " + std::strerror(err) +
                      (err == ENOSPC ? " (free some disk space)" : ""));
    return Status::Ok();
  };
  for (const std::string& p : paths) {
    OPENGE_RETURN_IF_ERROR(sync(p, O_RDONLY));
    std::string folder = std::filesystem::path(p).parent_path().string();
    if (folder.empty()) folder = ".";
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
  }
  for (const std::string& f : folders) OPENGE_RETURN_IF_ERROR(sync(f, O_RDONLY | O_DIRECTORY));
  return Status::Ok();
}

}  // namespace openge
