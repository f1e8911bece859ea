// Softmax / LogSoftmax (before opset 13: the input coerced to 2-D at `axis`; from 13: along
// `axis` only) and CumSum (exclusive, reverse; axis as input 1). Rows are processed in three
// vectorisable passes: max, exp and sum, scale.
#include <cmath>
#include <vector>

#include "ops/math/math_common.h"
#include "ops/prepared_kernel.h"
#include "ops/math/math_exp.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/reduce/reduce_kernels.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

// ---- Softmax / LogSoftmax ---------------------------------------------------------------

int64_t softmax_axis_attr(const InferContext& ctx) { return ctx.attrs().get_int("axis", ctx.opset() < 13 ? 1 : -1); }

Status infer_softmax(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!dtype_is_float(dt)) return ctx.error(std::string("input must be a float tensor, got ") + dtype_name(dt));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& shape = ctx.input_shape(0);
  const int64_t axis = softmax_axis_attr(ctx);
  // Before opset 13 the axis may also equal the rank (the whole tensor is one row).
  const int64_t rank = static_cast<int64_t>(shape.size());
  const bool ok = ctx.opset() < 13 ? (axis >= -rank && axis <= rank) : normalize_axis(axis, rank).has_value();
  if (!ok)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for input shape " + shape_to_string(shape));
  ctx.set_output(0, dt, shape);
  return Status::Ok();
}

// e^v for v <= 0: the vectorisable polynomial by default, libm under the high_precision impl mode.
template <bool kPrecise, class A>
A exp_nonpositive_as(A v) {
  if constexpr (kPrecise)
    return std::exp(v);
  else
    return exp_nonpositive(v);
}

// Softmax of each contiguous row of n elements.
template <class T, bool kPrecise>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t n, bool log) {
  using A = reduce_acc_t<T>;
  parallel_for(rows, 24 * n + 16, [&](int64_t b, int64_t e) {
    std::vector<A> scratch;
    if constexpr (!std::is_same_v<T, A>) scratch.resize(static_cast<size_t>(n));
    for (int64_t row = b; row < e; ++row) {
      const T* xr = x + row * n;
      T* yr = y + row * n;
      A* ex = nullptr;        // exp(x - max), in y itself when it has the accumulator's type
      const A* xa = nullptr;  // the row in the accumulator type
      if constexpr (std::is_same_v<T, A>) {
        ex = yr;
        xa = xr;
      } else {
        for (int64_t i = 0; i < n; ++i) scratch[static_cast<size_t>(i)] = to_acc<A>(xr[i]);
        ex = scratch.data();
        xa = ex;
      }
      const A m = reduce_row<MaxPolicy<A>>(xa, n);
      if constexpr (kPrecise) {
        for (int64_t i = 0; i < n; ++i) ex[i] = std::exp(xa[i] - m);
      } else {
        exp_shifted_row(xa, ex, n, m);
      }
      const A sum = reduce_row<SumPolicy<A>>(ex, n);
      if (log) {
        // ex may hold the row itself (converted), so read x again from the input.
        const A shift = m + std::log(sum);
        for (int64_t i = 0; i < n; ++i) yr[i] = from_acc<T>(to_acc<A>(xr[i]) - shift);
      } else {
        const A inv = A(1) / sum;
        for (int64_t i = 0; i < n; ++i) yr[i] = from_acc<T>(ex[i] * inv);
      }
    }
  });
}

// Softmax over the middle dimension of [outer, R, inner], inner columns as vector lanes.
template <class T, bool kPrecise>
void softmax_blocks(const T* x, T* y, AxisSplit s, bool log) {
  using A = reduce_acc_t<T>;
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (s.inner + kBlock - 1) / kBlock;
  parallel_for(s.outer * blocks, 40 * s.axis * kBlock, [&](int64_t b, int64_t e) {
    A m[kBlock], sum[kBlock];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, i0 = (t % blocks) * kBlock, n = std::min(kBlock, s.inner - i0);
      const T* xb = x + o * s.axis * s.inner + i0;
      T* yb = y + o * s.axis * s.inner + i0;
      for (int64_t i = 0; i < n; ++i) {
        m[i] = MaxPolicy<A>::init();
        sum[i] = 0;
      }
      for (int64_t r = 0; r < s.axis; ++r)
        for (int64_t i = 0; i < n; ++i) m[i] = MaxPolicy<A>::step(m[i], to_acc<A>(xb[r * s.inner + i]));
      for (int64_t r = 0; r < s.axis; ++r)
        for (int64_t i = 0; i < n; ++i) sum[i] += exp_nonpositive_as<kPrecise>(to_acc<A>(xb[r * s.inner + i]) - m[i]);
      for (int64_t i = 0; i < n; ++i) sum[i] = log ? m[i] + std::log(sum[i]) : A(1) / sum[i];
      for (int64_t r = 0; r < s.axis; ++r)
        for (int64_t i = 0; i < n; ++i) {
          const A v = to_acc<A>(xb[r * s.inner + i]);
          yb[r * s.inner + i] = from_acc<T>(log ? v - sum[i] : exp_nonpositive_as<kPrecise>(v - m[i]) * sum[i]);
        }
    }
  });
}

// What a Softmax node decides from its attributes and input shape: the rows it normalises.
struct SoftmaxPlan {
  AxisSplit split;
  bool log = false;      // LogSoftmax
  bool precise = false;  // the high_precision impl mode: libm's exp
};

