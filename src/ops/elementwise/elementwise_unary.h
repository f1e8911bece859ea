// The unary op template: an op is a functor on the compute type (float for fp16/bf16) plus
// the set of dtypes it takes; attributes come in through its constructor. One schema row per
// op in elementwise_unary.cpp / elementwise_activation.cpp.
#pragma once
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "ops/elementwise/elementwise_broadcast.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/prepared_kernel.h"

namespace openge::elementwise {

template <DTypeSet Allowed>
Status unary_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, Allowed));
  infer_like_input0(ctx, 0, ctx.input_dtype(0));
  return Status::Ok();
}

template <class Op>
Op make_op(const Attributes& attrs) {
  if constexpr (std::is_constructible_v<Op, const Attributes&>)
    return Op(attrs);
  else
    return Op{};
}

// Op::kCost is the parallel_for cost per element.
template <class Op, DTypeSet Allowed>
Status unary_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const Op op = make_op<Op>(ctx.attrs());
  const bool ok = visit_dtype_in<Allowed>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    map_unary(x.data<T>(), y.data<T>(), x.numel(), Op::kCost, op);
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

// The prepared form (ops/prepared_kernel.h): the op built from the node's attributes once per
// compiled node instead of on every run.
template <class Op, DTypeSet Allowed>
class PreparedUnaryKernel final : public PreparedKernel {
 public:
  explicit PreparedUnaryKernel(Op op) : op_(std::move(op)) {}
  Status run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const bool ok = visit_dtype_in<Allowed>(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      map_unary(x.data<T>(), y.data<T>(), x.numel(), Op::kCost, op_);
    });
    return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }

 private:
  const Op op_;
};

template <class Op, DTypeSet Allowed>
Result<std::unique_ptr<CompiledKernel>> prepare_unary(const KernelRequest& request) {
  if (!all_shapes_static(request) || request.inputs.empty()) return not_prepared();
  return std::unique_ptr<CompiledKernel>(
      std::make_unique<PreparedUnaryKernel<Op, Allowed>>(make_op<Op>(request.node.attrs)));
}

template <class Op, DTypeSet Allowed>
constexpr OpSchema unary_schema(std::string_view name) {
  OpSchema row{name, 1, 1, 1, 1, &unary_infer<Allowed>, &unary_kernel<Op, Allowed>, false};
  row.prepare = &prepare_unary<Op, Allowed>;
  return row;
}

// An op with a fast default (vectorisable approximation) and an exact high_precision
// implementation, chosen per node by its impl mode (high_precision_impl).
template <class FastOp, class PreciseOp, DTypeSet Allowed>
Status impl_mode_unary_kernel(KernelContext& ctx) {
  return high_precision_impl(ctx.node()) ? unary_kernel<PreciseOp, Allowed>(ctx) : unary_kernel<FastOp, Allowed>(ctx);
}

template <class FastOp, class PreciseOp, DTypeSet Allowed>
Result<std::unique_ptr<CompiledKernel>> prepare_impl_mode_unary(const KernelRequest& request) {
  return high_precision_impl(request.node) ? prepare_unary<PreciseOp, Allowed>(request)
                                           : prepare_unary<FastOp, Allowed>(request);
}

template <class FastOp, class PreciseOp, DTypeSet Allowed>
constexpr OpSchema impl_mode_unary_schema(std::string_view name) {
  OpSchema row{name, 1, 1, 1, 1, &unary_infer<Allowed>, &impl_mode_unary_kernel<FastOp, PreciseOp, Allowed>, false};
  row.prepare = &prepare_impl_mode_unary<FastOp, PreciseOp, Allowed>;
  return row;
}

}  // namespace openge::elementwise
