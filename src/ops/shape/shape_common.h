// Helpers shared by the shape / data-movement op family (shape_*.cpp): limits that keep hostile
// models from asking for absurd allocations, readers for shape-like integer inputs, axis
// normalisation, and element-size dispatch. Data movement never looks at values, so kernels
// dispatch on the element size (1/2/4/8 bytes) instead of on the dtype.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ops/op_context.h"
#include "ops/op_registry.h"

namespace openge {

// Not a size limit: a bound on intermediate counts (Range's length, Pad's amounts) that keeps
// their int64 arithmetic from overflowing before the output shape meets the size-limit policy
// (check_shape_size).
constexpr int64_t kShapeArithmeticBound = int64_t{1} << 40;

// Registration of each file of the family; register_shape_ops (shape_ops.cpp) calls them all.
void register_shape_reshape_ops(std::vector<OpSchema>& table);    // Reshape Flatten Squeeze Unsqueeze
void register_shape_transpose_ops(std::vector<OpSchema>& table);  // Transpose
void register_shape_concat_split_ops(std::vector<OpSchema>& table);
void register_shape_slice_ops(std::vector<OpSchema>& table);
void register_shape_gather_ops(std::vector<OpSchema>& table);  // Gather GatherElements ScatterND
void register_shape_expand_tile_ops(std::vector<OpSchema>& table);
void register_shape_pad_ops(std::vector<OpSchema>& table);
void register_shape_info_ops(std::vector<OpSchema>& table);  // Shape Size ConstantOfShape Range

// True when input i is present and its shape is fully known (no -1 "unknown" dims).
bool input_shape_static(const InferContext& ctx, size_t i);

// Ok when every dim is >= 0 and the tensor (product of the non-zero dims, so that even an empty
// tensor cannot carry overflowing dims) fits under the size-limit policy (base/size_limit.h,
// check_tensor_size). `what` names the tensor; the message starts with the node.
Status check_shape_size(const InferContext& ctx, const Shape& shape, DType dtype, const std::string& what);

// Ok when input i's dtype is one OpenGE can hold (or is not known yet).
Status check_data_dtype(const InferContext& ctx, size_t i);

// The tensor of input i, from either context (nullptr when absent or, at compile time, unknown).
inline const Tensor* input_tensor(const InferContext& c, size_t i) { return c.input_value(i); }
inline const Tensor* input_tensor(const KernelContext& c, size_t i) { return c.has_input(i) ? &c.input(i) : nullptr; }

// The values of an int32/int64 tensor; an error naming `what` for any other dtype.
template <class Ctx>
Result<std::vector<int64_t>> read_ints(const Ctx& ctx, const Tensor& t, const std::string& what) {
  if (t.dtype() != DType::kInt64 && t.dtype() != DType::kInt32)
    return ctx.error(what + " must be int64 (or int32), got " + dtype_name(t.dtype()));
  if (t.rank() > 1) return ctx.error(what + " must be a scalar or 1-D, got shape " + shape_to_string(t.shape()));
  return t.to_int64_vector();
}

// Maps each axis into [0, rank); an error on out-of-range or repeated axes.
template <class Ctx>
Result<std::vector<int64_t>> normalize_axes(const Ctx& ctx, std::vector<int64_t> axes, int64_t rank,
                                            const std::string& what) {
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank)
      return ctx.error(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    if (a < 0) a += rank;
    if (seen[static_cast<size_t>(a)]) return ctx.error(what + " " + std::to_string(a) + " appears twice");
    seen[static_cast<size_t>(a)] = true;
  }
  return axes;
}

// Unsigned integer of each element size, so one template instantiation moves every dtype.
template <size_t N>
struct ElemBits;
template <>
struct ElemBits<1> {
  using type = uint8_t;
};
template <>
struct ElemBits<2> {
  using type = uint16_t;
};
template <>
struct ElemBits<4> {
  using type = uint32_t;
};
template <>
struct ElemBits<8> {
  using type = uint64_t;
};

// Calls fn(TypeTag-like) with `typename decltype(tag)::type` an unsigned int of `bytes` bytes.
template <class T>
struct ElemTag {
  using type = T;
};
template <class Fn>
bool visit_element_size(size_t bytes, Fn&& fn) {
  switch (bytes) {
    case 1:
      fn(ElemTag<uint8_t>{});
      return true;
    case 2:
      fn(ElemTag<uint16_t>{});
      return true;
    case 4:
      fn(ElemTag<uint32_t>{});
      return true;
    case 8:
      fn(ElemTag<uint64_t>{});
      return true;
    default:
      return false;
  }
}

// Element loads/stores through memcpy: the bytes belong to float/int objects, and memcpy is the
// aliasing-safe way to move them as unsigned words (it compiles to one mov).
template <class T>
inline T load_elem(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
inline void store_elem(void* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Writes `value` converted to `dtype` (rounded for fp16/bf16, != 0 for bool) into dst.
void store_scalar(DType dtype, double value, void* dst);
// Fills `count` elements of `elem_size` bytes at dst with the element at `value`.
void fill_elements(void* dst, const void* value, size_t elem_size, int64_t count);
// memcpy, split across threads when large.
void copy_bytes(void* dst, const void* src, size_t bytes);

}  // namespace openge
