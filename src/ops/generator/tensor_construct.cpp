// Ops that build a tensor from a pattern: Trilu (keep one triangle of each matrix), EyeLike
// (ones on a diagonal) and OneHot (one "on" value per index along a new axis of size depth).
#include <cmath>
#include <string>
#include <type_traits>

#include "base/parallel.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/generator/file_constant.h"
#include "ops/generated_size.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

using elementwise::convert_value;
using elementwise::kAllTypes;
using elementwise::kNumericTypes;
using elementwise::visit_dtype_in;

// ---- Trilu ----------------------------------------------------------------------------------

// Trilu(input, k?): upper = 1 keeps j - i >= k of each trailing [N, M] matrix, upper = 0 keeps
// j - i <= k; the rest becomes 0.
Status trilu_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kAllTypes));
  if (ctx.has_input(1)) {
    OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, elementwise::dtype_bit(DType::kInt64)));
    if (ctx.input_shape_known(1) && shape_numel(ctx.input_shape(1)) != 1)
      return ctx.error("k must be a scalar, got shape " + shape_to_string(ctx.input_shape(1)));
  }
  if (ctx.input_shape_known(0) && ctx.input_shape(0).size() < 2)
    return ctx.error("input must have rank >= 2, got shape " + shape_to_string(ctx.input_shape(0)));
  elementwise::infer_like_input0(ctx, 0, ctx.input_dtype(0));
  return Status::Ok();
}

Status trilu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2) return ctx.error("input must have rank >= 2, got shape " + shape_to_string(x.shape()));
  int64_t k = 0;
  if (ctx.has_input(1)) {
    if (ctx.input(1).numel() != 1)
      return ctx.error("k must be a scalar, got shape " + shape_to_string(ctx.input(1).shape()));
    k = ctx.input(1).data<int64_t>()[0];
  }
  const bool upper = ctx.attrs().get_int("upper", 1) != 0;
  const int64_t n = x.dim(x.rank() - 2), m = x.dim(x.rank() - 1);
  if (x.numel() == 0) return Status::Ok();
  const int64_t rows = x.numel() / m;
  const bool ok = visit_dtype_in<kAllTypes>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x.data<T>();
    T* py = ctx.output(0).data<T>();
    parallel_for(rows, m, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % n;
        for (int64_t j = 0; j < m; ++j) {
          // j - i is within [-n, m]: no overflow; k may be anything.
          const bool keep = upper ? j - i >= k : j - i <= k;
          py[r * m + j] = keep ? px[r * m + j] : T(0);
        }
      }
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

// ---- EyeLike --------------------------------------------------------------------------------

// The output dtype: the `dtype` attribute, else the input's.
Result<DType> eyelike_dtype(const Attributes& attrs, DType input) {
  const Attribute* a = attrs.find("dtype");
  if (!a) return input;
  const DType t = static_cast<DType>(a->i);
  if (a->i < 0 || a->i > 31 || (kAllTypes & elementwise::dtype_bit(t)) == 0)
    return invalid_model("dtype " + std::to_string(a->i) + " is not one EyeLike produces (" +
                         elementwise::dtype_set_names(kAllTypes) + ")");
  return t;
}

Status eyelike_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kAllTypes));
  Result<DType> dt = eyelike_dtype(ctx.attrs(), ctx.input_dtype(0));
  if (!dt.ok()) return ctx.error(dt.status().message());
  if (ctx.input_shape_known(0) && ctx.input_shape(0).size() != 2)
    return ctx.error("input must be 2-D, got shape " + shape_to_string(ctx.input_shape(0)));
  elementwise::infer_like_input0(ctx, 0, *dt);
  return Status::Ok();
}

Status eyelike_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.rank() != 2) return ctx.error("input must be 2-D, got shape " + shape_to_string(x.shape()));
  const int64_t k = ctx.attrs().get_int("k", 0);
  const int64_t n = x.dim(0), m = x.dim(1);
  const bool ok = visit_dtype_in<kAllTypes>(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.data<T>();
    for (int64_t i = 0; i < y.numel(); ++i) py[i] = T(0);
    // Row i has its one at column i + k; k beyond the matrix leaves it all zeros.
    if (k >= m || k <= -n) return;
    for (int64_t i = std::max<int64_t>(0, -k); i < n && i + k < m; ++i) py[i * m + i + k] = T(1);
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(y.dtype()));
}

// ---- OneHot ---------------------------------------------------------------------------------

