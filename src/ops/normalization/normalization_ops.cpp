// LRN, MeanVarianceNormalization, LpNormalization: normalisations over a window of channels or
// a set of axes (BatchNormalization and the instance/layer forms live in nn_norm.cpp). Float
// types only, as ONNX defines them; fp16/bf16 are computed in float and rounded once.
#include <cmath>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ops/nn/nn_common.h"
#include "ops/shape/shape_common.h"

namespace openge {
namespace {

Status infer_same_float(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  return Status::Ok();
}

// --- LRN: y = x / (bias + alpha/size * sum of x^2 over the channel window)^beta ---------------
struct LrnParams {
  float alpha, beta, bias;
  int64_t size;
};

template <class Ctx>
Result<LrnParams> read_lrn(const Ctx& ctx) {
  LrnParams p{ctx.attrs().get_float("alpha", 1e-4f), ctx.attrs().get_float("beta", 0.75f),
              ctx.attrs().get_float("bias", 1.0f), ctx.attrs().get_int("size", 0)};
  if (p.size < 1) return ctx.error("size must be >= 1, got " + std::to_string(p.size));
  return p;
}

Status infer_lrn(InferContext& ctx) {
  auto p = read_lrn(ctx);
  if (!p.ok()) return p.status();
  if (ctx.input_shape_known(0) && ctx.input_shape(0).size() < 2)
    return ctx.error("input X must be N x C x ..., got " + shape_to_string(ctx.input_shape(0)));
  return infer_same_float(ctx);
}

template <class T>
void lrn_typed(KernelContext& ctx, const LrnParams& p) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  AccOutput<T, Acc> y(ctx.output(0));
  const int64_t n = xt.dim(0), c = xt.dim(1), plane = c == 0 || n == 0 ? 0 : xt.numel() / (n * c);
  const int64_t lo = (p.size - 1) / 2, hi = p.size - 1 - lo;  // window [ch - lo, ch + hi]
  Acc* out = y.data();
  parallel_for(n * c, plane * p.size, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = r / c, ch = r % c;
      const int64_t c0 = std::max<int64_t>(0, ch - lo), c1 = std::min<int64_t>(c - 1, ch + hi);
      for (int64_t i = 0; i < plane; ++i) {
        Acc sum = 0;
        for (int64_t k = c0; k <= c1; ++k) {
          const Acc v = x[(b * c + k) * plane + i];
          sum += v * v;
        }
        const Acc scale = static_cast<Acc>(p.bias) + static_cast<Acc>(p.alpha) / static_cast<Acc>(p.size) * sum;
        out[r * plane + i] = x[r * plane + i] / std::pow(scale, static_cast<Acc>(p.beta));
      }
    }
  });
  y.finish();
}

Status lrn_kernel(KernelContext& ctx) {
  auto p = read_lrn(ctx);
  if (!p.ok()) return p.status();
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) { lrn_typed<typename decltype(tag)::type>(ctx, *p); });
  return Status::Ok();
}

// --- Reductions over a set of axes, shared by MVN and LpNormalization --------------------------
// Element e belongs to group `group_of(e)`: its index with the reduced axes dropped.
struct AxisGroups {
  std::vector<int64_t> group_of;
  int64_t groups = 0;
};

AxisGroups group_by_kept_axes(const Shape& shape, const std::vector<bool>& reduced) {
  AxisGroups g;
  const int64_t numel = shape_numel(shape);
  g.group_of.resize(static_cast<size_t>(numel));
  std::vector<int64_t> coord(shape.size(), 0);
  g.groups = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) g.groups *= shape[d];
  for (int64_t e = 0; e < numel; ++e) {
    int64_t key = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) key = key * shape[d] + coord[d];
    g.group_of[static_cast<size_t>(e)] = key;
    for (size_t d = shape.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  return g;
}

// --- MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over `axes` -----------------
template <class Ctx>
Result<std::vector<bool>> mvn_reduced_axes(const Ctx& ctx, int64_t rank) {
  const std::vector<int64_t> axes = ctx.attrs().get_ints("axes", {0, 2, 3});
  auto norm = normalize_axes(ctx, axes, rank, "axis");
  if (!norm.ok()) return norm.status();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : *norm) reduced[static_cast<size_t>(a)] = true;
  return reduced;
}

Status infer_mvn(InferContext& ctx) {
  if (ctx.input_shape_known(0)) {
    auto r = mvn_reduced_axes(ctx, static_cast<int64_t>(ctx.input_shape(0).size()));
    if (!r.ok()) return r.status();
  }
  return infer_same_float(ctx);
}

