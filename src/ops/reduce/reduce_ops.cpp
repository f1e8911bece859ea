// Reduce* ops (ONNX opsets 7-18 forms): axes from the attribute, or from input 1 for
// ReduceSum since opset 13 (the other reductions since 18), keepdims, noop_with_empty_axes.
// Adjacent reduced / kept axes are merged so the common cases (last axis: LayerNorm's
// ReduceMean; a contiguous middle block: global pooling) run as contiguous vector loops.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <string_view>

#include "ops/math/math_common.h"
#include "ops/prepared_kernel.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/reduce/reduce_kernels.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

struct ReduceOpRow {
  std::string_view op_type;
  ReduceKind kind;
};
constexpr ReduceOpRow kReduceOps[] = {
    {"ReduceSum", ReduceKind::kSum},       {"ReduceMean", ReduceKind::kMean},
    {"ReduceMax", ReduceKind::kMax},       {"ReduceMin", ReduceKind::kMin},
    {"ReduceProd", ReduceKind::kProd},     {"ReduceL1", ReduceKind::kL1},
    {"ReduceL2", ReduceKind::kL2},         {"ReduceSumSquare", ReduceKind::kSumSquare},
    {"ReduceLogSum", ReduceKind::kLogSum}, {"ReduceLogSumExp", ReduceKind::kLogSumExp},
};

ReduceKind kind_of(std::string_view op_type) {
  for (const auto& row : kReduceOps)
    if (row.op_type == op_type) return row.kind;
  return ReduceKind::kSum;
}

// What a reduction node does to a given input shape.
struct ReducePlan {
  bool identity = false;      // noop_with_empty_axes with no axes: output = input
  std::vector<bool> reduced;  // per input axis
  Shape out_shape;
};

// The axes moved from attribute to input 1 in ReduceSum-13 and in every other Reduce*-18.
bool axes_from_input(std::string_view op_type, int64_t opset) {
  return op_type == "ReduceSum" ? opset >= 13 : opset >= 18;
}

Result<ReducePlan> plan_reduce(const Node& node, int64_t opset, const Shape& shape, const Tensor* axes_input) {
  std::vector<int64_t> axes;
  if (axes_from_input(node.op_type, opset)) {
    if (axes_input) {
      if (axes_input->dtype() != DType::kInt64)
        return invalid_argument(std::string("axes input must be int64, got ") + dtype_name(axes_input->dtype()));
      if (axes_input->rank() > 1)
        return invalid_argument("axes input must be 1-D, got shape " + shape_to_string(axes_input->shape()));
      axes = axes_input->to_int64_vector();
    }
  } else {
    axes = node.attrs.get_ints("axes");
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  const bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  ReducePlan plan;
  if (axes.empty() && node.attrs.get_int("noop_with_empty_axes", 0) != 0) {
    plan.identity = true;
    plan.reduced.assign(shape.size(), false);
    plan.out_shape = shape;
    return plan;
  }
  plan.reduced.assign(shape.size(), axes.empty());
  auto normalized = normalize_axes(axes, rank);
  if (!normalized.ok()) return normalized.status();
  for (int64_t a : *normalized) plan.reduced[static_cast<size_t>(a)] = true;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!plan.reduced[i])
      plan.out_shape.push_back(shape[i]);
    else if (keepdims)
      plan.out_shape.push_back(1);
  }
  return plan;
}

Status infer_reduce(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (dt == DType::kBool || !dtype_supported(dt) || dt == DType::kUndefined)
    return ctx.error(std::string("input must be a numeric tensor, got ") + dtype_name(dt));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const bool from_input = axes_from_input(ctx.node().op_type, ctx.opset());
  if (from_input && ctx.has_input(1) && !ctx.input_value(1)) {
    ctx.set_output_dtype(0, dt);  // the axes arrive at run time
    return Status::Ok();
  }
  if (!from_input && ctx.has_input(1)) return ctx.error("takes its axes as an attribute at this opset, not as input 1");
  auto plan = plan_reduce(ctx.node(), ctx.opset(), ctx.input_shape(0), from_input ? ctx.input_value(1) : nullptr);
  if (!plan.ok()) return ctx.error(plan.status().message());
  ctx.set_output(0, dt, plan->out_shape);
  return Status::Ok();
}

