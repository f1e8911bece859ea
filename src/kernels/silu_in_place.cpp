#include "kernels/silu_in_place.h"

// GCC 12's AVX-512 intrinsics fill their unused merge operand with an "undefined" vector, which
// its own -Wmaybe-uninitialized then reports at every use (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstring>

#include "base/parallel.h"
#include "ops/elementwise/elementwise_fastmath.h"

namespace openge {
namespace {

// The remainder (and builds without a vector path): the reference kernels' fast sigmoid.
void silu_scalar(float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] * elementwise::fast_sigmoid(p[i]);
}

#if defined(__AVX512F__)
constexpr int64_t kLanes = 16;
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int64_t kLanes = 8;
#else
constexpr int64_t kLanes = 1;
#endif

#if defined(__AVX2__) && defined(__FMA__)
typedef float FloatV __attribute__((vector_size(kLanes * 4)));

// The few steps that need the ISA's own instructions (vmin/vmax keep the clamp branch-free, and
// the rounding and 2^n steps are single instructions); the arithmetic around them is shared.
#if defined(__AVX512F__)
typedef __m512 Native;
inline Native native(FloatV v) { return reinterpret_cast<Native>(v); }
inline FloatV clamp(FloatV x, float lo, float hi) {
  return reinterpret_cast<FloatV>(_mm512_max_ps(_mm512_min_ps(native(x), _mm512_set1_ps(hi)), _mm512_set1_ps(lo)));
}
inline FloatV round_nearest(FloatV x) {
  return reinterpret_cast<FloatV>(_mm512_roundscale_ps(native(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
inline FloatV times_pow2(FloatV p, FloatV n) {
  return reinterpret_cast<FloatV>(_mm512_scalef_ps(native(p), native(n)));
}
inline FloatV approx_reciprocal(FloatV d) { return reinterpret_cast<FloatV>(_mm512_rcp14_ps(native(d))); }  // 2^-14
#else
typedef __m256 Native;
inline Native native(FloatV v) { return reinterpret_cast<Native>(v); }
inline FloatV clamp(FloatV x, float lo, float hi) {
  return reinterpret_cast<FloatV>(_mm256_max_ps(_mm256_min_ps(native(x), _mm256_set1_ps(hi)), _mm256_set1_ps(lo)));
}
inline FloatV round_nearest(FloatV x) {
  return reinterpret_cast<FloatV>(_mm256_round_ps(native(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
// 2^n in the exponent bits, in two halves so that 2^128 (x at the top) does not overflow alone.
inline FloatV times_pow2(FloatV p, FloatV n) {
  const __m256i k = _mm256_cvtps_epi32(native(n));
  const __m256i half = _mm256_srai_epi32(k, 1);
  const __m256i bias = _mm256_set1_epi32(127);
  const FloatV s1 = reinterpret_cast<FloatV>(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  const FloatV s2 = reinterpret_cast<FloatV>(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(k, half), bias), 23));
  return p * s1 * s2;
}
inline FloatV approx_reciprocal(FloatV d) { return reinterpret_cast<FloatV>(_mm256_rcp_ps(native(d))); }  // 2^-12
#endif

// e^x for x in [-87.3, 88.4] (clamped there; a NaN becomes a bound, and silu_vector's x * ...
// keeps it NaN): x = n ln2 + r, Cephes' degree-6 polynomial for e^r (as ops/math/math_exp.h's, which
// covers x <= 0 only), times 2^n.
inline FloatV exp_clamped(FloatV x) {
  x = clamp(x, -87.33654f, 88.3762626647949f);
  const FloatV n = round_nearest(x * 1.44269504088896341f);
  FloatV r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  FloatV p = 1.9875691500e-4f * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  return times_pow2(p, n);
}

// x / (1 + e^-x) on whole vectors; the division by the approximate reciprocal and one Newton
// step (2^-14 -> ~2^-28, AVX2's 2^-12 -> ~2^-24), which is what makes this faster than a division.
void silu_vector(float* p, int64_t n) {
  for (int64_t i = 0; i < n; i += kLanes) {
    FloatV x;
    std::memcpy(&x, p + i, sizeof x);
    const FloatV d = 1.0f + exp_clamped(-x);
    const FloatV r = approx_reciprocal(d);
    const FloatV y = x * (r * (2.0f - d * r));
    std::memcpy(p + i, &y, sizeof y);
  }
}
#else
void silu_vector(float* p, int64_t n) { silu_scalar(p, n); }
#endif

}  // namespace

bool fast_silu_available() { return kLanes > 1; }

void silu_in_place(float* data, int64_t n) {
  // Whole vectors in chunks of 64 elements, the tail after; about 4 cycles an element.
  constexpr int64_t kBlock = 64;
  const int64_t blocks = n / kBlock;
  parallel_for(blocks, 4 * kBlock,
               [&](int64_t begin, int64_t end) { silu_vector(data + begin * kBlock, (end - begin) * kBlock); });
  const int64_t done = blocks * kBlock;
  const int64_t vectors = (n - done) / kLanes * kLanes;
  if (vectors) silu_vector(data + done, vectors);
  silu_scalar(data + done + vectors, n - done - vectors);
}

}  // namespace openge
