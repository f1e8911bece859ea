// The size check for ops whose output size comes from data (OneHot's depth, the random ops'
// shape attribute or input, window lengths, DFT lengths …): such a size must be checked before
// anything is allocated for it, so a hostile model gets an error naming the node instead of
// exhausting memory.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "openge/dtype.h"
#include "openge/tensor.h"

namespace openge {

// size-limit: a local limit until the central size-limit policy (base/size_limit.h,
// check_tensor_size with its per-session max_tensor_bytes) is in the tree; then this function
// should forward to it. Same default as that policy: 4 GiB per tensor.
inline constexpr uint64_t kMaxGeneratedTensorBytes = uint64_t{4} << 30;

// nullopt when a tensor of this shape and dtype may be allocated; else why not ("shape
// [..] of int64 is N bytes, over the 4294967296-byte limit" or "negative dimension in [..]").
inline std::optional<std::string> generated_size_error(const Shape& shape, DType dtype) {
  const uint64_t elem = dtype_size(dtype) == 0 ? 1 : dtype_size(dtype);
  uint64_t bytes = elem;
  for (int64_t d : shape)
    if (d < 0) return "negative dimension in shape " + shape_to_string(shape);
  // The extent (product of the non-zero dims) must fit too, so an empty tensor cannot carry
  // dims whose products overflow the stride arithmetic of kernels.
  for (int64_t d : shape) {
    if (d == 0) continue;
    if (static_cast<uint64_t>(d) > kMaxGeneratedTensorBytes / bytes)
      return "shape " + shape_to_string(shape) + " of " + dtype_name(dtype) + " is over the " +
             std::to_string(kMaxGeneratedTensorBytes) + "-byte limit of one tensor";
    bytes *= static_cast<uint64_t>(d);
  }
  return std::nullopt;
}

}  // namespace openge
