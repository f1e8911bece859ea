// Shared pieces of the elementwise op family (elementwise_*.cpp): dtype sets that say which
// element types an op takes, a dtype visitor that only instantiates kernels for those types,
// and the inference helpers every elementwise op uses.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/dispatch.h"
#include "ops/op_context.h"
#include "ops/op_registry.h"

namespace openge::elementwise {

// A set of dtypes as a bit mask; bit n is ONNX dtype number n.
using DTypeSet = uint32_t;
constexpr DTypeSet dtype_bit(DType t) {
  const int n = static_cast<int>(t);
  return n >= 0 && n < 32 ? DTypeSet{1} << n : 0;
}
constexpr DTypeSet kFloatTypes =
    dtype_bit(DType::kFloat32) | dtype_bit(DType::kFloat64) | dtype_bit(DType::kFloat16) | dtype_bit(DType::kBFloat16);
constexpr DTypeSet kSignedIntTypes =
    dtype_bit(DType::kInt8) | dtype_bit(DType::kInt16) | dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64);
constexpr DTypeSet kUnsignedIntTypes =
    dtype_bit(DType::kUInt8) | dtype_bit(DType::kUInt16) | dtype_bit(DType::kUInt32) | dtype_bit(DType::kUInt64);
constexpr DTypeSet kIntTypes = kSignedIntTypes | kUnsignedIntTypes;
constexpr DTypeSet kSignedTypes = kFloatTypes | kSignedIntTypes;
constexpr DTypeSet kNumericTypes = kFloatTypes | kIntTypes;
constexpr DTypeSet kBoolType = dtype_bit(DType::kBool);
constexpr DTypeSet kAllTypes = kNumericTypes | kBoolType;

// The DType of a kernel value type (the inverse of visit_dtype).
template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::kFloat32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::kFloat64;
  else if constexpr (std::is_same_v<T, Float16>)
    return DType::kFloat16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return DType::kBFloat16;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::kBool;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::kInt8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::kInt16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::kInt64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::kUInt8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DType::kUInt16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DType::kUInt32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return DType::kUInt64;
  else
    return DType::kUndefined;
}

// visit_dtype that only instantiates fn for the types in Set (so an op's kernel is compiled
// for the types it takes and no others). False when `t` is not in Set.
template <DTypeSet Set, class Fn>
bool visit_dtype_in(DType t, Fn&& fn) {
  if ((Set & dtype_bit(t)) == 0) return false;
  return visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr ((Set & dtype_bit(dtype_of<T>())) != 0) fn(tag);
  });
}

// Stores a computed value into a storage type (Float16/BFloat16 round to nearest even).
template <class O, class V>
inline O to_storage(V v) {
  if constexpr (is_half_v<O>)
    return O(static_cast<float>(v));
  else
    return static_cast<O>(v);
}

// Integer arithmetic through unsigned types, so overflow wraps (as ORT and NumPy do on x86)
// instead of being undefined behaviour; plain arithmetic for floating point.
template <class C>
using wrap_unsigned_t = std::make_unsigned_t<decltype(C() + C())>;
template <class C>
inline C wrapping_add(C a, C b) {
  if constexpr (std::is_integral_v<C>)
    return static_cast<C>(static_cast<wrap_unsigned_t<C>>(a) + static_cast<wrap_unsigned_t<C>>(b));
  else
    return a + b;
}
template <class C>
inline C wrapping_sub(C a, C b) {
  if constexpr (std::is_integral_v<C>)
    return static_cast<C>(static_cast<wrap_unsigned_t<C>>(a) - static_cast<wrap_unsigned_t<C>>(b));
  else
    return a - b;
}
template <class C>
inline C wrapping_mul(C a, C b) {
  if constexpr (std::is_integral_v<C>)
    return static_cast<C>(static_cast<wrap_unsigned_t<C>>(a) * static_cast<wrap_unsigned_t<C>>(b));
  else
    return a * b;
}
template <class C>
inline C wrapping_neg(C x) {
  return wrapping_sub(C(0), x);
}

// Floating point to integer: truncates toward zero like C for values in range; NaN gives 0
// and values outside int64 saturate, then narrower types wrap (never undefined behaviour).
template <class I, class F>
inline I float_to_int(F x) {
  if (!(x == x)) return I(0);
  x = std::trunc(x);
  if constexpr (std::is_same_v<I, uint64_t>) {
    if (x >= F(18446744073709551616.0)) return ~uint64_t{0};
    if (x >= F(0)) return static_cast<uint64_t>(x);
  }
  const int64_t w = x <= F(-9223372036854775808.0)  ? std::numeric_limits<int64_t>::min()
                    : x >= F(9223372036854775808.0) ? std::numeric_limits<int64_t>::max()
                                                    : static_cast<int64_t>(x);
  return static_cast<I>(w);
}

// One element from storage type From to storage type To with Cast's rules: through float for
// fp16/bf16 (rounding to nearest even), truncation for float to int, != 0 for bool.
template <class To, class From>
inline To convert_value(From v) {
  using CF = float_or_self_t<From>;
  const CF x = static_cast<CF>(v);
  if constexpr (std::is_same_v<To, bool>)
    return x != CF(0);
  else if constexpr (is_half_v<To>)
    return To(static_cast<float>(x));
  else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<CF>)
    return float_to_int<To>(x);
  else
    return static_cast<To>(x);
}

// "float16, float32, ..." for messages.
std::string dtype_set_names(DTypeSet set);

// Error unless input i's dtype is in `allowed`.
Status check_input_dtype(const InferContext& ctx, size_t i, DTypeSet allowed);
// Error unless inputs i and j (when present) have the same dtype.
Status check_same_dtype(const InferContext& ctx, size_t i, size_t j);

// Multidirectional broadcast of any number of shapes in which -1 means an unknown dim (it
// broadcasts like a dim that is not 1); nullopt when two known dims conflict.
std::optional<Shape> broadcast_all(const std::vector<const Shape*>& shapes);

// Sets output 0 to `out_dtype` and the broadcast of the present inputs [first, first+count);
// dtype only when a shape is unknown; an error naming the shapes when they do not broadcast.
Status infer_broadcast(InferContext& ctx, size_t first, size_t count, DType out_dtype);

// Sets output `out` to `dtype` with input 0's shape (dtype only if that shape is unknown).
void infer_like_input0(InferContext& ctx, size_t out, DType dtype);

// Copies `bytes` bytes, in parallel when large.
void copy_bytes(void* dst, const void* src, size_t bytes);

// The family's parts; register_elementwise_ops calls all of them.
void register_unary_ops(std::vector<OpSchema>& table);
void register_activation_ops(std::vector<OpSchema>& table);
void register_binary_ops(std::vector<OpSchema>& table);
void register_variadic_ops(std::vector<OpSchema>& table);
void register_cast_ops(std::vector<OpSchema>& table);

}  // namespace openge::elementwise
