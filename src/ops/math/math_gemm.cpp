#include "ops/math/math_gemm.h"

#include <algorithm>
#include <cstring>

#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

// GCC/Clang vector extensions: 32-byte vectors (one AVX2 register) of the accumulator type.
// Writing the tile with them guarantees the C tile lives in registers; the auto-vectoriser
// left a plain-array tile in memory and ran ~15x slower.
template <class Acc>
struct TileVec {
  typedef Acc type __attribute__((vector_size(32)));
  static constexpr int64_t kLanes = 32 / static_cast<int64_t>(sizeof(Acc));
};

constexpr int64_t kMR = 6;  // rows of C per register tile (6 x 2 vector accumulators)
static_assert(kMR == 6, "the tile dispatch in batched_gemm lists 1..6 rows");
constexpr int64_t kMc = 96;   // rows of C per parallel task (a multiple of kMR)
constexpr int64_t kNc = 256;  // columns of C per parallel task
constexpr int64_t kKc = 256;  // depth per pass: a kKc x kNR panel of B stays in L1
template <class Acc>
constexpr int64_t kNR = 2 * TileVec<Acc>::kLanes;  // columns of C per register tile

// C[0..kRows)[0..NR) (+)= A[0..kRows)[0..K) · B[0..K)[0..NR) with the C tile held in registers.
template <class Acc, int64_t kRows>
inline void tile_full(const Acc* A, int64_t lda, const Acc* B, int64_t ldb, Acc* C, int64_t ldc, int64_t K,
                      bool accumulate) {
  using V = typename TileVec<Acc>::type;
  constexpr int64_t L = TileVec<Acc>::kLanes;
  V c[kRows][2] = {};
  for (int64_t k = 0; k < K; ++k) {
    V b0, b1;
    std::memcpy(&b0, B + k * ldb, sizeof(V));
    std::memcpy(&b1, B + k * ldb + L, sizeof(V));
    for (int64_t r = 0; r < kRows; ++r) {
      const Acc a = A[r * lda + k];
      c[r][0] += a * b0;
      c[r][1] += a * b1;
    }
  }
  for (int64_t r = 0; r < kRows; ++r) {
    Acc* out = C + r * ldc;
    if (accumulate) {
      V o0, o1;
      std::memcpy(&o0, out, sizeof(V));
      std::memcpy(&o1, out + L, sizeof(V));
      c[r][0] += o0;
      c[r][1] += o1;
    }
    std::memcpy(out, &c[r][0], sizeof(V));
    std::memcpy(out + L, &c[r][1], sizeof(V));
  }
}

// The same for an edge tile of mr×nr (mr <= kMR, nr <= kNR).
template <class Acc>
inline void tile_edge(const Acc* A, int64_t lda, const Acc* B, int64_t ldb, Acc* C, int64_t ldc, int64_t K, int64_t mr,
                      int64_t nr, bool accumulate) {
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
void batched_gemm(int64_t batches, int64_t M, int64_t N, int64_t K, const Acc* A, const int64_t* a_offsets, int64_t lda,
                  const Acc* B, const int64_t* b_offsets, int64_t ldb, bool b_transposed, Acc* C) {
  if (batches <= 0 || M <= 0 || N <= 0) return;
  const int64_t row_blocks = (M + kMc - 1) / kMc;
  const int64_t col_blocks = (N + kNc - 1) / kNc;
  const int64_t tasks = batches * row_blocks * col_blocks;
  const int64_t cost = std::min(M, kMc) * std::min(N, kNc) * std::max<int64_t>(K, 1);
  parallel_for(tasks, cost, [&](int64_t begin, int64_t end) {
    alignas(64) Acc panel[kKc * kNR<Acc>];  // one packed kKc x kNR panel of B (16 KiB)
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
        for (int64_t j = j0; j < j1; j += kNR<Acc>) {
          const int64_t nr = std::min(kNR<Acc>, j1 - j);
          // A full-width panel of B that several row tiles reuse is packed contiguously: rows
          // of B far apart (large N) would otherwise cost a TLB miss per k.
          // A transposed B (N x K, Gemm's transB: how Linear layers are exported) is always
          // packed, which transposes just this panel while it is in cache.
          const Acc* bp_panel = bm + k0 * ldb + j;
          int64_t ldp = ldb;
          if (b_transposed) {
            for (int64_t jj = 0; jj < nr; ++jj) {
              const Acc* src = bm + (j + jj) * ldb + k0;
              for (int64_t k = 0; k < kc; ++k) panel[k * kNR<Acc> + jj] = src[k];
            }
            bp_panel = panel;
            ldp = kNR<Acc>;
          } else if (nr == kNR<Acc> && i1 - i0 > kMR) {
            for (int64_t k = 0; k < kc; ++k)
              std::memcpy(panel + k * kNR<Acc>, bm + (k0 + k) * ldb + j, sizeof(Acc) * kNR<Acc>);
            bp_panel = panel;
            ldp = kNR<Acc>;
          }
          for (int64_t i = i0; i < i1; i += kMR) {
            const int64_t mr = std::min(kMR, i1 - i);
            const Acc* ap = a + i * lda + k0;
            const Acc* bp = bp_panel;
            Acc* cp = c + i * N + j;
            if (nr == kNR<Acc>) {
              switch (mr) {  // full-width tiles of fewer rows (the bottom edge, gemv) stay vectorised
                case 6:
                  tile_full<Acc, 6>(ap, lda, bp, ldp, cp, N, kc, accumulate);
                  break;
                case 5:
                  tile_full<Acc, 5>(ap, lda, bp, ldp, cp, N, kc, accumulate);
                  break;
                case 4:
                  tile_full<Acc, 4>(ap, lda, bp, ldp, cp, N, kc, accumulate);
                  break;
                case 3:
                  tile_full<Acc, 3>(ap, lda, bp, ldp, cp, N, kc, accumulate);
                  break;
                case 2:
                  tile_full<Acc, 2>(ap, lda, bp, ldp, cp, N, kc, accumulate);
                  break;
                default:
                  tile_full<Acc, 1>(ap, lda, bp, ldp, cp, N, kc, accumulate);
                  break;
              }
            } else {
              tile_edge(ap, lda, bp, ldp, cp, N, kc, mr, nr, accumulate);
            }
          }
        }
      }
    }
  });
}

template void batched_gemm<float>(int64_t, int64_t, int64_t, int64_t, const float*, const int64_t*, int64_t,
                                  const float*, const int64_t*, int64_t, bool, float*);
template void batched_gemm<double>(int64_t, int64_t, int64_t, int64_t, const double*, const int64_t*, int64_t,
                                   const double*, const int64_t*, int64_t, bool, double*);
template void batched_gemm<uint64_t>(int64_t, int64_t, int64_t, int64_t, const uint64_t*, const int64_t*, int64_t,
                                     const uint64_t*, const int64_t*, int64_t, bool, uint64_t*);

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
