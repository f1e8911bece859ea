#include "base/size_limit.h"

#include <cstdio>
#include <limits>

namespace openge {
namespace {

// 0: no ScopedMaxTensorBytes on this thread.
thread_local uint64_t tls_limit = 0;

// "40000000000 bytes (37.3 GiB)".
std::string bytes_text(uint64_t bytes) {
  char buf[64];
  if (bytes >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, " (%.1f GiB)", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, " (%.1f MiB)", static_cast<double>(bytes) / (1 << 20));
  else
    buf[0] = '\0';
  return std::to_string(bytes) + " bytes" + buf;
}

constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// Product of the non-zero dims, or false on a negative dim or past `bound`.
bool extent_within(const std::vector<int64_t>& dims, uint64_t bound, uint64_t* extent, bool* has_zero) {
  uint64_t p = 1;
  *has_zero = false;
  for (int64_t d : dims) {
    if (d < 0) return false;
    if (d == 0) {
      *has_zero = true;
      continue;
    }
    if (p > bound / static_cast<uint64_t>(d)) return false;
    p *= static_cast<uint64_t>(d);
  }
  *extent = p;
  return true;
}

bool has_negative(const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (d < 0) return true;
  return false;
}

}  // namespace

uint64_t max_tensor_bytes() { return tls_limit ? tls_limit : kDefaultMaxTensorBytes; }

ScopedMaxTensorBytes::ScopedMaxTensorBytes(uint64_t limit) : previous_(tls_limit) {
  if (limit) tls_limit = limit;
}

ScopedMaxTensorBytes::~ScopedMaxTensorBytes() { tls_limit = previous_; }

std::string dims_to_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

Result<int64_t> checked_numel(const std::vector<int64_t>& dims) {
  if (has_negative(dims)) return invalid_model("shape " + dims_to_string(dims) + " has a negative dimension");
  uint64_t extent = 0;
  bool has_zero = false;
  if (!extent_within(dims, kInt64Max, &extent, &has_zero))
    return resource_exhausted("the element count of shape " + dims_to_string(dims) + " overflows int64");
  return has_zero ? int64_t{0} : static_cast<int64_t>(extent);
}

Result<uint64_t> checked_nbytes(const std::vector<int64_t>& dims, size_t elem_size) {
  auto numel = checked_numel(dims);
  if (!numel.ok()) return numel.status();
  const uint64_t e = elem_size ? elem_size : 1;
  if (static_cast<uint64_t>(*numel) > kInt64Max / e)
    return resource_exhausted("the byte size of shape " + dims_to_string(dims) + " overflows int64");
  return static_cast<uint64_t>(*numel) * elem_size;
}

Status check_tensor_size(const std::vector<int64_t>& dims, size_t elem_size, const std::string& what) {
  if (has_negative(dims)) return invalid_model(what + " has a negative dimension: " + dims_to_string(dims));
  const uint64_t limit = max_tensor_bytes();
  const uint64_t e = elem_size ? elem_size : 1;
  uint64_t extent = 0;
  bool has_zero = false;
  const bool fits = extent_within(dims, limit / e, &extent, &has_zero);
  if (fits) return Status::Ok();
  // Say how much it would have been, when that is a number at all.
  std::string need;
  auto bytes = checked_nbytes(dims, e);
  if (!bytes.ok())
    need = "a size that overflows int64";
  else if (*bytes == 0)
    need = "more than the limit for the product of its non-zero dims";
  else
    need = bytes_text(*bytes);
  return resource_exhausted(what + " of shape " + dims_to_string(dims) + " is too large: it would need " + need +
                            ", over the limit of " + bytes_text(limit) + " per tensor (option max_tensor_bytes)");
}

}  // namespace openge
