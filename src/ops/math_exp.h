// exp() for x <= 0 (what softmax-like kernels need after subtracting the maximum) written so
// the compiler vectorises the loops that call it: no libm call, no branches. Cephes' expf
// polynomial on x = n ln2 + r, |r| <= ln2/2; relative error below 2 ulp. Arguments below the
// smallest normal result give 0; NaN gives NaN.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace openge {

inline float exp_nonpositive(float x) {
  constexpr float kMin = -87.33654f;  // exp(kMin) ~ 2^-126, the smallest normal float
  const bool underflow = x < kMin;
  const float xc = underflow ? kMin : x;
  // n = round(x / ln2), via the 1.5*2^23 trick: the low mantissa bits of `shifted` hold n,
  // which avoids a float-to-int conversion (undefined for NaN).
  constexpr float kShift = 12582912.0f;
  const float shifted = xc * 1.44269504088896341f + kShift;
  const float n = shifted - kShift;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  uint32_t bits;
  std::memcpy(&bits, &shifted, 4);
  const uint32_t scale_bits = (bits - 0x4B400000u + 127u) << 23;  // 2^n as a float
  float scale;
  std::memcpy(&scale, &scale_bits, 4);
  return underflow ? 0.0f : p * scale;
}
inline double exp_nonpositive(double x) { return std::exp(x); }

}  // namespace openge
