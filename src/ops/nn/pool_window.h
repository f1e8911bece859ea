// The windows of the pooling ops, shared by their forward kernels (nn_pool.cpp) and their
// gradients (grad/pool_grad.cpp), so that a gradient visits exactly the taps its forward read.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/nn/nn_window.h"

namespace openge {

// Per spatial dim and output index: the valid window taps (first input index, how many, and
// how many taps fall inside input + pads, which count_include_pad divides by).
struct WindowTaps {
  std::vector<std::vector<int64_t>> first, count, padded_count;
};

WindowTaps window_taps(const WindowGeometry& g);

// Calls visit(out_index, first_offsets_per_dim, counts_per_dim, padded_taps) for each output
// position of one plane; the visitor walks the taps itself.
struct PlaneWalker {
  const WindowGeometry& g;
  const WindowTaps& taps;
  std::vector<int64_t> in_stride;

  PlaneWalker(const WindowGeometry& geom, const WindowTaps& t) : g(geom), taps(t), in_stride(geom.rank()) {
    int64_t p = 1;
    for (size_t d = g.rank(); d-- > 0;) {
      in_stride[d] = p;
      p *= g.input[d];
    }
  }

  // fn(input offset of tap) for every valid tap of output position `o` (multi-index).
  template <class Fn>
  void for_each_tap(const std::vector<int64_t>& o, Fn&& fn) const {
    const size_t r = g.rank();
    int64_t base = 0;
    for (size_t d = 0; d < r; ++d) {
      if (taps.count[d][static_cast<size_t>(o[d])] == 0) return;
      base += taps.first[d][static_cast<size_t>(o[d])] * in_stride[d];
    }
    int64_t j[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const size_t last = r - 1;
    const int64_t n_last = taps.count[last][static_cast<size_t>(o[last])];
    const int64_t step_last = g.dilations[last] * in_stride[last];
    while (true) {
      int64_t off = base;
      for (size_t d = 0; d < last; ++d) off += j[d] * g.dilations[d] * in_stride[d];
      for (int64_t t = 0; t < n_last; ++t) fn(off + t * step_last);
      size_t d = last;
      while (d-- > 0) {
        if (++j[d] < taps.count[d][static_cast<size_t>(o[d])]) break;
        j[d] = 0;
      }
      if (d == static_cast<size_t>(-1)) return;
    }
  }

  int64_t valid_taps(const std::vector<int64_t>& o) const {
    int64_t n = 1;
    for (size_t d = 0; d < g.rank(); ++d) n *= taps.count[d][static_cast<size_t>(o[d])];
    return n;
  }
  int64_t padded_taps(const std::vector<int64_t>& o) const {
    int64_t n = 1;
    for (size_t d = 0; d < g.rank(); ++d) n *= taps.padded_count[d][static_cast<size_t>(o[d])];
    return n;
  }
};

// Advances a multi-index `o` over `dims` in row-major order.
void odometer_next(std::vector<int64_t>& o, const std::vector<int64_t>& dims);

// The resolved window of MaxPool / AveragePool for input shape `x` (kernel_shape required).
Result<WindowGeometry> pool_geometry(const Attributes& attrs, const Shape& x);

}  // namespace openge
