#include "io/stale_temporaries.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <mutex>
#include <set>

namespace openge {
namespace fs = std::filesystem;
namespace {

// Digits only, at most 9 of them (pids stay below 2^22 on Linux), so no overflow.
long parse_pid(const std::string& text) {
  if (text.empty() || text.size() > 9) return -1;
  long pid = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    pid = pid * 10 + (c - '0');
  }
  return pid > 0 ? pid : -1;
}

// A leftover of a dead process that this user may clean up: owned by this user (or run as root).
bool removable(const fs::path& path, long pid) {
  if (pid <= 0 || pid == ::getpid() || process_alive(pid)) return false;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  return st.st_uid == ::geteuid() || ::geteuid() == 0;
}

template <typename PidOf>
int remove_matching(const std::string& folder, PidOf pid_of) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    if (!removable(path, pid_of(path.filename().string()))) continue;
    std::error_code rm;
    if (fs::remove_all(path, rm) > 0 && !rm) ++removed;
  }
  return removed;
}

}  // namespace

long temporary_owner_pid(const std::string& name) {
  const size_t at = name.rfind(".tmp.");
  if (at == std::string::npos) return -1;
  return parse_pid(name.substr(at + 5));
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

int remove_dead_temporaries(const std::string& folder) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(folder.empty() ? "." : folder).second) return 0;
  }
  return remove_matching(folder.empty() ? "." : folder, temporary_owner_pid);
}

int remove_dead_temporaries_below(const std::string& root, int depth) {
  int removed = remove_matching(root.empty() ? "." : root, temporary_owner_pid);
  if (depth <= 0) return removed;
  std::error_code ec;
  for (fs::directory_iterator it(root.empty() ? "." : root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code kind;
    if (it->is_directory(kind) && !it->is_symlink(kind))
      removed += remove_dead_temporaries_below(it->path().string(), depth - 1);
  }
  return removed;
}

int remove_dead_prefixed_folders(const std::string& folder, const std::string& prefix) {
  return remove_matching(folder.empty() ? "." : folder, [&prefix](const std::string& name) -> long {
    if (name.rfind(prefix, 0) != 0) return -1;
    const size_t end = name.find('_', prefix.size());
    if (end == std::string::npos) return -1;
    return parse_pid(name.substr(prefix.size(), end - prefix.size()));
  });
}

}  // namespace openge
