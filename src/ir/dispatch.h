// Turns a runtime DType into a compile-time C++ type for templated kernels:
//   visit_dtype(t, [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once
#include <cstdint>
#include <type_traits>

#include "openge/dtype.h"
#include "openge/half.h"

namespace openge {

template <class T>
struct TypeTag {
  using type = T;
};

// fp16/bf16 compute through float; every other type as itself.
template <class T>
struct FloatOrSelf {
  using type = T;
};
template <>
struct FloatOrSelf<Float16> {
  using type = float;
};
template <>
struct FloatOrSelf<BFloat16> {
  using type = float;
};
template <class T>
using float_or_self_t = typename FloatOrSelf<T>::type;

template <class T>
constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// Calls fn(TypeTag<T>{}) for the C++ type of `t`. Returns false when the dtype is not one
// OpenGE holds (the caller reports it).
template <class Fn>
bool visit_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::kFloat32:
      fn(TypeTag<float>{});
      return true;
    case DType::kFloat64:
      fn(TypeTag<double>{});
      return true;
    case DType::kFloat16:
      fn(TypeTag<Float16>{});
      return true;
    case DType::kBFloat16:
      fn(TypeTag<BFloat16>{});
      return true;
    case DType::kInt8:
      fn(TypeTag<int8_t>{});
      return true;
    case DType::kInt16:
      fn(TypeTag<int16_t>{});
      return true;
    case DType::kInt32:
      fn(TypeTag<int32_t>{});
      return true;
    case DType::kInt64:
      fn(TypeTag<int64_t>{});
      return true;
    case DType::kUInt8:
      fn(TypeTag<uint8_t>{});
      return true;
    case DType::kUInt16:
      fn(TypeTag<uint16_t>{});
      return true;
    case DType::kUInt32:
      fn(TypeTag<uint32_t>{});
      return true;
    case DType::kUInt64:
      fn(TypeTag<uint64_t>{});
      return true;
    case DType::kBool:
      fn(TypeTag<bool>{});
      return true;
    default:
      return false;
  }
}

// Same, restricted to floating-point types.
template <class Fn>
bool visit_float_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::kFloat32:
      fn(TypeTag<float>{});
      return true;
    case DType::kFloat64:
      fn(TypeTag<double>{});
      return true;
    case DType::kFloat16:
      fn(TypeTag<Float16>{});
      return true;
    case DType::kBFloat16:
      fn(TypeTag<BFloat16>{});
      return true;
    default:
      return false;
  }
}

// Same, for numeric types (all but bool). `fn` is never instantiated for bool, so kernels that
// cannot take bool need no special case.
template <class Fn>
bool visit_numeric_dtype(DType t, Fn&& fn) {
  if (t == DType::kBool) return false;
  return visit_dtype(t, [&](auto tag) {
    if constexpr (!std::is_same_v<typename decltype(tag)::type, bool>) fn(tag);
  });
}

}  // namespace openge
