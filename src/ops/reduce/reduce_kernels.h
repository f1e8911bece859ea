// Reduction policies and the two loop shapes every reduction-like kernel runs: a contiguous
// row (lane-split so the compiler vectorises it without reassociating float math itself) and
// [outer, R, inner] blocks reduced over R with the inner dimension as the vector dimension.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/math/math_common.h"
#include "base/parallel.h"

namespace openge {

// Each policy: init() (the identity), step(acc, x) folds one element, combine(a, b) merges
// two partial accumulators, finish(acc, count) gives the result.
template <class A>
struct SumPolicy {
  static A init() { return A(0); }
  static A step(A a, A x) { return wrap_add(a, x); }
  static A combine(A a, A b) { return wrap_add(a, b); }
  static A finish(A a, int64_t) { return a; }
};
template <class A>
struct MeanPolicy : SumPolicy<A> {
  static A finish(A a, int64_t n) {
    if constexpr (std::is_integral_v<A>)
      return n == 0 ? A(0) : static_cast<A>(a / static_cast<A>(n));
    else
      return a / static_cast<A>(n);
  }
};
template <class A>
struct ProdPolicy {
  static A init() { return A(1); }
  static A step(A a, A x) { return wrap_mul(a, x); }
  static A combine(A a, A b) { return wrap_mul(a, b); }
  static A finish(A a, int64_t) { return a; }
};
// Max/Min propagate NaN, as NumPy does: once the accumulator is NaN it stays NaN.
template <class A>
struct MaxPolicy {
  static A init() {
    if constexpr (std::is_floating_point_v<A>)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  }
  static A step(A a, A x) {
    if constexpr (std::is_floating_point_v<A>)
      return (x > a || x != x) ? x : a;
    else
      return x > a ? x : a;
  }
  static A combine(A a, A b) { return step(a, b); }
  static A finish(A a, int64_t) { return a; }
};
template <class A>
struct MinPolicy {
  static A init() {
    if constexpr (std::is_floating_point_v<A>)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  }
  static A step(A a, A x) {
    if constexpr (std::is_floating_point_v<A>)
      return (x < a || x != x) ? x : a;
    else
      return x < a ? x : a;
  }
  static A combine(A a, A b) { return step(a, b); }
  static A finish(A a, int64_t) { return a; }
};
template <class A>
struct L1Policy : SumPolicy<A> {
  static A step(A a, A x) {
    if constexpr (std::is_unsigned_v<A>)
      return wrap_add(a, x);
    else
      return wrap_add(a, x < A(0) ? wrap_mul(x, A(-1)) : x);
  }
};
template <class A>
struct SumSquarePolicy : SumPolicy<A> {
  static A step(A a, A x) { return wrap_add(a, wrap_mul(x, x)); }
};
template <class A>
struct L2Policy : SumSquarePolicy<A> {
  static A finish(A a, int64_t) { return static_cast<A>(std::sqrt(static_cast<double>(a))); }
};
template <class A>
struct LogSumPolicy : SumPolicy<A> {
  static A finish(A a, int64_t) { return static_cast<A>(std::log(static_cast<double>(a))); }
};
// Float specialisations of L2/LogSum keep float math in float.
template <>
inline float L2Policy<float>::finish(float a, int64_t) {
  return std::sqrt(a);
}
template <>
inline float LogSumPolicy<float>::finish(float a, int64_t) {
  return std::log(a);
}

// Folds x[0..n) (storage type T) with Policy, in 16 interleaved partial accumulators that the
// compiler maps onto vector lanes; the fixed lane order keeps results deterministic.
template <class Policy, class T>
auto reduce_row(const T* x, int64_t n) {
  using A = reduce_acc_t<T>;
  constexpr int kLanes = 16;
  A lanes[kLanes];
  for (int j = 0; j < kLanes; ++j) lanes[j] = Policy::init();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] = Policy::step(lanes[j], to_acc<A>(x[i + j]));
  A acc = lanes[0];
  for (int j = 1; j < kLanes; ++j) acc = Policy::combine(acc, lanes[j]);
  for (; i < n; ++i) acc = Policy::step(acc, to_acc<A>(x[i]));
  return acc;
}

// y[o, i] = finish(fold over r of x[o, r, i]) for x viewed as [outer, R, inner].
template <class Policy, class T>
void reduce_blocks(const T* x, T* y, int64_t outer, int64_t R, int64_t inner) {
  using A = reduce_acc_t<T>;
  if (inner == 1) {
    parallel_for(outer, 2 * R + 8, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) y[o] = from_acc<T>(Policy::finish(reduce_row<Policy>(x + o * R, R), R));
    });
    return;
  }
  constexpr int64_t kBlock = 256;  // inner columns per task: the accumulators stay in L1
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  parallel_for(outer * blocks, 2 * R * kBlock + 8, [&](int64_t b, int64_t e) {
    A acc[kBlock];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks;
      const int64_t i0 = (t % blocks) * kBlock;
      const int64_t n = std::min(kBlock, inner - i0);
      for (int64_t i = 0; i < n; ++i) acc[i] = Policy::init();
      const T* base = x + o * R * inner + i0;
      for (int64_t r = 0; r < R; ++r) {
        const T* row = base + r * inner;
        for (int64_t i = 0; i < n; ++i) acc[i] = Policy::step(acc[i], to_acc<A>(row[i]));
      }
      T* out = y + o * inner + i0;
      for (int64_t i = 0; i < n; ++i) out[i] = from_acc<T>(Policy::finish(acc[i], R));
    }
  });
}

}  // namespace openge