Result<SoftmaxPlan> plan_softmax(const Node& node, int64_t opset, const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis_attr = node.attrs.get_int("axis", opset < 13 ? 1 : -1);
  SoftmaxPlan plan;
  plan.log = node.op_type == "LogSoftmax";
  plan.precise = high_precision_impl(node);
  if (opset < 13) {
    if (axis_attr < -rank || axis_attr > rank)
      return invalid_argument("axis is out of range for input shape " + shape_to_string(shape));
    const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? plan.split.outer : plan.split.axis) *= shape[static_cast<size_t>(i)];
  } else {
    auto axis = normalize_axis(axis_attr, rank);
    if (!axis) return invalid_argument("axis is out of range for input shape " + shape_to_string(shape));
    plan.split = split_at_axis(shape, *axis);
  }
  return plan;
}

Status run_softmax(KernelContext& ctx, const SoftmaxPlan& plan) {
  const Tensor& x = ctx.input(0);
  if (x.numel() == 0) return Status::Ok();
  const AxisSplit& s = plan.split;
  const bool ok = visit_float_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = ctx.output(0).data<T>();
    if (s.inner == 1)
      (plan.precise ? softmax_rows<T, true> : softmax_rows<T, false>)(x.data<T>(), y, s.outer, s.axis, plan.log);
    else
      (plan.precise ? softmax_blocks<T, true> : softmax_blocks<T, false>)(x.data<T>(), y, s, plan.log);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  return Status::Ok();
}

Status softmax_kernel(KernelContext& ctx) {
  auto plan = plan_softmax(ctx.node(), ctx.opset(), ctx.input(0).shape());
  if (!plan.ok()) return ctx.error(plan.status().message());
  return run_softmax(ctx, *plan);
}

// The plan once per compiled shape.
class PreparedSoftmaxKernel final : public PreparedKernel {
 public:
  explicit PreparedSoftmaxKernel(SoftmaxPlan plan) : plan_(plan) {}
  Status run(KernelContext& ctx) const override { return run_softmax(ctx, plan_); }

 private:
  SoftmaxPlan plan_;
};

Result<std::unique_ptr<CompiledKernel>> prepare_softmax(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  auto plan = plan_softmax(request.node, request.opset, request.inputs[0].shape);
  if (!plan.ok()) return not_prepared();  // the reference kernel reports it
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedSoftmaxKernel>(*plan));
}

// ---- CumSum -----------------------------------------------------------------------------

Result<int64_t> cumsum_axis(const Tensor& axis_tensor, int64_t rank) {
  auto axis = read_scalar_int(axis_tensor, "axis");
  if (!axis.ok()) return axis.status();
  auto a = normalize_axis(*axis, rank);
  if (!a)
    return invalid_argument("axis " + std::to_string(*axis) + " is out of range for rank " + std::to_string(rank));
  return *a;
}

Status infer_cumsum(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (dt == DType::kBool || !dtype_supported(dt))
    return ctx.error(std::string("input must be a numeric tensor, got ") + dtype_name(dt));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  if (const Tensor* axis = ctx.input_value(1)) {
    auto a = cumsum_axis(*axis, static_cast<int64_t>(ctx.input_shape(0).size()));
    if (!a.ok()) return ctx.error(a.status().message());
  }
  ctx.set_output(0, dt, ctx.input_shape(0));
  return Status::Ok();
}

template <class T>
void cumsum(const T* x, T* y, AxisSplit s, bool exclusive, bool reverse) {
  using A = reduce_acc_t<T>;
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (s.inner + kBlock - 1) / kBlock;
  parallel_for(s.outer * blocks, 2 * s.axis * std::min(kBlock, s.inner), [&](int64_t b, int64_t e) {
    A acc[kBlock];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, i0 = (t % blocks) * kBlock, n = std::min(kBlock, s.inner - i0);
      for (int64_t i = 0; i < n; ++i) acc[i] = A(0);
      for (int64_t step = 0; step < s.axis; ++step) {
        const int64_t r = reverse ? s.axis - 1 - step : step;
        const int64_t offset = (o * s.axis + r) * s.inner + i0;
        for (int64_t i = 0; i < n; ++i) {
          const A v = to_acc<A>(x[offset + i]);
          if (exclusive) {
            y[offset + i] = from_acc<T>(acc[i]);
            acc[i] = wrap_add(acc[i], v);
          } else {
            acc[i] = wrap_add(acc[i], v);
            y[offset + i] = from_acc<T>(acc[i]);
          }
        }
      }
    }
  });
}

Status cumsum_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto axis = cumsum_axis(ctx.input(1), x.rank());
  if (!axis.ok()) return ctx.error(axis.status().message());
  if (x.numel() == 0) return Status::Ok();
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  const bool exclusive = ctx.attrs().get_int("exclusive", 0) != 0;
  const bool reverse = ctx.attrs().get_int("reverse", 0) != 0;
  const bool ok = visit_numeric_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    cumsum<T>(x.data<T>(), ctx.output(0).data<T>(), s, exclusive, reverse);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  return Status::Ok();
}

}  // namespace

void register_reduce_softmax_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Softmax", 1, 1, 1, 1, infer_softmax, softmax_kernel});
  table.back().prepare = &prepare_softmax;
  table.push_back(OpSchema{"LogSoftmax", 1, 1, 1, 1, infer_softmax, softmax_kernel});
  table.back().prepare = &prepare_softmax;
  table.push_back(OpSchema{"CumSum", 2, 2, 1, 1, infer_cumsum, cumsum_kernel});
}

}  // namespace openge
