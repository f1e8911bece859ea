#include "base/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace openge {
namespace {

struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxFree>;

std::string to_hex(const unsigned char* bytes, unsigned n) {
  static const char kHex[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (unsigned i = 0; i < n; ++i) {
    out[2 * i] = kHex[bytes[i] >> 4];
    out[2 * i + 1] = kHex[bytes[i] & 15];
  }
  return out;
}

Ctx new_sha256() {
  Ctx ctx(EVP_MD_CTX_new());
  if (ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) ctx.reset();
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_DigestFinal_ex(ctx, md, &n) != 1) return "";
  return to_hex(md, n);
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  Ctx ctx = new_sha256();
  if (!ctx || EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1) return "";
  return finish(ctx.get());
}

Result<FileDigest> sha256_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot read " + path + ": " + std::strerror(errno));
  Ctx ctx = new_sha256();
  FileDigest out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      return io_error("cannot read " + path + ": " + reason);
    }
    if (n == 0) break;
    out.size += n;
    if (ctx) EVP_DigestUpdate(ctx.get(), buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!ctx) return internal_error("OpenSSL could not start a SHA-256 digest for " + path);
  out.sha256 = finish(ctx.get());
  return out;
}

}  // namespace openge
