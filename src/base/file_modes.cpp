#include "base/file_modes.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace openge {
namespace fs = std::filesystem;

Status make_directories(const std::string& dir, mode_t mode) {
  if (dir.empty()) return invalid_argument("the folder path is empty");
  // The folders to create, innermost first: every ancestor that does not exist yet.
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const std::string path = it->string();
    if (path.empty() || path.back() == '/') continue;  // "a/" normalises to a trailing empty name
    if (::mkdir(path.c_str(), mode) != 0) {
      if (errno == EEXIST) continue;  // made meanwhile by another process: its mode is its own
      return io_error(path + ": cannot create the folder: " + std::strerror(errno) +
                      (errno == ENOSPC ? " (free some disk space)" : ""));
    }
    OPENGE_RETURN_IF_ERROR(set_mode(path, mode));
  }
  if (!fs::is_directory(dir, ec)) return io_error(dir + ": is not a folder");
  return Status::Ok();
}

Status set_mode(const std::string& path, mode_t mode) {
  if (::chmod(path.c_str(), mode) != 0) return io_error(path + ": cannot set its mode: " + std::strerror(errno));
  return Status::Ok();
}

Status set_mode(int fd, const std::string& path, mode_t mode) {
  if (::fchmod(fd, mode) != 0) return io_error(path + ": cannot set its mode: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace openge