// OneHot(indices, depth, values=[off, on]): output rank = indices rank + 1, with `depth`
// inserted at `axis`. Indices and depth may have any numeric type (floats truncate, as ONNX's
// reference casts them); a negative index counts from the end, one outside [-depth, depth)
// gives a row of `off`.
Result<int64_t> onehot_depth(const Tensor& t) {
  if (t.numel() != 1) return invalid_argument("depth must be a scalar, got shape " + shape_to_string(t.shape()));
  if (!dtype_is_float(t.dtype()) && !dtype_is_integer(t.dtype()))
    return invalid_argument(std::string("depth must be numeric, got ") + dtype_name(t.dtype()));
  const double d = t.scalar_as_double(0);
  if (!(d >= 1.0) || d >= 9.2e18) return invalid_argument("depth must be a positive number, got " + std::to_string(d));
  return static_cast<int64_t>(d);
}

std::optional<int64_t> onehot_axis(const Attributes& attrs, int64_t indices_rank) {
  return normalize_axis(attrs.get_int("axis", -1), indices_rank + 1);
}

Status onehot_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kNumericTypes));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, kNumericTypes));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 2, kAllTypes));
  const DType out_dtype = ctx.input_dtype(2);
  if (ctx.input_shape_known(2) && shape_numel(ctx.input_shape(2)) != 2)
    return ctx.error("values must hold two elements [off, on], got shape " + shape_to_string(ctx.input_shape(2)));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, out_dtype);
    return Status::Ok();
  }
  const Shape& indices = ctx.input_shape(0);
  const std::optional<int64_t> axis = onehot_axis(ctx.attrs(), static_cast<int64_t>(indices.size()));
  if (!axis)
    return ctx.error("axis " + std::to_string(ctx.attrs().get_int("axis", -1)) +
                     " is out of range for indices of rank " + std::to_string(indices.size()));
  const Tensor* depth_t = ctx.input_value(1);
  if (!depth_t) {  // the size comes from data not known yet
    ctx.set_output_dtype(0, out_dtype);
    return Status::Ok();
  }
  Result<int64_t> depth = onehot_depth(*depth_t);
  if (!depth.ok()) return ctx.error(depth.status().message());
  Shape out = indices;
  out.insert(out.begin() + *axis, *depth);
  if (auto err = generated_size_error(out, out_dtype)) return ctx.error("output " + *err);
  ctx.set_output(0, out_dtype, std::move(out));
  return Status::Ok();
}

Status onehot_kernel(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(2);
  Tensor& y = ctx.output(0);
  Result<int64_t> depth_r = onehot_depth(ctx.input(1));
  if (!depth_r.ok()) return ctx.error(depth_r.status().message());
  const int64_t depth = *depth_r;
  if (values.numel() != 2)
    return ctx.error("values must hold two elements [off, on], got shape " + shape_to_string(values.shape()));
  const std::optional<int64_t> axis = onehot_axis(ctx.attrs(), indices.rank());
  if (!axis) return ctx.error("axis is out of range for indices of rank " + std::to_string(indices.rank()));
  if (y.rank() != indices.rank() + 1 || y.dim(*axis) != depth)
    return ctx.error("output shape " + shape_to_string(y.shape()) + " does not match depth " + std::to_string(depth));
  // indices viewed as [outer, inner] around the new axis: output is [outer, depth, inner].
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < indices.rank(); ++i) (i < *axis ? outer : inner) *= indices.dim(i);
  std::vector<int64_t> idx(static_cast<size_t>(indices.numel()));
  const bool ok_idx = visit_dtype_in<kNumericTypes>(indices.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = indices.data<T>();
    for (size_t i = 0; i < idx.size(); ++i) {
      int64_t v = convert_value<int64_t>(p[i]);
      if (v < 0 && v >= -depth) v += depth;
      idx[i] = v >= 0 && v < depth ? v : -1;  // -1: no "on" in this row
    }
  });
  if (!ok_idx) return ctx.error(std::string("unsupported indices dtype ") + dtype_name(indices.dtype()));
  const bool ok = visit_dtype_in<kAllTypes>(values.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T off = values.data<T>()[0], on = values.data<T>()[1];
    T* py = y.data<T>();
    parallel_for(outer, depth * inner, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        T* block = py + o * depth * inner;
        for (int64_t i = 0; i < depth * inner; ++i) block[i] = off;
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t v = idx[static_cast<size_t>(o * inner + i)];
          if (v >= 0) block[v * inner + i] = on;
        }
      }
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported values dtype ") + dtype_name(values.dtype()));
}

}  // namespace

void register_construct_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Trilu", 1, 2, 1, 1, &trilu_infer, &trilu_kernel, false});
  table.push_back(OpSchema{"EyeLike", 1, 1, 1, 1, &eyelike_infer, &eyelike_kernel, false});
  table.push_back(OpSchema{"OneHot", 3, 3, 1, 1, &onehot_infer, &onehot_kernel, false});
  register_file_constant_op(table);
}

}  // namespace openge