// How a reduction walks its input: over the middle dimension of [outer, R, inner] with the
// output [outer, inner]; or, when the reduced axes are not adjacent, after gathering x into
// [kept, R] order (into scratch of kept * R elements).
struct ReduceLayout {
  bool gather = false;
  int64_t outer = 1, R = 1, inner = 1;
  Shape perm_shape;  // gather only
  std::vector<int64_t> perm_strides;
};

ReduceLayout reduce_layout(const Shape& shape, const std::vector<bool>& reduced) {
  // Merge adjacent axes of the same kind, dropping size-1 axes (they change no offsets).
  std::vector<int64_t> sizes;
  std::vector<bool> kinds;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!kinds.empty() && kinds.back() == reduced[i])
      sizes.back() *= shape[i];
    else {
      sizes.push_back(shape[i]);
      kinds.push_back(reduced[i]);
    }
  }
  int reduced_blocks = 0;
  for (bool k : kinds) reduced_blocks += k;
  ReduceLayout l;
  if (reduced_blocks <= 1) {
    bool seen = false;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (kinds[i]) {
        l.R = sizes[i];
        seen = true;
      } else if (seen)
        l.inner *= sizes[i];
      else
        l.outer *= sizes[i];
    }
    return l;
  }
  // Several separate reduced blocks: gather into [kept..., reduced...] order, then reduce rows.
  l.gather = true;
  const std::vector<int64_t> strides = contiguous_strides(Shape(sizes.begin(), sizes.end()));
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < sizes.size(); ++i)
      if (kinds[i] == (pass == 1)) {
        l.perm_shape.push_back(sizes[i]);
        l.perm_strides.push_back(strides[i]);
        (pass ? l.R : l.outer) *= sizes[i];
      }
  return l;
}

// Calls fn(data, outer, R, inner) on x, or on x gathered into `scratch` (l.outer * l.R elements).
template <class T, class Fn>
void with_reduce_layout(const T* x, const ReduceLayout& l, T* scratch, Fn&& fn) {
  if (!l.gather) {
    fn(x, l.outer, l.R, l.inner);
    return;
  }
  gather_strided(x, l.perm_shape, l.perm_strides, scratch);
  fn(static_cast<const T*>(scratch), l.outer, l.R, int64_t{1});
}

template <template <class> class Policy, class T>
void reduce_with(const T* x, T* y, const ReduceLayout& l, T* scratch) {
  with_reduce_layout(x, l, scratch, [&](const T* data, int64_t outer, int64_t R, int64_t inner) {
    reduce_blocks<Policy<reduce_acc_t<T>>>(data, y, outer, R, inner);
  });
}

// log(sum(exp(x))) computed as max + log(sum(exp(x - max))) so large inputs do not overflow.
template <class T>
void reduce_log_sum_exp(const T* x, T* y, const ReduceLayout& l, T* scratch) {
  using A = std::conditional_t<std::is_same_v<reduce_acc_t<T>, float>, float, double>;
  with_reduce_layout(x, l, scratch, [&](const T* data, int64_t outer, int64_t R, int64_t inner) {
    parallel_for(outer * inner, 30 * R + 8, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const T* line = data + (t / inner) * R * inner + t % inner;
        A m = -std::numeric_limits<A>::infinity();
        for (int64_t r = 0; r < R; ++r) m = MaxPolicy<A>::step(m, to_acc<A>(line[r * inner]));
        A result = m;  // -inf (empty or all -inf), +inf or NaN pass through
        if (std::isfinite(m)) {
          A sum = 0;
          for (int64_t r = 0; r < R; ++r) sum += std::exp(to_acc<A>(line[r * inner]) - m);
          result = m + std::log(sum);
        }
        if constexpr (std::is_integral_v<T>) {
          // Integer outputs: round toward zero, saturating instead of overflowing the cast.
          const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
          const double hi = static_cast<double>(std::numeric_limits<T>::max());
          const double v = std::isnan(result) ? 0.0 : std::max(lo, std::min(hi, static_cast<double>(result)));
          y[t] = static_cast<T>(v);
        } else {
          y[t] = from_acc<T>(result);
        }
      }
    });
  });
}

