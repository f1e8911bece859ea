// Ops that answer "where": ArgMax / ArgMin (keepdims, select_last_index) and TopK (k as
// attribute before opset 10, as input after; largest; sorted). Ties go to the lower index
// (ArgMax/ArgMin: to the higher one with select_last_index), as ONNX specifies.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "ops/math/math_common.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

bool numeric(DType dt) { return dt != DType::kBool && dtype_supported(dt); }

// ---- ArgMax / ArgMin --------------------------------------------------------------------

Status infer_arg(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!numeric(dt)) return ctx.error(std::string("input must be a numeric tensor, got ") + dtype_name(dt));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, DType::kInt64);
    return Status::Ok();
  }
  const Shape& shape = ctx.input_shape(0);
  const int64_t axis_attr = ctx.attrs().get_int("axis", 0);
  auto axis = normalize_axis(axis_attr, static_cast<int64_t>(shape.size()));
  if (!axis)
    return ctx.error("axis " + std::to_string(axis_attr) + " is out of range for input shape " +
                     shape_to_string(shape));
  const size_t a = static_cast<size_t>(*axis);
  Shape out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != a)
      out.push_back(shape[i]);
    else if (ctx.attrs().get_int("keepdims", 1) != 0)
      out.push_back(1);
  }
  if (shape[a] == 0 && shape_numel(out) != 0)
    return ctx.error("cannot take " + ctx.node().op_type + " along axis " + std::to_string(*axis) + " of size 0");
  ctx.set_output(0, DType::kInt64, out);
  return Status::Ok();
}

template <class T, bool kMax>
void arg_reduce(const T* x, int64_t* y, AxisSplit s, bool last) {
  using A = reduce_acc_t<T>;
  // "better" is strict for the first index and non-strict for the last one.
  auto better = [last](A v, A best) {
    if constexpr (kMax)
      return last ? v >= best : v > best;
    else
      return last ? v <= best : v < best;
  };
  parallel_for(s.outer * s.inner, 2 * s.axis + 8, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / s.inner, i = t % s.inner;
      const T* line = x + o * s.axis * s.inner + i;
      A best = to_acc<A>(line[0]);
      int64_t best_index = 0;
      for (int64_t r = 1; r < s.axis; ++r) {
        const A v = to_acc<A>(line[r * s.inner]);
        if (better(v, best)) {
          best = v;
          best_index = r;
        }
      }
      y[t] = best_index;
    }
  });
}

Status arg_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  if (!axis) return ctx.error("axis is out of range for input shape " + shape_to_string(x.shape()));
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  if (s.axis == 0) {
    if (s.outer * s.inner == 0) return Status::Ok();
    return ctx.error("cannot take " + ctx.node().op_type + " along an axis of size 0");
  }
  const bool last = ctx.attrs().get_int("select_last_index", 0) != 0;
  const bool is_max = ctx.node().op_type == "ArgMax";
  int64_t* y = ctx.output(0).data<int64_t>();
  const bool ok = visit_numeric_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (is_max)
      arg_reduce<T, true>(x.data<T>(), y, s, last);
    else
      arg_reduce<T, false>(x.data<T>(), y, s, last);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  return Status::Ok();
}

// ---- TopK -------------------------------------------------------------------------------

// k is attribute "k" before opset 10 and input 1 from then on. nullopt: not known yet.
Result<std::optional<int64_t>> topk_k(const Attributes& attrs, int64_t opset, const Tensor* k_input, bool has_k_input) {
  if (opset < 10) {
    if (!attrs.has("k")) return invalid_argument("attribute k is required before opset 10");
    return std::optional<int64_t>(attrs.get_int("k", 0));
  }
  if (!has_k_input) return invalid_argument("input K is required from opset 10");
  if (!k_input) return std::optional<int64_t>();
  auto k = read_scalar_int(*k_input, "K");
  if (!k.ok()) return k.status();
  return std::optional<int64_t>(*k);
}

