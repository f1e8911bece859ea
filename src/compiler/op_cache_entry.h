// One compile-cache entry on disk: the shared object, its manifest (the entry's commit record),
// and the check that they match (io/file_lock.h serialises writers of one cache folder).
#pragma once
#include <cstdint>
#include <string>

#include "openge/status.h"

namespace openge::compiler {

struct EntryManifest {
  std::string key_digest;   // KernelKey::digest()
  std::string kernel_name;  // for people reading the folder
  int64_t so_size = 0;
  std::string so_sha256;
};
std::string manifest_text(const EntryManifest& m);

// "" when the manifest at `manifest_path` exists, belongs to `key_digest` and describes the file
// at `so_path` exactly (size and SHA-256); otherwise why the entry cannot be used ("not in cache",
// "entry truncated (...)", ...).
std::string check_entry(const std::string& so_path, const std::string& manifest_path, const std::string& key_digest);

// Creates `path` (which must not exist) with `contents`; on any error removes it again.
Status write_new_file(const std::string& path, const std::string& contents);

}  // namespace openge::compiler
