// BatchNormalizationGrad(dY, X, scale) and LayerNormalizationGrad(dY, X, scale) -> dX, dScale, dB
// (each output optional), with the forward node's epsilon (and LayerNormalization's axis).
// The statistics are recomputed from X in double, as the forward computed them: the batch's
// per-channel mean and population variance (BatchNormalization in training mode), or each row's
// over the normalized dims. With x̂ = (x - mean) · inv_std and m values per statistic:
//   dB = Σ dY,  dScale = Σ dY · x̂,  dX = inv_std / m · (m · g - Σ g - x̂ · Σ g · x̂),  g = dY · scale
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

Status infer_norm_grad(InferContext& ctx) {
  for (size_t i = 0; i < 3; ++i)
    OPENGE_RETURN_IF_ERROR(check_float_input(ctx, i, i == 0 ? "dY" : i == 1 ? "X" : "scale"));
  const DType dt = ctx.input_dtype(1);
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    if (ctx.node().outputs[o] < 0) continue;
    const size_t from = o == 0 ? 1 : 2;  // dX has X's shape; dScale and dB the scale's
    if (ctx.input_shape_known(from))
      ctx.set_output(o, dt, ctx.input_shape(from));
    else
      ctx.set_output_dtype(o, dt);
  }
  return Status::Ok();
}

// Outputs 1 and 2 (dScale, dB), where asked for, from their double sums.
void write_parameter_grads(KernelContext& ctx, const std::vector<double>& dscale, const std::vector<double>& dbias) {
  for (size_t o : {size_t{1}, size_t{2}}) {
    if (!ctx.has_output(o)) continue;
    Tensor& out = ctx.output(o);
    const std::vector<double>& src = o == 1 ? dscale : dbias;
    visit_float_dtype(out.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      const int64_t n = std::min<int64_t>(out.numel(), static_cast<int64_t>(src.size()));
      for (int64_t i = 0; i < n; ++i)
        out.data<S>()[i] = nn_store<S>(static_cast<nn_acc_t<S>>(src[static_cast<size_t>(i)]));
    });
  }
}

// The reduction layout: `groups` statistics, each over `outer` x `inner` values at
// x[(o * groups + g) * inner + i] (BatchNormalization: outer = N, groups = C, inner = spatial;
// LayerNormalization: outer = rows, groups = 1, inner = normalized size, handled per row).
template <class T>
void batch_norm_grad_typed(KernelContext& ctx) {
  using F = float_or_self_t<T>;
  const Tensor& xt = ctx.input(1);
  const int64_t n = xt.dim(0), c = xt.dim(1);
  const int64_t inner = n * c == 0 ? 0 : xt.numel() / (n * c);
  const double eps = ctx.attrs().get_float("epsilon", 1e-5f);
  const T* x = xt.data<T>();
  const T* dy = ctx.input(0).data<T>();
  const AccView<double> scale(ctx.input(2));
  std::vector<double> dscale(static_cast<size_t>(c)), dbias(static_cast<size_t>(c));
  T* dx = ctx.has_output(0) ? ctx.output(0).data<T>() : nullptr;
  const double m = static_cast<double>(n * inner);
  parallel_for(c, n * inner * 12, [&](int64_t b, int64_t e) {
    for (int64_t ch = b; ch < e; ++ch) {
      double mean = 0, var = 0;
      // Each plane's sums run in SIMD lanes (`omp simd reduction`: a fixed order at any thread
      // count, which a plain double sum would not get vectorised without).
      for (int64_t s = 0; s < n; ++s) {
        const T* xs = x + (s * c + ch) * inner;
#pragma omp simd reduction(+ : mean)
        for (int64_t i = 0; i < inner; ++i) mean += static_cast<F>(xs[i]);
      }
      mean = m > 0 ? mean / m : 0;
      for (int64_t s = 0; s < n; ++s) {
        const T* xs = x + (s * c + ch) * inner;
#pragma omp simd reduction(+ : var)
        for (int64_t i = 0; i < inner; ++i) {
          const double d = static_cast<F>(xs[i]) - mean;
          var += d * d;
        }
      }
      var = m > 0 ? var / m : 0;
      const double inv = 1.0 / std::sqrt(var + eps);
      double sum_g = 0, sum_gx = 0;
      for (int64_t s = 0; s < n; ++s) {
        const T* xs = x + (s * c + ch) * inner;
        const T* gs = dy + (s * c + ch) * inner;
#pragma omp simd reduction(+ : sum_g, sum_gx)
        for (int64_t i = 0; i < inner; ++i) {
          const double g = static_cast<F>(gs[i]);
          sum_g += g;
          sum_gx += g * (static_cast<F>(xs[i]) - mean) * inv;
        }
      }
      dbias[static_cast<size_t>(ch)] = sum_g;
      dscale[static_cast<size_t>(ch)] = sum_gx;
      if (!dx) continue;
      const double k = scale[ch] * inv / m;
      for (int64_t s = 0; s < n; ++s)
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t at = (s * c + ch) * inner + i;
          const double xhat = (static_cast<F>(x[at]) - mean) * inv;
          dx[at] = nn_store<T>(static_cast<nn_acc_t<T>>(k * (m * static_cast<F>(dy[at]) - sum_g - xhat * sum_gx)));
        }
    }
  });
  write_parameter_grads(ctx, dscale, dbias);
}