Status infer_topk(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!numeric(dt)) return ctx.error(std::string("input must be a numeric tensor, got ") + dtype_name(dt));
  auto k = topk_k(ctx.attrs(), ctx.opset(), ctx.input_value(1), ctx.has_input(1));
  if (!k.ok()) return ctx.error(k.status().message());
  if (!ctx.input_shape_known(0) || !k->has_value()) {
    ctx.set_output_dtype(0, dt);
    if (ctx.num_outputs() > 1) ctx.set_output_dtype(1, DType::kInt64);
    return Status::Ok();
  }
  Shape shape = ctx.input_shape(0);
  const int64_t axis_attr = ctx.attrs().get_int("axis", -1);
  auto axis = normalize_axis(axis_attr, static_cast<int64_t>(shape.size()));
  if (!axis)
    return ctx.error("axis " + std::to_string(axis_attr) + " is out of range for input shape " +
                     shape_to_string(shape));
  const int64_t kv = **k;
  const int64_t dim = shape[static_cast<size_t>(*axis)];
  if (kv < 0 || (dim >= 0 && kv > dim))
    return ctx.error("k = " + std::to_string(kv) + " must be in [0, " + std::to_string(dim) + "] (the size of axis " +
                     std::to_string(*axis) + ")");
  shape[static_cast<size_t>(*axis)] = kv;
  ctx.set_output(0, dt, shape);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::kInt64, shape);
  return Status::Ok();
}

template <class A>
struct Candidate {
  A value;
  int64_t index;
};

// Strict weak orders that put NaN above every number (so a NaN never breaks the sort) and
// break ties by the lower index.
template <class A>
bool ranks_before_largest(const Candidate<A>& a, const Candidate<A>& b) {
  if constexpr (std::is_floating_point_v<A>) {
    const bool na = std::isnan(a.value), nb = std::isnan(b.value);
    if (na || nb) return na && !nb ? true : (na && nb ? a.index < b.index : false);
  }
  if (a.value != b.value) return a.value > b.value;
  return a.index < b.index;
}
template <class A>
bool ranks_before_smallest(const Candidate<A>& a, const Candidate<A>& b) {
  if constexpr (std::is_floating_point_v<A>) {
    const bool na = std::isnan(a.value), nb = std::isnan(b.value);
    if (na || nb) return !na && nb ? true : (na && nb ? a.index < b.index : false);
  }
  if (a.value != b.value) return a.value < b.value;
  return a.index < b.index;
}

template <class T>
void topk(const T* x, T* values, int64_t* indices, AxisSplit s, int64_t k, bool largest) {
  using A = reduce_acc_t<T>;
  parallel_for(s.outer * s.inner, 8 * s.axis + 8, [&](int64_t b, int64_t e) {
    std::vector<Candidate<A>> line(static_cast<size_t>(s.axis));
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / s.inner, i = t % s.inner;
      const T* src = x + o * s.axis * s.inner + i;
      for (int64_t r = 0; r < s.axis; ++r) line[static_cast<size_t>(r)] = {to_acc<A>(src[r * s.inner]), r};
      if (largest)
        std::partial_sort(line.begin(), line.begin() + k, line.end(), ranks_before_largest<A>);
      else
        std::partial_sort(line.begin(), line.begin() + k, line.end(), ranks_before_smallest<A>);
      const int64_t base = o * k * s.inner + i;
      for (int64_t r = 0; r < k; ++r) {
        // Values are copied from the input rather than re-rounded from the accumulator type.
        if (values) values[base + r * s.inner] = src[line[static_cast<size_t>(r)].index * s.inner];
        if (indices) indices[base + r * s.inner] = line[static_cast<size_t>(r)].index;
      }
    }
  });
}

Status topk_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto k = topk_k(ctx.attrs(), ctx.opset(), ctx.has_input(1) ? &ctx.input(1) : nullptr, ctx.has_input(1));
  if (!k.ok()) return ctx.error(k.status().message());
  auto axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  if (!axis) return ctx.error("axis is out of range for input shape " + shape_to_string(x.shape()));
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  const int64_t kv = k->value_or(-1);
  if (kv < 0 || kv > s.axis)
    return ctx.error("k = " + std::to_string(kv) + " must be in [0, " + std::to_string(s.axis) + "]");
  if (kv == 0) return Status::Ok();
  const bool largest = ctx.attrs().get_int("largest", 1) != 0;
  int64_t* indices = ctx.has_output(1) ? ctx.output(1).data<int64_t>() : nullptr;
  const bool ok = visit_numeric_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* values = ctx.has_output(0) ? ctx.output(0).data<T>() : nullptr;
    topk<T>(x.data<T>(), values, indices, s, kv, largest);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  return Status::Ok();
}

}  // namespace

void register_reduce_index_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"ArgMax", 1, 1, 1, 1, infer_arg, arg_kernel});
  table.push_back(OpSchema{"ArgMin", 1, 1, 1, 1, infer_arg, arg_kernel});
  table.push_back(OpSchema{"TopK", 1, 2, 2, 2, infer_topk, topk_kernel});
}

}  // namespace openge
