// Pieces shared by the reduction and linear-algebra reference kernels: the types arithmetic
// runs in, rounding back to storage types, size checks for outputs that inference creates,
// and a strided gather (permute / broadcast / diagonal into a contiguous buffer).
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ir/dispatch.h"
#include "ops/generated_size.h"
#include "openge/tensor.h"

namespace openge {

// Reductions accumulate floats in float (double for fp64) and integers in 64 bits of their
// own signedness, so that Max/Min compare correctly and sums widen before they round back.
template <class T>
using reduce_acc_t = std::conditional_t<std::is_floating_point_v<float_or_self_t<T>>, float_or_self_t<T>,
                                        std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

// Matrix products accumulate fp16/bf16/fp32 in float (as the cube units do), fp64 in double
// and every integer type in uint64_t: unsigned arithmetic wraps without undefined behaviour,
// and truncating the result to T gives exactly T's two's-complement wrap-around result.
template <class T>
using gemm_acc_t = std::conditional_t<std::is_floating_point_v<float_or_self_t<T>>, float_or_self_t<T>, uint64_t>;

// Converts an accumulator back to the storage type, rounding fp16/bf16 once.
template <class T, class Acc>
inline T from_acc(Acc v) {
  if constexpr (is_half_v<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}
template <class Acc, class T>
inline Acc to_acc(T v) {
  if constexpr (is_half_v<T>)
    return static_cast<Acc>(static_cast<float>(v));
  else
    return static_cast<Acc>(v);
}

// Integer +/* that wrap instead of overflowing (signed overflow is undefined in C++).
template <class A>
inline A wrap_add(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <class A>
inline A wrap_mul(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}

// True when every dim is >= 0 (or -1, "unknown", at compile time) and the known dims fit the
// size-limit policy (check_known_extent, ops/generated_size.h): a hostile model gets an error,
// not an allocation of absurd size.
inline bool shape_size_ok(const Shape& shape) {
  for (int64_t d : shape)
    if (d < -1) return false;
  return check_known_extent(shape, "output").ok();
}

// dst (contiguous, `shape`) [i0,i1,...] = src[sum_k i_k * strides[k]]. Strides may be 0
// (broadcast), permuted (transpose) or summed (diagonal).
template <class T>
void gather_strided(const T* src, const Shape& shape, const std::vector<int64_t>& strides, T* dst) {
  const size_t rank = shape.size();
  const int64_t total = shape_numel(shape);
  if (total == 0) return;
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = shape[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t done = 0; done < total; done += inner) {
    const T* s = src + offset;
    if (inner_stride == 1) {
      for (int64_t i = 0; i < inner; ++i) dst[done + i] = s[i];
    } else {
      for (int64_t i = 0; i < inner; ++i) dst[done + i] = s[i * inner_stride];
    }
    // Odometer over the outer dims.
    for (size_t d = rank - 1; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace openge
