// Aging of the compile cache (OPT-op_compiler_cache_mode-10..15, docs/FORMATS.md, "Compile cache"): when a SoC
// folder is over its size limit, entries unused for 30 minutes are deleted, least recently used
// first, until the folder is down to the kept share of the limit. Entries used more recently stay
// even when the folder remains over the limit (a compile in progress is never interrupted).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>
#include <vector>

#include "compiler/op_cache.h"
#include "compiler/op_cache_entry.h"
#include "io/file_lock.h"
#include "logging/log.h"
#include "paths/artifact_paths.h"

namespace openge::compiler {
namespace fs = std::filesystem;
namespace {

constexpr int64_t kOrphanTempSeconds = 60 * 60;  // a temporary file of another host: its writer is gone by then

struct EntryFiles {
  int64_t bytes = 0;
  fs::file_time_type last_used = fs::file_time_type::min();
  bool has_manifest = false;
  std::vector<fs::path> files;  // manifest first, so the entry disappears before its .so
};

int64_t seconds_since(fs::file_time_type t) {
  return std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - t).count();
}

// ".tmp.<host>.<pid>.<seq>.<digest>.<ext>": left by a writer that is gone (killed mid-write)?
bool abandoned_temp(const std::string& name, fs::file_time_type mtime) {
  const std::string host = paths::RunIds::current().host_id;
  const std::string prefix = ".tmp." + host + ".";
  if (name.rfind(prefix, 0) == 0) {
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  }
  return seconds_since(mtime) > kOrphanTempSeconds;
}

}  // namespace

Result<int> OpCache::age_entries() const {
  if (mode_ == CacheMode::kDisable) return 0;
  auto lock = FileLock::acquire((fs::path(root_) / ".op_cache.lock").string(), /*exclusive=*/true);
  if (!lock.ok()) return lock.status();

  std::map<std::string, EntryFiles> entries;  // by digest
  int64_t total = 0;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(soc_dir_, ec)) {
    if (!f.is_regular_file(ec)) continue;
    const std::string name = f.path().filename().string();
    const auto mtime = f.last_write_time(ec);
    const int64_t size = static_cast<int64_t>(f.file_size(ec));
    if (name.rfind(".tmp.", 0) == 0) {
      if (abandoned_temp(name, mtime))
        fs::remove(f.path(), ec);
      else
        total += size;
      continue;
    }
    EntryFiles& e = entries[f.path().stem().string()];
    e.bytes += size;
    total += size;
    if (f.path().extension() == ".json") {
      e.has_manifest = true;
      e.last_used = mtime;  // a hit touches the manifest
      e.files.insert(e.files.begin(), f.path());
    } else {
      if (!e.has_manifest) e.last_used = std::max(e.last_used, mtime);
      e.files.push_back(f.path());
    }
  }
  if (total <= limits_.max_bytes) return 0;

  const int64_t keep = limits_.max_bytes / 100 * limits_.remain_ratio_percent;
  std::vector<std::pair<fs::file_time_type, EntryFiles*>> unused;
  for (auto& [digest, e] : entries)
    if (seconds_since(e.last_used) >= limits_.unused_seconds) unused.push_back({e.last_used, &e});
  std::sort(unused.begin(), unused.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  int removed = 0;
  int64_t freed = 0;
  for (auto& [when, e] : unused) {
    if (total <= keep) break;
    for (const auto& p : e->files) fs::remove(p, ec);
    total -= e->bytes;
    freed += e->bytes;
    ++removed;
  }
  OPENGE_LOG_INFO("TEFUSION", "compile cache " + soc_dir_ + " over its limit of " +
                                  std::to_string(limits_.max_bytes >> 20) + " MB (" + limits_.rule +
                                  "): " + std::to_string(removed) + " entries unused for " +
                                  std::to_string(limits_.unused_seconds / 60) + " minutes aged (" +
                                  std::to_string(freed) + " bytes), " + std::to_string(total) + " bytes remain");
  if (total > limits_.max_bytes)
    OPENGE_LOG_WARNING("TEFUSION", "compile cache " + soc_dir_ +
                                       " stays over its limit: the remaining entries were used "
                                       "in the last " +
                                       std::to_string(limits_.unused_seconds / 60) + " minutes");
  return removed;
}

}  // namespace openge::compiler
