#include "base/file_backed_memory.h"

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

}  // namespace

void register_file_backed(const void* data, uint64_t length, std::string path, uint64_t offset) {
  if (!data || length == 0) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_mappings[static_cast<const char*>(data)] = Mapping{length, std::move(path), offset};
}

void unregister_file_backed(const void* data) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_mappings.erase(static_cast<const char*>(data));
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
  for (const auto& [start, mapping] : g_mappings)
    if (mapping.path == path && offset >= mapping.offset && length <= mapping.length &&
        offset - mapping.offset <= mapping.length - length)
      return start + (offset - mapping.offset);
  return nullptr;
}

}  // namespace openge
