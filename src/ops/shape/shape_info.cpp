// Shape, Size, ConstantOfShape, Range. Shape and Size fold to constants at compile time
// whenever the input shape is static: that is what turns the shape subgraphs of exported
// models (Shape -> Gather -> Concat -> Reshape) into constants.
#include <cmath>
#include <algorithm>
#include <limits>

#include "ir/dispatch.h"
#include "ops/shape/shape_common.h"
#include "base/parallel.h"

namespace openge {
namespace {

// --- Shape: opset 15 adds start/end, clamped like slice bounds --------------------------------
std::pair<int64_t, int64_t> shape_range(const Attributes& attrs, int64_t opset, int64_t rank) {
  if (opset < 15) return {0, rank};
  auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(attrs.get_int("start", 0));
  const int64_t end = clamp(attrs.get_int("end", rank));
  return {start, std::max(start, end)};
}

Tensor shape_tensor(const Shape& shape, const Attributes& attrs, int64_t opset) {
  const auto [start, end] = shape_range(attrs, opset, static_cast<int64_t>(shape.size()));
  Tensor t(DType::kInt64, {end - start});
  for (int64_t i = start; i < end; ++i) t.data<int64_t>()[i - start] = shape[static_cast<size_t>(i)];
  return t;
}

Status infer_shape(InferContext& ctx) {
  if (input_shape_static(ctx, 0)) {
    ctx.set_output_value(0, shape_tensor(ctx.input_shape(0), ctx.attrs(), ctx.opset()));
  } else if (ctx.input_shape_known(0)) {  // the rank is known even if some dims are not
    const auto [start, end] = shape_range(ctx.attrs(), ctx.opset(), static_cast<int64_t>(ctx.input_shape(0).size()));
    ctx.set_output(0, DType::kInt64, {end - start});
  } else {
    ctx.set_output_dtype(0, DType::kInt64);
  }
  return Status::Ok();
}

Status shape_kernel(KernelContext& ctx) {
  const Tensor t = shape_tensor(ctx.input(0).shape(), ctx.attrs(), ctx.opset());
  Tensor& out = ctx.output(0);
  if (out.numel() != t.numel()) return ctx.error("output has the wrong size");
  std::memcpy(out.raw(), t.raw(), t.nbytes());
  return Status::Ok();
}

// --- Size --------------------------------------------------------------------------------------
Status infer_size(InferContext& ctx) {
  if (input_shape_static(ctx, 0)) {
    Tensor t(DType::kInt64, {});
    t.data<int64_t>()[0] = shape_numel(ctx.input_shape(0));
    ctx.set_output_value(0, t);
  } else {
    ctx.set_output(0, DType::kInt64, {});
  }
  return Status::Ok();
}

Status size_kernel(KernelContext& ctx) {
  ctx.output(0).data<int64_t>()[0] = ctx.input(0).numel();
  return Status::Ok();
}

// --- ConstantOfShape ---------------------------------------------------------------------------
// The fill value: the one-element 'value' tensor attribute, float32 0 by default.
Result<Tensor> fill_value(const InferContext& ctx) {
  const Tensor* v = ctx.attrs().get_tensor("value");
  if (!v) return Tensor(DType::kFloat32, {});
  if (v->numel() != 1) return ctx.error("the 'value' attribute must hold exactly one element");
  if (!dtype_supported(v->dtype()))
    return ctx.error(std::string("value dtype ") + dtype_name(v->dtype()) + " is not supported");
  return *v;
}

Status infer_constant_of_shape(InferContext& ctx) {
  auto value = fill_value(ctx);
  if (!value.ok()) return value.status();
  const DType dt = value->dtype();
  const Tensor* shape_t = ctx.input_value(0);
  if (!shape_t) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto dims = read_ints(ctx, *shape_t, "the 'input' shape");
  if (!dims.ok()) return dims.status();
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, *dims, dt, "the output"));
  ctx.set_output(0, dt, *dims);
  return Status::Ok();
}