template <class T>
void mvn_typed(KernelContext& ctx, const std::vector<bool>& reduced) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  AccOutput<T, Acc> y(ctx.output(0));
  const AxisGroups g = group_by_kept_axes(xt.shape(), reduced);
  std::vector<double> sum(static_cast<size_t>(g.groups), 0.0), sq(static_cast<size_t>(g.groups), 0.0);
  std::vector<int64_t> count(static_cast<size_t>(g.groups), 0);
  for (int64_t e = 0; e < xt.numel(); ++e) {
    const size_t k = static_cast<size_t>(g.group_of[static_cast<size_t>(e)]);
    sum[k] += x[e];
    ++count[k];
  }
  for (size_t k = 0; k < sum.size(); ++k) sum[k] /= static_cast<double>(std::max<int64_t>(1, count[k]));
  for (int64_t e = 0; e < xt.numel(); ++e) {
    const size_t k = static_cast<size_t>(g.group_of[static_cast<size_t>(e)]);
    const double d = x[e] - sum[k];
    sq[k] += d * d;
  }
  // ONNX's function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9).
  for (size_t k = 0; k < sq.size(); ++k)
    sq[k] = std::sqrt(sq[k] / static_cast<double>(std::max<int64_t>(1, count[k]))) + 1e-9;
  Acc* out = y.data();
  for (int64_t e = 0; e < xt.numel(); ++e) {
    const size_t k = static_cast<size_t>(g.group_of[static_cast<size_t>(e)]);
    out[e] = static_cast<Acc>((x[e] - sum[k]) / sq[k]);
  }
  y.finish();
}

Status mvn_kernel(KernelContext& ctx) {
  auto reduced = mvn_reduced_axes(ctx, ctx.input(0).rank());
  if (!reduced.ok()) return reduced.status();
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) { mvn_typed<typename decltype(tag)::type>(ctx, *reduced); });
  return Status::Ok();
}

// --- LpNormalization: x / ||x||_p along `axis` (p = 1 or 2) ---------------------------------------
template <class Ctx>
Result<std::pair<size_t, int64_t>> read_lp_norm(const Ctx& ctx, int64_t rank) {
  const int64_t p = ctx.attrs().get_int("p", 2);
  if (p != 1 && p != 2) return ctx.error("p must be 1 or 2, got " + std::to_string(p));
  const int64_t axis = ctx.attrs().get_int("axis", -1);
  if (axis < -rank || axis >= rank)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return std::make_pair(static_cast<size_t>(axis < 0 ? axis + rank : axis), p);
}

Status infer_lp_norm(InferContext& ctx) {
  if (ctx.input_shape_known(0)) {
    auto r = read_lp_norm(ctx, static_cast<int64_t>(ctx.input_shape(0).size()));
    if (!r.ok()) return r.status();
  }
  return infer_same_float(ctx);
}

template <class T>
void lp_norm_typed(KernelContext& ctx, size_t axis, int64_t p) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  AccOutput<T, Acc> y(ctx.output(0));
  const int64_t dim = xt.dim(static_cast<int64_t>(axis));
  int64_t inner = 1;
  for (size_t d = axis + 1; d < xt.shape().size(); ++d) inner *= xt.dim(static_cast<int64_t>(d));
  const int64_t outer = dim * inner == 0 ? 0 : xt.numel() / (dim * inner);
  Acc* out = y.data();
  parallel_for(outer * inner, dim, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t base = (r / inner) * dim * inner + r % inner;
      Acc norm = 0;
      for (int64_t k = 0; k < dim; ++k) {
        const Acc v = x[base + k * inner];
        norm += p == 1 ? std::abs(v) : v * v;
      }
      if (p == 2) norm = std::sqrt(norm);
      // A zero vector stays zero (instead of 0/0 = NaN), as ONNX Runtime does.
      for (int64_t k = 0; k < dim; ++k) out[base + k * inner] = norm == 0 ? Acc(0) : x[base + k * inner] / norm;
    }
  });
  y.finish();
}

Status lp_norm_kernel(KernelContext& ctx) {
  auto r = read_lp_norm(ctx, ctx.input(0).rank());
  if (!r.ok()) return r.status();
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { lp_norm_typed<typename decltype(tag)::type>(ctx, r->first, r->second); });
  return Status::Ok();
}

}  // namespace

void register_normalization_ops(std::vector<OpSchema>& table) {
  table.push_back({"LRN", 1, 1, 1, 1, infer_lrn, lrn_kernel, false});
  table.push_back({"MeanVarianceNormalization", 1, 1, 1, 1, infer_mvn, mvn_kernel, false});
  table.push_back({"LpNormalization", 1, 1, 1, 1, infer_lp_norm, lp_norm_kernel, false});
}

}  // namespace openge
