#include "profiling/storage_limit.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace openge::profiling {
namespace fs = std::filesystem;

uint64_t disk_free_bytes(const std::string& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return 0;
  return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

StorageGuard::StorageGuard(std::string root, uint64_t limit_bytes, uint64_t margin,
                           std::function<uint64_t()> free_bytes)
    : root_(std::move(root)), limit_(limit_bytes), margin_(margin), free_bytes_(std::move(free_bytes)) {
  if (!free_bytes_) free_bytes_ = [r = root_] { return disk_free_bytes(r); };
  if (limit_ == 0) {
    default_limit_ = true;
    limit_ = free_bytes_() / 10 * 9;  // storage_limit-4
  }
  // Profiling files already in the output folder (earlier collections) count and age first.
  std::error_code ec;
  std::vector<File> found;
  for (fs::directory_iterator d(root_, ec), end; !ec && d != end; d.increment(ec)) {
    if (!d->is_directory(ec) || d->path().filename().string().rfind("PROF_", 0) != 0) continue;
    for (fs::recursive_directory_iterator f(d->path(), ec), fend; !ec && f != fend; f.increment(ec)) {
      if (!f->is_regular_file(ec)) continue;
      const auto t = fs::last_write_time(f->path(), ec);
      found.push_back({static_cast<int64_t>(t.time_since_epoch().count()), f->path().string(),
                       static_cast<uint64_t>(f->file_size(ec))});
    }
  }
  std::sort(found.begin(), found.end(), [](const File& a, const File& b) { return a.mtime_ns < b.mtime_ns; });
  for (auto& f : found) {
    used_ += f.bytes;
    files_.push_back(std::move(f));
  }
}

bool StorageGuard::delete_oldest() {
  for (auto it = files_.begin(); it != files_.end(); ++it) {
    if (std::find(protected_.begin(), protected_.end(), it->path) != protected_.end()) continue;
    std::error_code ec;
    fs::remove(it->path, ec);
    used_ -= std::min(used_, it->bytes);
    deleted_.push_back(it->path);
    files_.erase(it);
    return true;
  }
  return false;
}

bool StorageGuard::reserve(uint64_t bytes) {
  // storage_limit-2: age when the remaining room would be <= margin, or the disk's free space would.
  auto fits = [&] {
    const bool under_limit = used_ + bytes + margin_ <= limit_;
    const uint64_t free_now = free_bytes_();
    const bool disk_ok = free_now >= bytes + margin_;
    return under_limit && disk_ok;
  };
  while (!fits())
    if (!delete_oldest()) return false;
  return true;
}

void StorageGuard::added(const std::string& path, uint64_t bytes) {
  used_ += bytes;
  files_.push_back({0, path, bytes});
}

std::string StorageGuard::why_full(uint64_t bytes) const {
  const uint64_t free_now = free_bytes_();
  if (free_now < bytes + margin_)
    return "the disk holding " + root_ + " has " + std::to_string(free_now / kMiB) + " MB free, under the " +
           std::to_string(margin_ / kMiB) + " MB profiling keeps free (free some disk space)";
  return "storage_limit of " + std::to_string(limit_ / kMiB) + " MB reached (raise storage_limit)";
}

std::string StorageGuard::describe() const {
  return std::string(default_limit_ ? "90% of the free disk space (storage_limit unset): " : "storage_limit: ") +
         std::to_string(limit_ / kMiB) + " MB, aged (deleted oldest first) " + std::to_string(deleted_.size()) +
         " files";
}

}  // namespace openge::profiling
