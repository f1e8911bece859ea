// The reference engine's matrix-product core, shared by MatMul, Gemm and Einsum: a
// cache-blocked, register-tiled loop nest (4 rows x 16 columns of C per tile, i-k-j order)
// that the compiler vectorises over the columns, run in parallel over tiles of C.
#pragma once
#include <cstdint>
#include <vector>

#include "openge/tensor.h"

namespace openge {

// For b in [0, batches): C[b] = A[b] · B[b], where A[b] is M×K starting at A + a_offsets[b]
// with rows lda apart, B[b] is K×N starting at B + b_offsets[b] with rows ldb apart (or, with
// b_transposed, N×K: B[b] is read as its transpose), and C[b] is M×N contiguous at C + b·M·N.
// Acc is float, double or uint64_t (integers wrap).
template <class Acc>
void batched_gemm(int64_t batches, int64_t M, int64_t N, int64_t K, const Acc* A, const int64_t* a_offsets, int64_t lda,
                  const Acc* B, const int64_t* b_offsets, int64_t ldb, bool b_transposed, Acc* C);

// Element offsets of each matrix of a batch shape `from` (right-aligned, broadcast) for every
// index of `to`, in row-major order of `to`; `matrix_elems` is the size of one matrix.
std::vector<int64_t> broadcast_batch_offsets(const Shape& from, const Shape& to, int64_t matrix_elems);

}  // namespace openge
