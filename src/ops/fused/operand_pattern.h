// How one input of a fused elementwise kernel lines up with its output: output element i reads
// input element (i / div) % mod. That covers the broadcasts vector-op chains use — a full
// tensor (div 1, mod = numel), a scalar (mod 1), a last-axis operand such as a bias (div 1,
// mod = its size), a per-channel or per-row operand ([C,1,1] on NCHW, [B,S,1] on [B,S,H]) —
// and lets the generated loop treat each input as constant or contiguous inside a block.
#pragma once
#include <cstdint>
#include <optional>

#include "openge/tensor.h"

namespace openge {

struct OperandPattern {
  int64_t div = 1;
  int64_t mod = 1;
};

// The pattern of an input of shape `in` broadcast (ONNX rules) to `out`, or nullopt when its
// non-broadcast dimensions are not one contiguous run (e.g. [C,1,W] on [N,C,H,W]).
inline std::optional<OperandPattern> operand_pattern(const Shape& in, const Shape& out) {
  if (in.size() > out.size()) return std::nullopt;
  const size_t pad = out.size() - in.size();
  int first = -1, last = -1;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t od = out[d], id = d < pad ? 1 : in[d - pad];
    if (od < 0 || id < 0) return std::nullopt;
    if (od == 1) {
      if (id != 1) return std::nullopt;
      continue;  // neutral
    }
    if (id == od) {
      if (first < 0)
        first = static_cast<int>(d);
      else if (last != static_cast<int>(d) - 1) {
        // a broadcast dimension larger than 1 between two matching ones?
        for (size_t k = static_cast<size_t>(last) + 1; k < d; ++k)
          if (out[k] != 1) return std::nullopt;
      }
      last = static_cast<int>(d);
    } else if (id != 1) {
      return std::nullopt;
    }
  }
  OperandPattern p;
  if (first < 0) return p;  // a scalar (every dimension broadcast)
  p.mod = 1;
  for (int d = first; d <= last; ++d) p.mod *= out[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(last) + 1; d < out.size(); ++d) p.div *= out[d];
  return p;
}

}  // namespace openge
