#include "ops/nn/pool_window.h"

#include "ops/nn/nn_common.h"

namespace openge {

WindowTaps window_taps(const WindowGeometry& g) {
  WindowTaps w;
  const size_t r = g.rank();
  w.first.resize(r);
  w.count.resize(r);
  w.padded_count.resize(r);
  for (size_t d = 0; d < r; ++d) {
    const int64_t out = g.output[d], in = g.input[d], dil = g.dilations[d], k = g.kernel[d];
    w.first[d].resize(static_cast<size_t>(out));
    w.count[d].resize(static_cast<size_t>(out));
    w.padded_count[d].resize(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * g.strides[d] - g.pad_begin[d];
      // taps j in [0, k): position start + j*dil; valid when inside [0, in)
      const int64_t j_lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
      const int64_t j_hi = std::min(k - 1, in - 1 - start < 0 ? -1 : (in - 1 - start) / dil);
      w.first[d][static_cast<size_t>(o)] = start + j_lo * dil;
      w.count[d][static_cast<size_t>(o)] = std::max<int64_t>(0, j_hi - j_lo + 1);
      // taps inside [-pad_begin, in + pad_end): the window is clipped at the padded border
      const int64_t p_lo = start >= -g.pad_begin[d] ? 0 : (-g.pad_begin[d] - start + dil - 1) / dil;
      const int64_t limit = in + g.pad_end[d] - 1 - start;
      const int64_t p_hi = std::min(k - 1, limit < 0 ? -1 : limit / dil);
      w.padded_count[d][static_cast<size_t>(o)] = std::max<int64_t>(0, p_hi - p_lo + 1);
    }
  }
  return w;
}

void odometer_next(std::vector<int64_t>& o, const std::vector<int64_t>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++o[d] < dims[d]) return;
    o[d] = 0;
  }
}

Result<WindowGeometry> pool_geometry(const Attributes& attrs, const Shape& x) {
  auto params = read_window_params(attrs, x.size() - 2, nullptr, true);
  if (!params.ok()) return params.status();
  return resolve_window(*params, spatial_dims(x));
}

}  // namespace openge