Status constant_of_shape_kernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  const Tensor* v = ctx.attrs().get_tensor("value");
  if (!v) return Status::Ok();  // outputs are allocated zero-filled: float32 0 is already there
  if (v->dtype() != out.dtype() || v->numel() != 1) return ctx.error("the 'value' attribute does not match the output");
  fill_elements(out.raw(), v->raw(), dtype_size(out.dtype()), out.numel());
  return Status::Ok();
}

// --- Range: output[i] = start + i * delta for i < max(ceil((limit - start) / delta), 0) -------
template <class Ctx>
Result<int64_t> range_count(const Ctx& ctx, const Tensor& start, const Tensor& limit, const Tensor& delta) {
  for (const Tensor* t : {&start, &limit, &delta})
    if (t->numel() != 1)
      return ctx.error("start, limit and delta must be scalars, got shape " + shape_to_string(t->shape()));
  int64_t n = 0;
  if (dtype_is_float(start.dtype())) {
    const double s = start.scalar_as_double(), l = limit.scalar_as_double(), d = delta.scalar_as_double();
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
      return ctx.error("start, limit and delta must be finite and delta non-zero");
    const double c = std::ceil((l - s) / d);
    if (c > static_cast<double>(kShapeArithmeticBound)) return ctx.error("the range is too long");
    n = c > 0 ? static_cast<int64_t>(c) : 0;
  } else {
    const __int128 s = start.scalar_as_int(), l = limit.scalar_as_int(), d = delta.scalar_as_int();
    if (d == 0) return ctx.error("delta is 0");
    // ceil((l - s) / d) in exact integer arithmetic
    const __int128 diff = l - s;
    __int128 c = diff / d;
    if (c * d != diff && ((diff > 0) == (d > 0))) ++c;
    if (c > kShapeArithmeticBound) return ctx.error("the range is too long");
    n = c > 0 ? static_cast<int64_t>(c) : 0;
  }
  return n;
}

Status infer_range(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  for (size_t i = 1; i < 3; ++i)
    if (ctx.input_dtype(i) != DType::kUndefined && dt != DType::kUndefined && ctx.input_dtype(i) != dt)
      return ctx.error("start, limit and delta must have the same dtype");
  if (dt != DType::kUndefined && (!dtype_supported(dt) || dt == DType::kBool))
    return ctx.error(std::string("dtype ") + dtype_name(dt) + " is not supported");
  const Tensor* s = ctx.input_value(0);
  const Tensor* l = ctx.input_value(1);
  const Tensor* d = ctx.input_value(2);
  if (!s || !l || !d) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto n = range_count(ctx, *s, *l, *d);
  if (!n.ok()) return n.status();
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, {*n}, dt, "the output"));
  ctx.set_output(0, dt, {*n});
  return Status::Ok();
}

Status range_kernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  const Tensor& start = ctx.input(0);
  const Tensor& delta = ctx.input(2);
  visit_numeric_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    if constexpr (std::is_floating_point_v<float_or_self_t<T>>) {
      const double s = start.scalar_as_double(), d = delta.scalar_as_double();
      for (int64_t i = 0; i < out.numel(); ++i)
        p[i] = T(static_cast<float_or_self_t<T>>(s + static_cast<double>(i) * d));
    } else {
      const int64_t s = start.scalar_as_int(), d = delta.scalar_as_int();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<T>(s + i * d);
    }
  });
  return Status::Ok();
}

}  // namespace

void register_shape_info_ops(std::vector<OpSchema>& table) {
  table.push_back({"Shape", 1, 1, 1, 1, infer_shape, shape_kernel, false});
  table.push_back({"Size", 1, 1, 1, 1, infer_size, size_kernel, false});
  table.push_back({"ConstantOfShape", 1, 1, 1, 1, infer_constant_of_shape, constant_of_shape_kernel, false});
  table.push_back({"Range", 3, 3, 1, 1, infer_range, range_kernel, false});
}

}  // namespace openge
