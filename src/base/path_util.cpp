#include "base/path_util.h"

#include "base/file_modes.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace openge {
namespace fs = std::filesystem;

std::string resolve_against(const std::string& cwd, const std::string& p) {
  if (p.empty() || p[0] == '/' || cwd.empty()) return p;
  return (fs::path(cwd) / p).lexically_normal().string();
}

Status ensure_directory(const std::string& dir, bool create, Access access) {
  if (dir.empty()) return invalid_argument("the folder path is empty");
  std::error_code ec;
  auto st = fs::status(dir, ec);
  if (!fs::exists(st)) {
    if (!create) return io_error(dir + ": the folder does not exist (create it first)");
    OPENGE_RETURN_IF_ERROR(make_directories(dir, kFolderMode));
    st = fs::status(dir, ec);
  }
  if (!fs::is_directory(st)) return io_error(dir + ": is not a folder");
  const int mode = R_OK | W_OK | (access == Access::kReadWriteExecute ? X_OK : 0);
  if (::access(dir.c_str(), mode) != 0)
    return io_error(dir + ": the folder needs " +
                    (access == Access::kReadWriteExecute ? "read, write and execute" : "read and write") +
                    " permission for this user");
  return Status::Ok();
}

Status require_regular_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return io_error("cannot open " + what + " " + path + ": no such file");
  if (fs::is_directory(st)) return io_error(what + " " + path + " is a folder, not a file");
  if (!fs::is_regular_file(st))
    return io_error(what + " " + path + " is not a regular file (a FIFO, socket or device); give a file");
  return Status::Ok();
}

}  // namespace openge
