// exp() for x <= 0 (what softmax-like kernels need after subtracting the maximum), written
// once for scalars and for 8-float vectors (GCC/Clang vector extensions): no libm call, no
// branches. Cephes' expf polynomial on x = n ln2 + r, |r| <= ln2/2; relative error below
// 2 ulp. Arguments below the smallest normal result give 0; NaN gives NaN.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace openge {

typedef float Float8 __attribute__((vector_size(32)));
typedef uint32_t UInt8x32 __attribute__((vector_size(32)));

// F is float or Float8, U the unsigned integer type of the same size.
template <class F, class U>
inline F exp_nonpositive_impl(F x) {
  const F kMin = F{} + -87.33654f;   // exp(kMin) ~ 2^-126, the smallest normal float
  const F xc = x < kMin ? kMin : x;  // NaN stays NaN (the comparison is false)
  // n = round(x / ln2), via the 1.5*2^23 trick: the low mantissa bits of `shifted` hold n,
  // which avoids a float-to-int conversion (undefined for NaN).
  const F shifted = xc * 1.44269504088896341f + 12582912.0f;
  const F n = shifted - 12582912.0f;
  F r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const U scale_bits = (std::bit_cast<U>(shifted) - 0x4B400000u + 127u) << 23;  // 2^n
  const F y = p * std::bit_cast<F>(scale_bits);
  return x < kMin ? F{} : y;
}

inline float exp_nonpositive(float x) { return exp_nonpositive_impl<float, uint32_t>(x); }
inline double exp_nonpositive(double x) { return std::exp(x); }

// out[i] = exp(x[i] - shift) for x[i] <= shift; out may be x.
inline void exp_shifted_row(const float* x, float* out, int64_t n, float shift) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Float8 v;
    std::memcpy(&v, x + i, sizeof v);
    const Float8 e = exp_nonpositive_impl<Float8, UInt8x32>(v - shift);
    std::memcpy(out + i, &e, sizeof e);
  }
  for (; i < n; ++i) out[i] = exp_nonpositive(x[i] - shift);
}
inline void exp_shifted_row(const double* x, double* out, int64_t n, double shift) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::exp(x[i] - shift);
}

}  // namespace openge
