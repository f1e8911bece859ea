#include "kernels/silu_in_place.h"

// GCC 12's AVX-512 intrinsics fill their unused merge operand with an "undefined" vector, which
// its own -Wmaybe-uninitialized then reports at every use (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "base/parallel.h"
#include "ops/elementwise_fastmath.h"

namespace openge {
namespace {

// The remainder (and builds without a vector path): the reference kernels' fast sigmoid.
void silu_scalar(float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] * elementwise::fast_sigmoid(p[i]);
}

#if defined(__AVX512F__)
constexpr int64_t kLanes = 16;

inline __m512 exp_clamped(__m512 x) {
  // e^x for x in [-87.3, 88.4] (clamped there; a NaN becomes a bound, and x * ... below keeps it
  // NaN): x = n ln2 + r, Cephes' degree-6 polynomial for e^r, then times 2^n.
  x = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(88.3762626647949f)), _mm512_set1_ps(-87.33654f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

void silu_vector(float* p, int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
  for (int64_t i = 0; i < n; i += kLanes) {
    const __m512 x = _mm512_loadu_ps(p + i);
    const __m512 d = _mm512_add_ps(one, exp_clamped(_mm512_sub_ps(_mm512_setzero_ps(), x)));
    __m512 r = _mm512_rcp14_ps(d);
    r = _mm512_mul_ps(r, _mm512_fnmadd_ps(d, r, two));  // one Newton step: 2^-14 -> ~2^-28
    _mm512_storeu_ps(p + i, _mm512_mul_ps(x, r));
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int64_t kLanes = 8;

inline __m256 exp_clamped(__m256 x) {
  x = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(88.3762626647949f)), _mm256_set1_ps(-87.33654f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n in the exponent bits; n is in [-126, 128), and 2^128 (x near the top) is split in two
  // factors so that it does not overflow on its own.
  const __m256i k = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(k, 1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
  const __m256 s2 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(k, half), _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

void silu_vector(float* p, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
  for (int64_t i = 0; i < n; i += kLanes) {
    const __m256 x = _mm256_loadu_ps(p + i);
    const __m256 d = _mm256_add_ps(one, exp_clamped(_mm256_sub_ps(_mm256_setzero_ps(), x)));
    __m256 r = _mm256_rcp_ps(d);
    r = _mm256_mul_ps(r, _mm256_fnmadd_ps(d, r, two));  // one Newton step: 2^-12 -> ~2^-24
    _mm256_storeu_ps(p + i, _mm256_mul_ps(x, r));
  }
}
#else
constexpr int64_t kLanes = 1;
void silu_vector(float* p, int64_t n) { silu_scalar(p, n); }
#endif

}  // namespace

bool fast_silu_available() { return kLanes > 1; }

void silu_in_place(float* data, int64_t n) {
  // Whole vectors in chunks of 64 elements, the tail after; about 4 cycles an element.
  constexpr int64_t kBlock = 64;
  const int64_t blocks = n / kBlock;
  parallel_for(blocks, 4 * kBlock, [&](int64_t begin, int64_t end) {
    silu_vector(data + begin * kBlock, (end - begin) * kBlock);
  });
  const int64_t done = blocks * kBlock;
  const int64_t vectors = (n - done) / kLanes * kLanes;
  if (vectors) silu_vector(data + done, vectors);
  silu_scalar(data + done + vectors, n - done - vectors);
}

}  // namespace openge
