// Variadic broadcasting ops: Min Max Sum Mean. Two inputs go straight through the binary
// loop; more accumulate in the compute type (float for fp16/bf16) and round once at the end.
#include <cmath>
#include <type_traits>

#include "ops/elementwise/elementwise_broadcast.h"
#include "ops/elementwise/elementwise_common.h"

namespace openge::elementwise {
namespace {

template <class C>
bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>)
    return std::isnan(v);
  else
    return false;
}

// NaN propagates (as numpy.maximum / minimum do).
struct MaxOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C a, C b) const {
    return a > b || is_nan(a) ? a : b;
  }
};
struct MinOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C a, C b) const {
    return a < b || is_nan(a) ? a : b;
  }
};
struct SumOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_add(a, b);
  }
};

template <DTypeSet Allowed>
Status variadic_infer(InferContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
    OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, i, Allowed));
    OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 0, i));
  }
  return infer_broadcast(ctx, 0, ctx.num_inputs(), ctx.input_dtype(0));
}

// plans[k - 1] broadcasts input k into the output (with input 0 for k = 1, with the running
// result for k >= 2): made on every call by the reference kernel, once by the prepared one.
std::vector<BroadcastPlan> variadic_plans(const std::vector<Shape>& inputs, const Shape& out) {
  std::vector<BroadcastPlan> plans;
  for (size_t k = 1; k < inputs.size(); ++k)
    plans.push_back(make_broadcast_plan({k == 1 ? inputs[0] : out, inputs[k]}, out));
  return plans;
}

template <class Op, bool kMean, DTypeSet Allowed>
Status variadic_planned(KernelContext& ctx, const std::vector<BroadcastPlan>& plans) {
  const size_t n = ctx.num_inputs();
  Tensor& out = ctx.output(0);
  const bool ok = visit_dtype_in<Allowed>(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = float_or_self_t<T>;
    const Tensor& first = ctx.input(0);
    if (n == 1) {  // the output has the input's shape
      copy_bytes(out.raw(), first.raw(), out.nbytes());
      return;
    }
    const int64_t cost = is_half_v<T> ? Op::kCost + kMediumCost : Op::kCost;
    if (n == 2 && !kMean) {
      broadcast_binary_planned(plans[0], first.data<T>(), ctx.input(1).data<T>(), out.data<T>(), cost, Op{});
      return;
    }
    Tensor scratch;
    C* acc = nullptr;
    if constexpr (std::is_same_v<C, T>) {
      acc = out.data<T>();
    } else {
      scratch = Tensor(dtype_of<C>(), out.shape());
      acc = scratch.data<C>();
    }
    broadcast_binary_planned(plans[0], first.data<T>(), ctx.input(1).data<T>(), acc, cost, Op{});
    for (size_t k = 2; k < n; ++k)  // acc already has the output's shape, so updating in place is safe
      broadcast_binary_planned(plans[k - 1], acc, ctx.input(k).data<T>(), acc, cost, Op{});
    if constexpr (kMean) {
      const C count = static_cast<C>(n);
      map_unary(acc, out.data<T>(), out.numel(), kMediumCost, [count](C v) { return v / count; });
    } else if constexpr (!std::is_same_v<C, T>) {
      map_unary(acc, out.data<T>(), out.numel(), kCheapCost, [](C v) { return v; });
    }
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(out.dtype()));
}

template <class Op, bool kMean, DTypeSet Allowed>
Status variadic_kernel(KernelContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.input(i).shape());
  return variadic_planned<Op, kMean, Allowed>(ctx, variadic_plans(shapes, ctx.output(0).shape()));
}

template <class Op, bool kMean, DTypeSet Allowed>
class PreparedVariadic final : public PreparedKernel {
 public:
  explicit PreparedVariadic(std::vector<BroadcastPlan> plans) : plans_(std::move(plans)) {}
  Status run(KernelContext& ctx) const override { return variadic_planned<Op, kMean, Allowed>(ctx, plans_); }

 private:
  std::vector<BroadcastPlan> plans_;
};

template <class Op, bool kMean, DTypeSet Allowed>
Result<std::unique_ptr<CompiledKernel>> variadic_prepare(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  std::vector<Shape> shapes;
  for (const ValueInfo& in : request.inputs) shapes.push_back(in.shape);
  return std::unique_ptr<CompiledKernel>(
      std::make_unique<PreparedVariadic<Op, kMean, Allowed>>(variadic_plans(shapes, request.outputs[0].shape)));
}

template <class Op, bool kMean, DTypeSet Allowed>
OpSchema variadic_schema(std::string_view name) {
  OpSchema row{name, 1, -1, 1, 1, &variadic_infer<Allowed>, &variadic_kernel<Op, kMean, Allowed>, false};
  row.prepare = &variadic_prepare<Op, kMean, Allowed>;
  return row;
}

}  // namespace

void register_variadic_ops(std::vector<OpSchema>& table) {
  table.push_back(variadic_schema<MaxOp, false, kNumericTypes>("Max"));
  table.push_back(variadic_schema<MinOp, false, kNumericTypes>("Min"));
  table.push_back(variadic_schema<SumOp, false, kFloatTypes>("Sum"));
  table.push_back(variadic_schema<SumOp, true, kFloatTypes>("Mean"));
}

}  // namespace openge::elementwise
