// Hardmax: 1 at the first maximum of each row along `axis`, 0 elsewhere. Rows follow Softmax's
// rules: before opset 13 the input is coerced to 2-D at `axis` (default 1; the row is every dim
// from `axis` on), from opset 13 the row is the one dim `axis` (default -1).
#include <algorithm>
#include <optional>
#include <string>

#include "ops/elementwise/elementwise_common.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

using elementwise::kFloatTypes;

int64_t hardmax_axis(int64_t opset, const Attributes& attrs) { return attrs.get_int("axis", opset < 13 ? 1 : -1); }

// The [outer, row, inner] view of `shape` for this opset's axis rule; nullopt when out of range.
std::optional<AxisSplit> hardmax_split(const Shape& shape, int64_t axis, int64_t opset) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (opset < 13) {
    if (axis < -rank || axis > rank) return std::nullopt;  // axis == rank: the whole tensor is one row
    if (axis < 0) axis += rank;
    AxisSplit s;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? s.outer : s.axis) *= shape[static_cast<size_t>(i)];
    return s;
  }
  const std::optional<int64_t> a = normalize_axis(axis, rank);
  if (!a) return std::nullopt;
  return split_at_axis(shape, *a);
}

Status hardmax_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes));
  if (ctx.input_shape_known(0)) {
    const Shape& shape = ctx.input_shape(0);
    const int64_t axis = hardmax_axis(ctx.opset(), ctx.attrs());
    const bool known = std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d >= 0; });
    if (known && !hardmax_split(shape, axis, ctx.opset()))
      return ctx.error("axis " + std::to_string(axis) + " is out of range for input shape " + shape_to_string(shape));
  }
  elementwise::infer_like_input0(ctx, 0, ctx.input_dtype(0));
  return Status::Ok();
}

Status hardmax_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const int64_t axis = hardmax_axis(ctx.opset(), ctx.attrs());
  const std::optional<AxisSplit> split = hardmax_split(x.shape(), axis, ctx.opset());
  if (!split)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for input shape " + shape_to_string(x.shape()));
  const AxisSplit s = *split;
  if (x.numel() == 0) return Status::Ok();
  const bool ok = elementwise::visit_dtype_in<kFloatTypes>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = float_or_self_t<T>;
    const T* px = x.data<T>();
    T* py = y.data<T>();
    parallel_for(s.outer * s.inner, 2 * s.axis, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t base = (r / s.inner) * s.axis * s.inner + r % s.inner;
        // First maximum; a NaN counts as larger than everything (NumPy's argmax, which ONNX's
        // reference uses), the first NaN wins.
        int64_t best = 0;
        C best_v = static_cast<C>(px[base]);
        for (int64_t k = 1; k < s.axis && best_v == best_v; ++k) {
          const C v = static_cast<C>(px[base + k * s.inner]);
          if (v > best_v || v != v) {
            best = k;
            best_v = v;
          }
        }
        for (int64_t k = 0; k < s.axis; ++k) py[base + k * s.inner] = T(k == best ? 1.0f : 0.0f);
      }
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

}  // namespace

void register_hardmax_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Hardmax", 1, 1, 1, 1, &hardmax_infer, &hardmax_kernel, false});
}

}  // namespace openge
