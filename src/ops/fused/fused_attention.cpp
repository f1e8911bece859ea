#include "ops/fused/fused_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/op_context.h"
#include "ops/prepared_kernel.h"
#include "ops/shape/shape_util.h"

namespace openge {

bool mask_fits(const Shape& mask, const Shape& scores) {
  if (mask.size() > scores.size()) return false;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 1 && mask[i] != scores[scores.size() - mask.size() + i]) return false;
  return true;
}

namespace {

Status infer_fused_attention(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!dtype_is_float(dt)) return ctx.error(std::string("needs float inputs, got ") + dtype_name(dt));
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i) && ctx.input_dtype(i) != dt)
      return ctx.error("input " + std::to_string(i) + " differs in dtype from Q");
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1) || !ctx.input_shape_known(2)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& q = ctx.input_shape(0);
  const Shape& kt = ctx.input_shape(1);
  const Shape& v = ctx.input_shape(2);
  const size_t r = q.size();
  if (r < 2 || kt.size() != r || v.size() != r)
    return ctx.error("Q, Kt and V need the same rank (at least 2), got " + shape_to_string(q) + ", " +
                     shape_to_string(kt) + ", " + shape_to_string(v));
  for (size_t i = 0; i + 2 < r; ++i)
    if (kt[i] != q[i] || v[i] != q[i]) return ctx.error("Q, Kt and V differ in their leading dims");
  if (kt[r - 2] != q[r - 1] || v[r - 2] != kt[r - 1])
    return ctx.error("shapes do not chain: Q " + shape_to_string(q) + ", Kt " + shape_to_string(kt) + ", V " +
                     shape_to_string(v));
  Shape scores = q;
  scores[r - 1] = kt[r - 1];
  if (ctx.input_shape_known(3) && !mask_fits(ctx.input_shape(3), scores))
    return ctx.error("mask " + shape_to_string(ctx.input_shape(3)) + " does not broadcast into the scores " +
                     shape_to_string(scores));
  Shape y = q;
  y[r - 1] = v[r - 1];
  ctx.set_output(0, dt, y);
  return Status::Ok();
}

template <class T>
void attention_rows(KernelContext& ctx, float scale, const std::vector<int64_t>& mask_strides) {
  using F = float_or_self_t<T>;
  const Tensor& q = ctx.input(0);
  const int64_t r = q.rank();
  const int64_t lq = q.dim(r - 2), d = q.dim(r - 1), lk = ctx.input(1).dim(r - 1), dv = ctx.input(2).dim(r - 1);
  int64_t rows = 1;  // (batch, query) pairs
  for (int64_t a = 0; a + 1 < r; ++a) rows *= q.dim(a);
  const T* qd = q.data<T>();
  const T* kd = ctx.input(1).data<T>();
  const T* vd = ctx.input(2).data<T>();
  const T* md = ctx.has_input(3) ? ctx.input(3).data<T>() : nullptr;
  T* yd = ctx.output(0).data<T>();
  parallel_for(rows, 2 * lk * (d + dv) + 16, [&](int64_t begin, int64_t end) {
    // One row's scores and sums on the stack up to kStackRow elements each (a run allocates
    // nothing); longer rows in a temporary.
    constexpr int64_t kStackRow = 1024;
    F p_stack[kStackRow], acc_stack[kStackRow];
    std::vector<F> p_heap, acc_heap;
    if (lk > kStackRow) p_heap.resize(static_cast<size_t>(lk));
    if (dv > kStackRow) acc_heap.resize(static_cast<size_t>(dv));
    const std::span<F> p(lk > kStackRow ? p_heap.data() : p_stack, static_cast<size_t>(lk));
    const std::span<F> acc(dv > kStackRow ? acc_heap.data() : acc_stack, static_cast<size_t>(dv));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / lq, i = row % lq;
      const T* qr = qd + row * d;
      const T* kb = kd + b * d * lk;
      const T* vb = vd + b * lk * dv;
      // The mask's offset of (b, i, 0): b split into the leading dims, innermost last.
      int64_t moff = i * mask_strides[static_cast<size_t>(r - 2)];
      for (int64_t rest = b, a = r - 3; a >= 0; --a) {
        const int64_t dim = q.dim(a);
        moff += (rest % dim) * mask_strides[static_cast<size_t>(a)];
        rest /= dim;
      }
      F m = -std::numeric_limits<F>::infinity();
      for (int64_t j = 0; j < lk; ++j) {
        F s = 0;
        for (int64_t k = 0; k < d; ++k) s += static_cast<F>(qr[k]) * static_cast<F>(kb[k * lk + j]);
        s *= static_cast<F>(scale);
        if (md) s += static_cast<F>(md[moff + j * mask_strides[static_cast<size_t>(r - 1)]]);
        p[static_cast<size_t>(j)] = s;
        m = std::max(m, s);
      }
      F sum = 0;
      for (auto& x : p) sum += (x = std::exp(x - m));
      for (auto& a : acc) a = 0;
      for (int64_t j = 0; j < lk; ++j)
        for (int64_t c = 0; c < dv; ++c)
          acc[static_cast<size_t>(c)] += p[static_cast<size_t>(j)] * static_cast<F>(vb[j * dv + c]);
      for (int64_t c = 0; c < dv; ++c) yd[row * dv + c] = T(acc[static_cast<size_t>(c)] / sum);
    }
  });
}

