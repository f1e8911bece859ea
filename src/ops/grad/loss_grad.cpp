// Gradients of the two ONNX losses with respect to their first input:
//   SoftmaxCrossEntropyLossGrad(dL, scores, labels[, weights]): w_l * (softmax(s)[c] - [c == l]) * f
//   NegativeLogLikelihoodLossGrad(dL, input, labels[, weights]): -w_l * [c == l] * f
// per position (n, d) with label l, where f is dL at that position (reduction none), dL (sum),
// or dL over the summed weights of the positions not ignored (mean). Ignored positions get 0.
// Attributes: the forward node's reduction and ignore_index.
#include <cmath>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

Status infer_loss_grad(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "scores"));
  const std::string r = ctx.attrs().get_string("reduction", "mean");
  if (r != "none" && r != "sum" && r != "mean")
    return ctx.error("reduction must be none, sum or mean, got '" + r + "'");
  if (ctx.input_shape_known(1))
    ctx.set_output(0, ctx.input_dtype(1), ctx.input_shape(1));
  else
    ctx.set_output_dtype(0, ctx.input_dtype(1));
  return Status::Ok();
}

template <class T>
Status loss_grad_typed(KernelContext& ctx, bool softmax) {
  using F = float_or_self_t<T>;
  const Tensor& dl = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  const Tensor& labels = ctx.input(2);
  const Tensor* weights = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const std::string reduction = ctx.attrs().get_string("reduction", "mean");
  const bool has_ignore = ctx.attrs().has("ignore_index");
  const int64_t ignore = ctx.attrs().get_int("ignore_index", 0);
  if (scores.rank() < 2) return ctx.error("scores must be N x C x ...");
  const int64_t n = scores.dim(0), c = scores.dim(1);
  const int64_t inner = n * c == 0 ? 0 : scores.numel() / (n * c);
  const int64_t positions = n * inner;
  if (labels.numel() != positions) return ctx.error("labels do not match the scores");
  if (reduction == "none" ? dl.numel() != positions : dl.numel() != 1) return ctx.error("dL has the wrong size");
  if (weights && weights->numel() != c) return ctx.error("weights must have one entry per class");
  const std::vector<int64_t> label = labels.to_int64_vector();
  const AccView<double> w = weights ? AccView<double>(*weights) : AccView<double>(scores);  // read only when weights
  const AccView<double> g(dl);
  double denom = 0;
  for (int64_t p = 0; p < positions; ++p) {
    const int64_t l = label[static_cast<size_t>(p)];
    if (has_ignore && l == ignore) continue;
    if (l < 0 || l >= c)
      return ctx.error("label " + std::to_string(l) + " is not a class index in [0, " + std::to_string(c - 1) + "]");
    denom += weights ? w[l] : 1.0;
  }
  const T* s = scores.data<T>();
  T* out = ctx.output(0).data<T>();
  parallel_for(positions, c * 20, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t in = p / inner, d = p % inner;
      const int64_t base = in * c * inner + d;
      const int64_t l = label[static_cast<size_t>(p)];
      const bool ignored = has_ignore && l == ignore;
      double f = reduction == "none" ? g[p] : g[0];
      if (reduction == "mean") f = denom > 0 ? f / denom : 0.0;
      const double wl = ignored ? 0.0 : (weights ? w[l] : 1.0) * f;
      if (!softmax) {
        for (int64_t k = 0; k < c; ++k)
          out[base + k * inner] = nn_store<T>(static_cast<nn_acc_t<T>>(k == l ? -wl : 0.0));
        continue;
      }
      double mx = -INFINITY;
      for (int64_t k = 0; k < c; ++k) mx = std::max(mx, static_cast<double>(static_cast<F>(s[base + k * inner])));
      double sum = 0;
      for (int64_t k = 0; k < c; ++k) sum += std::exp(static_cast<double>(static_cast<F>(s[base + k * inner])) - mx);
      for (int64_t k = 0; k < c; ++k) {
        const double prob = std::exp(static_cast<double>(static_cast<F>(s[base + k * inner])) - mx) / sum;
        out[base + k * inner] = nn_store<T>(static_cast<nn_acc_t<T>>(wl * (prob - (k == l ? 1.0 : 0.0))));
      }
    }
  });
  return Status::Ok();
}

template <bool kSoftmax>
Status loss_grad_kernel(KernelContext& ctx) {
  Status status = Status::Ok();
  visit_float_dtype(ctx.input(1).dtype(),
                    [&](auto tag) { status = loss_grad_typed<typename decltype(tag)::type>(ctx, kSoftmax); });
  return status;
}

}  // namespace

void register_loss_grad_ops(std::vector<OpSchema>& table) {
  table.push_back({"SoftmaxCrossEntropyLossGrad", 3, 4, 1, 1, infer_loss_grad, loss_grad_kernel<true>});
  table.push_back({"NegativeLogLikelihoodLossGrad", 3, 4, 1, 1, infer_loss_grad, loss_grad_kernel<false>});
}

}  // namespace openge
