#include "base/file_backed_memory.h"

#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>

namespace openge {
namespace {

struct Mapping {
  uint64_t length = 0;
  std::string path;
  uint64_t offset = 0;
};

std::mutex g_mutex;
std::map<const char*, Mapping> g_mappings;  // by start address
// The same mappings by file: a FileConstant's lookup looks only at its own file's mappings, not
// at every weight of every model mapped.
std::multimap<std::string, const char*, std::less<>> g_by_path;

// Removes the by-file entry of the mapping starting at `start`, if there is one (lock held).
void drop_path_index(const char* start) {
  auto it = g_mappings.find(start);
  if (it == g_mappings.end()) return;
  auto [first, last] = g_by_path.equal_range(it->second.path);
  for (auto i = first; i != last; ++i)
    if (i->second == start) {
      g_by_path.erase(i);
      return;
    }
}

}  // namespace

void register_file_backed(const void* data, uint64_t length, std::string path, uint64_t offset) {
  if (!data || length == 0) return;
  const char* start = static_cast<const char*>(data);
  std::lock_guard<std::mutex> lock(g_mutex);
  drop_path_index(start);
  g_by_path.emplace(path, start);
  g_mappings[start] = Mapping{length, std::move(path), offset};
}

void unregister_file_backed(const void* data) {
  const char* start = static_cast<const char*>(data);
  std::lock_guard<std::mutex> lock(g_mutex);
  drop_path_index(start);
  g_mappings.erase(start);
}

std::optional<FileRange> find_file_backed(const void* data, uint64_t length) {
  if (!data || length == 0) return std::nullopt;
  const char* p = static_cast<const char*>(data);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_mappings.upper_bound(p);
  if (it == g_mappings.begin()) return std::nullopt;
  --it;
  const uint64_t start = static_cast<uint64_t>(p - it->first);
  if (start + length > it->second.length) return std::nullopt;
  return FileRange{it->second.path, it->second.offset + start, length};
}

const void* find_file_backed_memory(const std::string& path, uint64_t offset, uint64_t length) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto [first, last] = g_by_path.equal_range(path);
  for (auto i = first; i != last; ++i) {
    const Mapping& mapping = g_mappings.at(i->second);
    if (offset >= mapping.offset && length <= mapping.length && offset - mapping.offset <= mapping.length - length)
      return i->second + (offset - mapping.offset);
  }
  return nullptr;
}

}  // namespace openge
