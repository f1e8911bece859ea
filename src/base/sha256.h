// SHA-256 (OpenSSL's libcrypto) as lower-case hex: the compile cache's keys and its entries'
// manifests, and the sha256 of kernel_meta's .json (docs/FORMATS.md, "kernel_meta").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "openge/status.h"

namespace openge {

std::string sha256_hex(std::string_view data);

struct FileDigest {
  int64_t size = 0;
  std::string sha256;  // hex
};
// Reads the file in chunks (no size limit applies: nothing is held in memory).
Result<FileDigest> sha256_file(const std::string& path);

}  // namespace openge
