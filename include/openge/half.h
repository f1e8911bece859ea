// 16-bit floating point storage types. Conversions from float round to nearest even, as IEEE
// 754 and the Ascend hardware do; NaN stays NaN (quiet) and overflow goes to infinity.
#pragma once
#include <cstdint>
#include <cstring>

namespace openge {

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

inline uint16_t float_to_bf16_bits(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<uint16_t>(u >> 16);
}
inline float bf16_bits_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

inline uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs >= 0x38800000u) {                                              // normal half
    // Re-bias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even.
    uint32_t v = abs - 0x38000000u;
    v += 0xfffu + ((v >> 13) & 1u);
    return static_cast<uint16_t>(sign | (v >> 13));
  }
  if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of the smallest subnormal
  // Subnormal half: shift the full significand right, rounding to nearest even.
  const uint32_t exp = abs >> 23;
  const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exp;  // 14..24 (value = mant * 2^(exp-150), unit 2^-24)
  uint32_t q = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -f : f;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

// Value types that kernels template over; arithmetic goes through float.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f) : bits(float_to_half_bits(f)) {}
  static Float16 from_bits(uint16_t b) {
    Float16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return half_bits_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(float_to_bf16_bits(f)) {}
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return bf16_bits_to_float(bits); }
};

}  // namespace openge
