// Branch-free float versions of the activation functions BERT and CNNs spend time in (GELU's
// Erf, Tanh, Sigmoid): no libm calls and no conditional arithmetic, so the elementwise loops
// that call them vectorise. Accuracy: a few float ulp (Erf: absolute error below 3e-7), well
// inside what fp32 inference tolerates; double keeps the std:: functions.
//
// Why not ops/math/math_exp.h's exp_nonpositive: it ends in `underflow ? 0 : p * scale`, and under
// GCC's default -ftrapping-math a multiplication that sits in one arm of a conditional may not
// be executed speculatively, so loops calling it are not if-converted or vectorised. Here every
// value is computed unconditionally and chosen with bit masks (select()). The polynomial is the
// same Cephes expf one; if the build adds -fno-trapping-math, this can call exp_nonpositive.
//
// The file is self-contained (standard headers only): the online compiler pastes its text into
// the kernels it generates (compiler/fastmath_source.h, made from it by CMake), so a generated
// Sigmoid, Tanh or Erf computes what the reference kernel computes, and vectorises as well.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace openge::elementwise {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// c ? a : b on bit patterns; both sides already computed, so no branch is needed.
inline float select(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return bits_float((float_bits(a) & m) | (float_bits(b) & ~m));
}

// e^x for x <= 0 (NaN gives NaN; below the smallest normal result gives 0): x = n ln2 + r,
// |r| <= ln2/2, Cephes' degree-6 polynomial for e^r, 2^n built in the exponent bits.
inline float exp_nonpositive_branchless(float x) {
  constexpr float kMin = -87.33654f;  // e^kMin ~ 2^-126
  const bool underflow = x < kMin;
  const float xs = select(underflow, kMin, x);  // NaN is not < kMin, so it stays NaN
  constexpr float kShift = 12582912.0f;         // 1.5 * 2^23: adding it rounds to an integer
  const float shifted = xs * 1.44269504088896341f + kShift;
  const float n = shifted - kShift;
  float r = xs - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const float scale = bits_float((float_bits(shifted) - 0x4B400000u + 127u) << 23);
  return select(underflow, 0.0f, p * scale);
}

// 1 / (1 + e^-x), with e^-|x| so the exponential never overflows.
inline float fast_sigmoid(float x) {
  const float e = exp_nonpositive_branchless(-std::fabs(x));
  const float r = 1.0f / (1.0f + e);
  return select(x >= 0.0f, r, e * r);
}

// tanh|x| = (1 - e^-2|x|) / (1 + e^-2|x|); below 0.3 that cancels, so an odd Maclaurin series
// (next term < 1e-9 relative there) takes over.
inline float fast_tanh(float x) {
  const float a = std::fabs(x);
  const float e = exp_nonpositive_branchless(-2.0f * a);
  const float t = std::copysign((1.0f - e) / (1.0f + e), x);
  const float x2 = x * x;
  const float s =
      x +
      x * x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315 + x2 * (62.0f / 2835 + x2 * (-1382.0f / 155925)))));
  return select(a < 0.3f, s, t);
}

// Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7) for |x| >= 0.5; below, where relative
// accuracy matters, the Maclaurin series 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
inline float fast_erf(float x) {
  const float a = std::fabs(x);
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  const float poly =
      t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  const float tail = std::copysign(1.0f - poly * exp_nonpositive_branchless(-a * a), x);
  const float x2 = x * x;
  const float s =
      1.12837916709551257f * x *
      (1.0f +
       x2 * (-1.0f / 3 +
             x2 * (1.0f / 10 + x2 * (-1.0f / 42 + x2 * (1.0f / 216 + x2 * (-1.0f / 1320 + x2 * (1.0f / 9360)))))));
  return select(a < 0.5f, s, tail);
}

}  // namespace openge::elementwise
