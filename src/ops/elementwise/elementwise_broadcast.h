// The loops behind every elementwise kernel. A broadcast is planned once per call: dims of
// size 1 are dropped and neighbouring dims that every input walks the same way are merged, so
// the common cases become one flat loop (equal shapes, a scalar operand) or rows of an inner
// loop in which each operand either advances (stride 1) or stays put (stride 0): a bias row
// vector, a per-channel [C,1,1] operand, a per-row column vector. The inner loops have
// compile-time strides and plain expressions, so the compiler vectorises them for float.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ir/dispatch.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/prepared_kernel.h"
#include "base/parallel.h"

namespace openge::elementwise {

// Rough cycles per element handed to parallel_for.
constexpr int64_t kCheapCost = 1;       // + - * compare select
constexpr int64_t kMediumCost = 4;      // division, fp16 conversion
constexpr int64_t kExpensiveCost = 24;  // exp, log, erf, tanh, pow

constexpr size_t kMaxBroadcastInputs = 3;  // Where

struct BroadcastPlan {
  std::vector<int64_t> dims;                  // merged dims, innermost last; never empty
  std::vector<std::vector<int64_t>> strides;  // [input][dim], in elements; 0 = broadcast
  int64_t numel = 0;                          // output elements
};

// Plans reading `inputs` broadcast to `out` (the caller has checked they broadcast).
BroadcastPlan make_broadcast_plan(const std::vector<Shape>& inputs, const Shape& out);

// Calls run(offsets, out_pos, len) for runs of `len` consecutive output elements starting at
// `out_pos`, along which input k starts at element offsets[k] and advances by its innermost
// stride (plan.strides[k].back(), 0 or 1). Runs are split across threads.
template <class RunFn>
void for_each_broadcast_run(const BroadcastPlan& plan, int64_t cost_per_item, RunFn&& run) {
  const int64_t inner = plan.dims.back();
  const size_t k_inputs = plan.strides.size();
  const size_t outer_rank = plan.dims.size() - 1;
  parallel_for(plan.numel, cost_per_item, [&](int64_t begin, int64_t end) {
    // Odometer over the outer dims, started at the row that holds `begin` (on the stack unless
    // the merged rank is unusually high: a run allocates nothing).
    constexpr size_t kInlineRank = 16;
    int64_t idx_inline[kInlineRank] = {};
    std::vector<int64_t> idx_heap;
    if (outer_rank > kInlineRank) idx_heap.assign(outer_rank, 0);
    int64_t* idx = outer_rank > kInlineRank ? idx_heap.data() : idx_inline;
    std::array<int64_t, kMaxBroadcastInputs> row_off{};
    int64_t row = begin / inner;
    for (size_t d = outer_rank; d-- > 0;) {
      idx[d] = row % plan.dims[d];
      row /= plan.dims[d];
      for (size_t k = 0; k < k_inputs; ++k) row_off[k] += idx[d] * plan.strides[k][d];
    }
    int64_t col = begin % inner;
    std::array<int64_t, kMaxBroadcastInputs> off{};
    for (int64_t pos = begin; pos < end;) {
      const int64_t len = std::min(inner - col, end - pos);
      for (size_t k = 0; k < k_inputs; ++k) off[k] = row_off[k] + col * plan.strides[k].back();
      run(off.data(), pos, len);
      pos += len;
      col = 0;
      for (size_t d = outer_rank; d-- > 0;) {
        for (size_t k = 0; k < k_inputs; ++k) row_off[k] += plan.strides[k][d];
        if (++idx[d] < plan.dims[d]) break;
        for (size_t k = 0; k < k_inputs; ++k) row_off[k] -= plan.strides[k][d] * plan.dims[d];
        idx[d] = 0;
      }
    }
  });
}

// out = fn(a, b) with broadcasting. A, B, O are storage types; fn takes and returns compute
// types (float for Float16/BFloat16). `out` may be the same buffer as `a` or `b` when that
// operand already has the output's shape.
// The same on a plan made beforehand (a prepared kernel's, made once per compiled shape).
template <class A, class B, class O, class Fn>
void broadcast_binary_planned(const BroadcastPlan& plan, const A* a, const B* b, O* out, int64_t cost_per_item, Fn fn) {
  using CA = float_or_self_t<A>;
  using CB = float_or_self_t<B>;
  const bool a_moves = plan.strides[0].back() != 0;
  const bool b_moves = plan.strides[1].back() != 0;
  for_each_broadcast_run(plan, cost_per_item, [&](const int64_t* off, int64_t pos, int64_t len) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    O* po = out + pos;
    if (a_moves && b_moves) {
      for (int64_t i = 0; i < len; ++i) po[i] = to_storage<O>(fn(static_cast<CA>(pa[i]), static_cast<CB>(pb[i])));
    } else if (a_moves) {
      const CB vb = static_cast<CB>(*pb);
      for (int64_t i = 0; i < len; ++i) po[i] = to_storage<O>(fn(static_cast<CA>(pa[i]), vb));
    } else if (b_moves) {
      const CA va = static_cast<CA>(*pa);
      for (int64_t i = 0; i < len; ++i) po[i] = to_storage<O>(fn(va, static_cast<CB>(pb[i])));
    } else {
      const O v = to_storage<O>(fn(static_cast<CA>(*pa), static_cast<CB>(*pb)));
      std::fill(po, po + len, v);
    }
  });
}

template <class A, class B, class O, class Fn>
void broadcast_binary(const A* a, const Shape& a_shape, const B* b, const Shape& b_shape, O* out,
                      const Shape& out_shape, int64_t cost_per_item, Fn fn) {
  broadcast_binary_planned(make_broadcast_plan({a_shape, b_shape}, out_shape), a, b, out, cost_per_item, fn);
}

// A broadcasting kernel written against a plan: the reference kernel plans on every call
// (reference_broadcast), the prepared one once per compiled shape (prepare_broadcast).
using PlannedKernelFn = Status (*)(KernelContext&, const BroadcastPlan&);

template <PlannedKernelFn Fn>
Status reference_broadcast(KernelContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.input(i).shape());
  return Fn(ctx, make_broadcast_plan(shapes, ctx.output(0).shape()));
}

class PreparedBroadcastKernel final : public PreparedKernel {
 public:
  PreparedBroadcastKernel(PlannedKernelFn fn, BroadcastPlan plan) : fn_(fn), plan_(std::move(plan)) {}
  Status run(KernelContext& ctx) const override { return fn_(ctx, plan_); }

 private:
  PlannedKernelFn fn_;
  BroadcastPlan plan_;
};

template <PlannedKernelFn Fn>
Result<std::unique_ptr<CompiledKernel>> prepare_broadcast(const KernelRequest& request) {
  if (!all_shapes_static(request) || request.outputs.empty()) return not_prepared();
  std::vector<Shape> shapes;
  for (const ValueInfo& in : request.inputs) shapes.push_back(in.shape);
  return std::unique_ptr<CompiledKernel>(
      std::make_unique<PreparedBroadcastKernel>(Fn, make_broadcast_plan(shapes, request.outputs[0].shape)));
}

// out[i] = fn(in[i]) over n elements; fn takes and returns compute types.
template <class I, class O, class Fn>
void map_unary(const I* in, O* out, int64_t n, int64_t cost_per_item, Fn fn) {
  using C = float_or_self_t<I>;
  parallel_for(n, cost_per_item, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = to_storage<O>(fn(static_cast<C>(in[i])));
  });
}

}  // namespace openge::elementwise
