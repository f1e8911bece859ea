// Memory that shows a file: external weights (session/external_weights.h) say here which file
// each of their mappings shows, so that code below the session (graph dumps) can name a weight
// by its file, offset and length, as GE's FileConstant nodes do, without knowing who mapped it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace openge {

struct FileRange {
  std::string path;
  uint64_t offset = 0, length = 0;
};

// [data, data + length) shows `path` from `offset` on, until unregistered.
void register_file_backed(const void* data, uint64_t length, std::string path, uint64_t offset = 0);
void unregister_file_backed(const void* data);
// The file range of [data, data + length) when it lies inside one registered mapping.
std::optional<FileRange> find_file_backed(const void* data, uint64_t length);
// The memory of a registered mapping that shows [offset, offset + length) of `path`, or null:
// a FileConstant node (ops/generator/file_constant.h) reads its weight there rather than from
// the file again, so a weight stays one mapping however often the graph is compiled.
const void* find_file_backed_memory(const std::string& path, uint64_t offset, uint64_t length);

}  // namespace openge
