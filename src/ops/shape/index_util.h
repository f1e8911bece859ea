// Helpers shared by the ops that address data through index tensors or produce data-dependent
// sizes (index_ops.cpp, select_ops.cpp, detection_ops.cpp): reading int32/int64 indices,
// bounds-checking them with an error that names the node and the bad index, and the size check
// for output sizes taken from data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_context.h"
#include "ops/shape/shape_common.h"

namespace openge {

inline bool is_index_dtype(DType t) { return t == DType::kInt64 || t == DType::kInt32; }

// Element i of an int32/int64 tensor (the caller checked the dtype).
inline int64_t index_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt64 ? t.data<int64_t>()[i] : static_cast<int64_t>(t.data<int32_t>()[i]);
}

// Error unless input i (when its dtype is known) is int32 or int64.
inline Status check_index_input(const InferContext& ctx, size_t i, const std::string& what) {
  const DType t = ctx.has_input(i) ? ctx.input_dtype(i) : DType::kUndefined;
  if (t != DType::kUndefined && !is_index_dtype(t))
    return ctx.error(what + " must be int32 or int64, got " + dtype_name(t));
  return Status::Ok();
}

// `v` mapped into [0, dim) (negative values count from the end, as ONNX allows), or an error
// that names the node, the bad index and the valid range.
template <class Ctx>
Result<int64_t> checked_index(const Ctx& ctx, int64_t v, int64_t dim, const std::string& what) {
  if (v < -dim || v >= dim)
    return ctx.error(what + " " + std::to_string(v) + " is out of range [" + std::to_string(-dim) + ", " +
                     std::to_string(dim - 1) + "]");
  return v < 0 ? v + dim : v;
}

// "[1, 0]": where flat element `flat` of a row-major tensor of `shape` sits.
inline std::string position_string(const Shape& shape, int64_t flat) {
  std::vector<int64_t> coord(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      coord[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  std::string s = "[";
  for (size_t d = 0; d < coord.size(); ++d) s += (d ? ", " : "") + std::to_string(coord[d]);
  return s + "]";
}

// Element `flat` of the index tensor `indices` (int32/int64, checked by the caller) mapped into
// [0, dim), or an error that names the input, the element's position, its value and the valid
// range: "indices[1, 0] = 7 is out of range [-5, 4] (data dim 0)". Every kernel that addresses
// data through an index tensor checks each index this way before it reads or writes anything
// (what op_precision_mode's support_out_of_bound_index asks of the NPU, always on here).
template <class Ctx>
Result<int64_t> checked_index_at(const Ctx& ctx, const Tensor& indices, int64_t flat, int64_t dim,
                                 const std::string& input_name, const std::string& context) {
  const int64_t v = index_at(indices, flat);
  if (v < -dim || v >= dim)
    return ctx.error(input_name + position_string(indices.shape(), flat) + " = " + std::to_string(v) +
                     " is out of range [" + std::to_string(-dim) + ", " + std::to_string(dim - 1) + "] (" + context +
                     ")");
  return v < 0 ? v + dim : v;
}

// Output sizes taken from data (NonZero, Compress, Unique, NonMaxSuppression counts) meet the
// size-limit policy (base/size_limit.h, through check_shape_size) before anything is allocated.
inline Status check_data_sized_output(const InferContext& ctx, const Shape& shape, DType dtype,
                                      const std::string& what) {
  return check_shape_size(ctx, shape, dtype, what);
}

inline int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

}  // namespace openge