template <class T>
Status layer_norm_grad_typed(KernelContext& ctx) {
  using F = float_or_self_t<T>;
  const Tensor& xt = ctx.input(1);
  int64_t axis = ctx.attrs().get_int("axis", -1);
  if (axis < 0) axis += xt.rank();
  if (axis < 0 || axis >= xt.rank()) return ctx.error("axis out of range for X " + shape_to_string(xt.shape()));
  int64_t d = 1;
  for (int64_t i = axis; i < xt.rank(); ++i) d *= xt.dim(i);
  const int64_t rows = d == 0 ? 0 : xt.numel() / d;
  const AccView<double> scale(ctx.input(2));
  if (ctx.input(2).numel() != d) return ctx.error("scale must hold the " + std::to_string(d) + " normalized values");
  const double eps = ctx.attrs().get_float("epsilon", 1e-5f);
  const T* x = xt.data<T>();
  const T* dy = ctx.input(0).data<T>();
  T* dx = ctx.has_output(0) ? ctx.output(0).data<T>() : nullptr;
  // Per row: mean and inverse std, kept for the per-column sums that follow in row order.
  std::vector<double> mean(static_cast<size_t>(rows)), inv(static_cast<size_t>(rows));
  parallel_for(rows, d * 16, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* xr = x + r * d;
      const T* gr = dy + r * d;
      double mu = 0, var = 0;
      for (int64_t j = 0; j < d; ++j) mu += static_cast<F>(xr[j]);
      mu /= static_cast<double>(d);
      for (int64_t j = 0; j < d; ++j) {
        const double t = static_cast<F>(xr[j]) - mu;
        var += t * t;
      }
      const double is = 1.0 / std::sqrt(var / static_cast<double>(d) + eps);
      mean[static_cast<size_t>(r)] = mu;
      inv[static_cast<size_t>(r)] = is;
      if (!dx) continue;
      double sum_g = 0, sum_gx = 0;
      for (int64_t j = 0; j < d; ++j) {
        const double g = static_cast<F>(gr[j]) * scale[j];
        sum_g += g;
        sum_gx += g * (static_cast<F>(xr[j]) - mu) * is;
      }
      for (int64_t j = 0; j < d; ++j) {
        const double g = static_cast<F>(gr[j]) * scale[j];
        const double xhat = (static_cast<F>(xr[j]) - mu) * is;
        dx[r * d + j] = nn_store<T>(static_cast<nn_acc_t<T>>(is / static_cast<double>(d) *
                                                             (static_cast<double>(d) * g - sum_g - xhat * sum_gx)));
      }
    }
  });
  std::vector<double> dscale(static_cast<size_t>(d)), dbias(static_cast<size_t>(d));
  parallel_for(d, rows * 6, [&](int64_t b, int64_t e) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = b; j < e; ++j) {
        const double g = static_cast<F>(dy[r * d + j]);
        dbias[static_cast<size_t>(j)] += g;
        dscale[static_cast<size_t>(j)] +=
            g * (static_cast<F>(x[r * d + j]) - mean[static_cast<size_t>(r)]) * inv[static_cast<size_t>(r)];
      }
  });
  write_parameter_grads(ctx, dscale, dbias);
  return Status::Ok();
}

Status batch_norm_grad_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(1);
  if (x.rank() < 2) return ctx.error("X must be N x C x ..., got " + shape_to_string(x.shape()));
  if (ctx.input(2).numel() != x.dim(1)) return ctx.error("scale must hold one value per channel");
  visit_float_dtype(x.dtype(), [&](auto tag) { batch_norm_grad_typed<typename decltype(tag)::type>(ctx); });
  return Status::Ok();
}

Status layer_norm_grad_kernel(KernelContext& ctx) {
  Status status = Status::Ok();
  visit_float_dtype(ctx.input(1).dtype(),
                    [&](auto tag) { status = layer_norm_grad_typed<typename decltype(tag)::type>(ctx); });
  return status;
}

}  // namespace

void register_norm_grad_ops(std::vector<OpSchema>& table) {
  table.push_back({"BatchNormalizationGrad", 3, 3, 1, 3, infer_norm_grad, batch_norm_grad_kernel});
  table.push_back({"LayerNormalizationGrad", 3, 3, 1, 3, infer_norm_grad, layer_norm_grad_kernel});
}

}  // namespace openge
