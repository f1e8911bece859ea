#include "base/float_convert.h"

#include <cstring>

#include "base/parallel.h"
#include "openge/half.h"

namespace openge {
namespace {

constexpr int64_t kConvertCost = 2;  // parallel_for's cost units per element

template <class Fn>
void for_chunks(int64_t n, Fn fn) {
  parallel_for(n, kConvertCost, [&](int64_t begin, int64_t end) { fn(begin, end); });
}

}  // namespace

void widen_to_float(const Tensor& src, float* dst) {
  const int64_t n = src.numel();
  switch (src.dtype()) {
    case DType::kFloat16: {
      const uint16_t* s = static_cast<const uint16_t*>(src.raw());
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] = half_bits_to_float(s[i]);
      });
      return;
    }
    case DType::kBFloat16: {
      const uint16_t* s = static_cast<const uint16_t*>(src.raw());
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] = bf16_bits_to_float(s[i]);
      });
      return;
    }
    default:
      std::memcpy(dst, src.raw(), static_cast<size_t>(n) * sizeof(float));
  }
}

void narrow_from_float(const float* src, Tensor& dst) {
  const int64_t n = dst.numel();
  switch (dst.dtype()) {
    case DType::kFloat16: {
      uint16_t* d = static_cast<uint16_t*>(dst.raw());
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) d[i] = float_to_half_bits(src[i]);
      });
      return;
    }
    case DType::kBFloat16: {
      uint16_t* d = static_cast<uint16_t*>(dst.raw());
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) d[i] = float_to_bf16_bits(src[i]);
      });
      return;
    }
    default:
      std::memcpy(dst.raw(), src, static_cast<size_t>(n) * sizeof(float));
  }
}

Tensor widened_copy(const Tensor& src) {
  Tensor out(DType::kFloat32, src.shape());
  widen_to_float(src, out.data<float>());
  return out;
}

Tensor converted_copy(const Tensor& src, DType dtype) {
  Tensor wide = src.dtype() == DType::kFloat32 ? src : widened_copy(src);
  if (dtype == DType::kFloat32) return wide.owns_storage() && wide.raw() != src.raw() ? wide : wide.clone();
  Tensor out(dtype, src.shape());
  narrow_from_float(wide.data<float>(), out);
  return out;
}

}  // namespace openge
