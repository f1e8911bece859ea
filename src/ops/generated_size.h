// The size-limit policy (base/size_limit.h: one limit, max_tensor_bytes per session) as the ops
// use it before they allocate or plan: for outputs whose size comes from data (OneHot's depth,
// the random ops' shape attribute or input, window lengths, DFT lengths …), and for shapes an op
// plans before their dtype is at hand. A hostile model gets an error naming the limit instead of
// exhausting memory or overflowing shape arithmetic. No op keeps a limit of its own.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/size_limit.h"
#include "openge/dtype.h"
#include "openge/tensor.h"

namespace openge {

// nullopt when a tensor of this shape and dtype may be allocated under the calling thread's
// limit; else why not ("int64 tensor of shape [..] is too large: it would need N bytes, over the
// limit of M bytes per tensor (option max_tensor_bytes)", or "... has a negative dimension").
inline std::optional<std::string> generated_size_error(const Shape& shape, DType dtype) {
  const Status s = check_tensor_size(shape, dtype_size(dtype), std::string(dtype_name(dtype)) + " tensor");
  if (s.ok()) return std::nullopt;
  return s.message();
}

// The same policy for a shape whose dtype is not at hand (an op's planned output, an
// intermediate extent): dims < 0, "unknown until run time", are skipped, and the element count
// of the known dims must stay within the limit as if each element were one byte. That keeps
// the op's shape arithmetic far from overflow; run_infer (ops/node_eval.h) then checks
// every inferred output with its dtype.
inline Status check_known_extent(const Shape& shape, const std::string& what) {
  Shape known;
  for (int64_t d : shape)
    if (d >= 0) known.push_back(d);
  return check_tensor_size(known, 1, what);
}

}  // namespace openge
