#include "compiler/op_cache_entry.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/file_modes.h"
#include "base/sha256.h"

namespace openge::compiler {
namespace fs = std::filesystem;

std::string manifest_text(const EntryManifest& m) {
  nlohmann::ordered_json j;
  j["key_digest"] = m.key_digest;
  j["kernel_name"] = m.kernel_name;
  j["so_size"] = m.so_size;
  j["so_sha256"] = m.so_sha256;
  return j.dump(1) + "\n";
}

std::string check_entry(const std::string& so_path, const std::string& manifest_path, const std::string& key_digest) {
  std::error_code ec;
  const bool have_so = fs::exists(so_path, ec);
  std::ifstream in(manifest_path, std::ios::binary);
  if (!in)
    return have_so ? "entry incomplete (shared object without manifest: its writer was interrupted)" : "not in cache";
  // A manifest is four fields (~250 bytes); a larger file is not one, and is not read whole.
  constexpr uintmax_t kMaxManifestBytes = 64 << 10;
  if (const uintmax_t size = fs::file_size(manifest_path, ec); !ec && size > kMaxManifestBytes)
    return "manifest corrupt (" + manifest_path + " is " + std::to_string(size) +
           " bytes, over the 64 KiB a manifest may have)";
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("key_digest") || !j["key_digest"].is_string() || !j.contains("so_size") ||
      !j["so_size"].is_number_integer() || !j.contains("so_sha256") || !j["so_sha256"].is_string())
    return "manifest corrupt (" + manifest_path + " is not a complete manifest)";
  if (j["key_digest"].get<std::string>() != key_digest)
    return "manifest belongs to another key (" + manifest_path + ")";
  if (!have_so) return "entry incomplete (shared object missing)";
  auto digest = sha256_file(so_path);
  if (!digest.ok()) return "entry unreadable (" + digest.status().message() + ")";
  const int64_t want = j["so_size"].get<int64_t>();
  if (digest->size < want)
    return "entry truncated (" + std::to_string(digest->size) + " of " + std::to_string(want) + " bytes)";
  if (digest->size != want)
    return "entry size differs (" + std::to_string(digest->size) + " bytes, manifest says " + std::to_string(want) +
           ")";
  if (digest->sha256 != j["so_sha256"].get<std::string>()) return "entry corrupt (SHA-256 differs from its manifest)";
  return "";
}

Status write_new_file(const std::string& path, const std::string& contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kDataFileMode);
  if (fd < 0) return io_error("cannot create " + path + ": " + std::strerror(errno));
  if (Status moded = set_mode(fd, path, kDataFileMode); !moded.ok()) {
    ::close(fd);
    ::unlink(path.c_str());
    return moded;
  }
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return io_error("cannot write " + path + ": " + std::strerror(err) +
                      (err == ENOSPC || err == EFBIG ? " (free some disk space)" : ""));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    return io_error("cannot write " + path + ": " + std::strerror(err));
  }
  return Status::Ok();
}

}  // namespace openge::compiler