// The mask's strides over the scores [.., Lq, Lk] (zeros without a mask), or an error.
Result<std::vector<int64_t>> attention_mask_strides(const Shape& q, int64_t lk, const Shape* mask) {
  const size_t r = q.size();
  Shape scores = q;
  scores[r - 1] = lk;
  if (!mask) return std::vector<int64_t>(r, 0);
  if (!mask_fits(*mask, scores))
    return invalid_argument("mask does not broadcast into the scores " + shape_to_string(scores));
  return broadcast_strides(*mask, scores);
}

Status attention_planned(KernelContext& ctx, const std::vector<int64_t>& strides) {
  const Tensor& q = ctx.input(0);
  const int64_t r = q.rank();
  Tensor& y = ctx.output(0);
  if (y.numel() == 0) return Status::Ok();
  if (ctx.input(1).dim(r - 1) == 0) {  // no keys: the second product is an empty sum, as unfused
    std::memset(y.raw(), 0, static_cast<size_t>(y.numel()) * dtype_size(y.dtype()));
    return Status::Ok();
  }
  const float scale = ctx.attrs().get_float("scale", 1.0f);
  const bool ok = visit_float_dtype(q.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention_rows<T>(ctx, scale, strides);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(q.dtype()));
  return Status::Ok();
}

Status fused_attention_kernel(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  auto strides = attention_mask_strides(q.shape(), ctx.input(1).dim(q.rank() - 1),
                                        ctx.has_input(3) ? &ctx.input(3).shape() : nullptr);
  if (!strides.ok()) return ctx.error(strides.status().message());
  return attention_planned(ctx, *strides);
}

// The mask's strides once per compiled shape.
class PreparedFusedAttention final : public PreparedKernel {
 public:
  explicit PreparedFusedAttention(std::vector<int64_t> strides) : strides_(std::move(strides)) {}
  Status run(KernelContext& ctx) const override { return attention_planned(ctx, strides_); }

 private:
  std::vector<int64_t> strides_;
};

Result<std::unique_ptr<CompiledKernel>> prepare_fused_attention(const KernelRequest& request) {
  if (!all_shapes_static(request) || request.inputs.size() < 3) return not_prepared();
  const Shape& q = request.inputs[0].shape;
  const Shape& k = request.inputs[1].shape;
  if (q.size() < 2 || k.size() != q.size()) return not_prepared();
  const bool has_mask = request.inputs.size() > 3 && request.inputs[3].dtype != DType::kUndefined;
  auto strides = attention_mask_strides(q, k.back(), has_mask ? &request.inputs[3].shape : nullptr);
  if (!strides.ok()) return not_prepared();  // the reference kernel reports it
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedFusedAttention>(std::move(strides.value())));
}

}  // namespace

void register_fused_attention_ops(std::vector<OpSchema>& table) {
  table.push_back({kFusedAttention, 3, 4, 1, 1, infer_fused_attention, fused_attention_kernel});
  table.back().prepare = &prepare_fused_attention;
}

}  // namespace openge
