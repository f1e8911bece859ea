#include "ops/math_gemm.h"

#include <algorithm>

#include "ops/shape_util.h"
#include "runtime/parallel.h"

namespace openge {
namespace {

constexpr int64_t kMR = 4;     // rows of C per register tile
constexpr int64_t kNR = 16;    // columns of C per register tile (two AVX2 float vectors)
constexpr int64_t kMc = 64;    // rows of C per parallel task
constexpr int64_t kNc = 256;   // columns of C per parallel task
constexpr int64_t kKc = 256;   // depth per pass: a kKc×kNR panel of B stays in L1

// C[0..MR)[0..NR) (+)= A[0..MR)[0..K) · B[0..K)[0..NR) with the C tile held in registers.
template <class Acc>
inline void tile_full(const Acc* A, int64_t lda, const Acc* B, int64_t ldb, Acc* C, int64_t ldc, int64_t K,
                      bool accumulate) {
  Acc c[kMR][kNR] = {};
  for (int64_t k = 0; k < K; ++k) {
    const Acc* b = B + k * ldb;
    for (int64_t r = 0; r < kMR; ++r) {
      const Acc a = A[r * lda + k];
      for (int64_t j = 0; j < kNR; ++j) c[r][j] += a * b[j];
    }
  }
  for (int64_t r = 0; r < kMR; ++r)
    for (int64_t j = 0; j < kNR; ++j) C[r * ldc + j] = accumulate ? C[r * ldc + j] + c[r][j] : c[r][j];
}

// The same for an edge tile of mr×nr (mr <= kMR, nr <= kNR).
template <class Acc>
inline void tile_edge(const Acc* A, int64_t lda, const Acc* B, int64_t ldb, Acc* C, int64_t ldc, int64_t K,
                      int64_t mr, int64_t nr, bool accumulate) {
  for (int64_t r = 0; r < mr; ++r) {
    Acc* c = C + r * ldc;
    if (!accumulate)
      for (int64_t j = 0; j < nr; ++j) c[j] = Acc(0);
    for (int64_t k = 0; k < K; ++k) {
      const Acc a = A[r * lda + k];
      const Acc* b = B + k * ldb;
      for (int64_t j = 0; j < nr; ++j) c[j] += a * b[j];
    }
  }
}

}  // namespace

template <class Acc>
void batched_gemm(int64_t batches, int64_t M, int64_t N, int64_t K, const Acc* A, const int64_t* a_offsets,
                  int64_t lda, const Acc* B, const int64_t* b_offsets, int64_t ldb, Acc* C) {
  if (batches <= 0 || M <= 0 || N <= 0) return;
  const int64_t row_blocks = (M + kMc - 1) / kMc;
  const int64_t col_blocks = (N + kNc - 1) / kNc;
  const int64_t tasks = batches * row_blocks * col_blocks;
  const int64_t cost = std::min(M, kMc) * std::min(N, kNc) * std::max<int64_t>(K, 1);
  parallel_for(tasks, cost, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / (row_blocks * col_blocks);
      const int64_t i0 = (t / col_blocks) % row_blocks * kMc;
      const int64_t j0 = t % col_blocks * kNc;
      const int64_t i1 = std::min(M, i0 + kMc), j1 = std::min(N, j0 + kNc);
      const Acc* a = A + a_offsets[b];
      const Acc* bm = B + b_offsets[b];
      Acc* c = C + b * M * N;
      if (K == 0) {
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = j0; j < j1; ++j) c[i * N + j] = Acc(0);
        continue;
      }
      for (int64_t k0 = 0; k0 < K; k0 += kKc) {
        const int64_t kc = std::min(kKc, K - k0);
        const bool accumulate = k0 > 0;
        for (int64_t j = j0; j < j1; j += kNR) {
          const int64_t nr = std::min(kNR, j1 - j);
          for (int64_t i = i0; i < i1; i += kMR) {
            const int64_t mr = std::min(kMR, i1 - i);
            const Acc* ap = a + i * lda + k0;
            const Acc* bp = bm + k0 * ldb + j;
            Acc* cp = c + i * N + j;
            if (mr == kMR && nr == kNR) tile_full(ap, lda, bp, ldb, cp, N, kc, accumulate);
            else tile_edge(ap, lda, bp, ldb, cp, N, kc, mr, nr, accumulate);
          }
        }
      }
    }
  });
}

template void batched_gemm<float>(int64_t, int64_t, int64_t, int64_t, const float*, const int64_t*, int64_t,
                                  const float*, const int64_t*, int64_t, float*);
template void batched_gemm<double>(int64_t, int64_t, int64_t, int64_t, const double*, const int64_t*, int64_t,
                                   const double*, const int64_t*, int64_t, double*);
template void batched_gemm<uint64_t>(int64_t, int64_t, int64_t, int64_t, const uint64_t*, const int64_t*, int64_t,
                                     const uint64_t*, const int64_t*, int64_t, uint64_t*);

std::vector<int64_t> broadcast_batch_offsets(const Shape& from, const Shape& to, int64_t matrix_elems) {
  const int64_t count = shape_numel(to);
  std::vector<int64_t> offsets(static_cast<size_t>(std::max<int64_t>(count, 0)));
  if (count <= 0) return offsets;
  const std::vector<int64_t> strides = broadcast_strides(from, to);
  std::vector<int64_t> index(to.size(), 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < count; ++n) {
    offsets[static_cast<size_t>(n)] = offset * matrix_elems;
    for (size_t d = to.size(); d-- > 0;) {
      offset += strides[d];
      if (++index[d] < to[d]) break;
      offset -= strides[d] * to[d];
      index[d] = 0;
    }
  }
  return offsets;
}

}  // namespace openge