template <class T>
void run_reduce(ReduceKind kind, const T* x, T* y, const ReduceLayout& l, T* scratch) {
  switch (kind) {
    case ReduceKind::kSum:
      return reduce_with<SumPolicy>(x, y, l, scratch);
    case ReduceKind::kMean:
      return reduce_with<MeanPolicy>(x, y, l, scratch);
    case ReduceKind::kMax:
      return reduce_with<MaxPolicy>(x, y, l, scratch);
    case ReduceKind::kMin:
      return reduce_with<MinPolicy>(x, y, l, scratch);
    case ReduceKind::kProd:
      return reduce_with<ProdPolicy>(x, y, l, scratch);
    case ReduceKind::kL1:
      return reduce_with<L1Policy>(x, y, l, scratch);
    case ReduceKind::kL2:
      return reduce_with<L2Policy>(x, y, l, scratch);
    case ReduceKind::kSumSquare:
      return reduce_with<SumSquarePolicy>(x, y, l, scratch);
    case ReduceKind::kLogSum:
      return reduce_with<LogSumPolicy>(x, y, l, scratch);
    case ReduceKind::kLogSumExp:
      return reduce_log_sum_exp(x, y, l, scratch);
  }
}

// Reduces with a layout made beforehand; `scratch` holds l.outer * l.R elements when l.gather
// (null: a temporary is allocated).
Status reduce_planned(KernelContext& ctx, bool identity, const ReduceLayout& l, void* scratch) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (identity) {
    if (x.nbytes()) std::memcpy(y.raw(), x.raw(), x.nbytes());
    return Status::Ok();
  }
  const ReduceKind kind = kind_of(ctx.node().op_type);
  const bool ok = visit_numeric_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> own;
    T* tmp = static_cast<T*>(scratch);
    if (l.gather && !tmp) {
      own.resize(static_cast<size_t>(l.outer * l.R));
      tmp = own.data();
    }
    run_reduce<T>(kind, x.data<T>(), y.data<T>(), l, tmp);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  return Status::Ok();
}

Status reduce_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const bool from_input = axes_from_input(ctx.node().op_type, ctx.opset());
  auto plan = plan_reduce(ctx.node(), ctx.opset(), x.shape(), from_input && ctx.has_input(1) ? &ctx.input(1) : nullptr);
  if (!plan.ok()) return ctx.error(plan.status().message());
  Tensor& y = ctx.output(0);
  if (y.shape() != plan->out_shape)
    return ctx.error("output shape " + shape_to_string(y.shape()) + " does not match the reduction's " +
                     shape_to_string(plan->out_shape));
  return reduce_planned(ctx, plan->identity, plan->identity ? ReduceLayout{} : reduce_layout(x.shape(), plan->reduced),
                        nullptr);
}

// Constant axes: the plan and the layout once, the gather buffer in arena scratch.
class PreparedReduce final : public PreparedKernel {
 public:
  PreparedReduce(bool identity, ReduceLayout layout, size_t scratch)
      : identity_(identity), layout_(std::move(layout)), scratch_(scratch) {}
  size_t scratch_bytes() const override { return scratch_; }
  Status run(KernelContext& ctx) const override { return reduce_planned(ctx, identity_, layout_, ctx.scratch()); }

 private:
  bool identity_;
  ReduceLayout layout_;
  size_t scratch_;
};

Result<std::unique_ptr<CompiledKernel>> prepare_reduce(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  const ValueInfo& x = request.inputs[0];
  const bool from_input = axes_from_input(request.node.op_type, request.opset);
  const bool has_axes_input = request.inputs.size() > 1 && request.inputs[1].dtype != DType::kUndefined;
  if (from_input && has_axes_input && !request.inputs[1].value) return not_prepared();  // axes known at run time
  auto plan = plan_reduce(request.node, request.opset, x.shape,
                          from_input && has_axes_input ? request.inputs[1].value : nullptr);
  if (!plan.ok() || plan->out_shape != request.outputs[0].shape || dtype_size(x.dtype) == 0) return not_prepared();
  ReduceLayout layout = plan->identity ? ReduceLayout{} : reduce_layout(x.shape, plan->reduced);
  const size_t scratch = layout.gather ? static_cast<size_t>(layout.outer * layout.R) * dtype_size(x.dtype) : 0;
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedReduce>(plan->identity, std::move(layout), scratch));
}

}  // namespace

void register_reduce_ops(std::vector<OpSchema>& table) {
  for (const auto& row : kReduceOps) {
    table.push_back(OpSchema{row.op_type, 1, 2, 1, 1, infer_reduce, reduce_kernel});
    table.back().prepare = &prepare_reduce;
  }
  register_reduce_index_ops(table);
  register_reduce_softmax_ops(table);
}

}  // namespace openge
