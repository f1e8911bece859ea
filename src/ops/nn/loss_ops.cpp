// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (the latter is log-softmax over the class
// axis followed by the former). Both take scores [N, C, d1, ...], integer labels [N, d1, ...], an
// optional per-class weight [C], ignore_index and reduction none / sum / mean (mean divides by
// the summed weights of the labels that were not ignored). Labels are data: each is checked to
// be a class index (or ignore_index) and a bad one is an error naming the node and the label.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ops/shape/index_util.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

enum class LossReduction { kNone, kSum, kMean };

template <class Ctx>
Result<LossReduction> read_loss_reduction(const Ctx& ctx) {
  const std::string r = ctx.attrs().get_string("reduction", "mean");
  if (r == "none") return LossReduction::kNone;
  if (r == "sum") return LossReduction::kSum;
  if (r == "mean") return LossReduction::kMean;
  return ctx.error("reduction must be none, sum or mean, got '" + r + "'");
}

// Output 0: [N, d1, ...] for reduction none, a scalar otherwise. Output 1 (SCE's log_prob): the
// scores' shape.
Status infer_loss(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "scores"));
  OPENGE_RETURN_IF_ERROR(check_index_input(ctx, 1, "labels"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 2, "weights"));
  auto red = read_loss_reduction(ctx);
  if (!red.ok()) return red.status();
  const DType dt = ctx.input_dtype(0);
  const bool want_log_prob = ctx.num_outputs() > 1 && ctx.node().outputs[1] >= 0;
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    if (want_log_prob) ctx.set_output_dtype(1, dt);
    return Status::Ok();
  }
  const Shape& s = ctx.input_shape(0);
  const Shape& l = ctx.input_shape(1);
  if (s.size() < 2) return ctx.error("scores must be N x C x ..., got " + shape_to_string(s));
  Shape expect_labels{s[0]};
  expect_labels.insert(expect_labels.end(), s.begin() + 2, s.end());
  if (l != expect_labels)
    return ctx.error("labels " + shape_to_string(l) + " must be " + shape_to_string(expect_labels) + " for scores " +
                     shape_to_string(s));
  if (ctx.input_shape_known(2) && ctx.input_shape(2) != Shape{s[1]})
    return ctx.error("weights " + shape_to_string(ctx.input_shape(2)) + " must be [C] = [" + std::to_string(s[1]) +
                     "]");
  ctx.set_output(0, dt, *red == LossReduction::kNone ? expect_labels : Shape{});
  if (want_log_prob) ctx.set_output(1, dt, s);
  return Status::Ok();
}

// -log_prob[n, label, d] * weight[label] per (n, d), reduced; log_prob is float/double.
template <class T, class Acc>
Status nll_from_log_prob(KernelContext& ctx, const Acc* log_prob) {
  const Tensor& scores = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  auto red = read_loss_reduction(ctx);
  if (!red.ok()) return red.status();
  if (!is_index_dtype(labels.dtype())) return ctx.error("labels must be int32 or int64");
  const bool has_ignore = ctx.attrs().has("ignore_index");
  const int64_t ignore = ctx.attrs().get_int("ignore_index", 0);
  const int64_t n = scores.dim(0), c = scores.dim(1), inner = n * c == 0 ? 0 : scores.numel() / (n * c);
  std::unique_ptr<AccView<Acc>> weights;
  if (ctx.has_input(2)) {
    if (ctx.input(2).numel() != c) return ctx.error("weights must have one entry per class");
    weights = std::make_unique<AccView<Acc>>(ctx.input(2));
  }
  AccOutput<T, Acc> out(ctx.output(0));
  Acc* loss = out.data();
  double sum = 0, weight_sum = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t i = b * inner + d;
      const int64_t label = index_at(labels, i);
      Acc value = 0;
      if (!has_ignore || label != ignore) {
        if (label < 0 || label >= c)
          return ctx.error("label " + std::to_string(label) + " at position " + std::to_string(i) +
                           " is not a class index in [0, " + std::to_string(c - 1) + "]" +
                           (has_ignore ? " nor ignore_index " + std::to_string(ignore) : std::string()));
        const Acc w = weights ? (*weights)[label] : Acc(1);
        value = -log_prob[(b * c + label) * inner + d] * w;
        weight_sum += w;
      }
      if (*red == LossReduction::kNone) loss[i] = value;
      sum += value;
    }
  if (*red == LossReduction::kSum) loss[0] = static_cast<Acc>(sum);
  // Mean over nothing (every label ignored) is 0/0: NaN, as ONNX's reference gives.
  if (*red == LossReduction::kMean)
    loss[0] = weight_sum == 0 ? std::numeric_limits<Acc>::quiet_NaN() : static_cast<Acc>(sum / weight_sum);
  out.finish();
  return Status::Ok();
}

template <class T>
Status nll_typed(KernelContext& ctx) {
  using Acc = nn_acc_t<T>;
  const AccView<Acc> input(ctx.input(0));
  return nll_from_log_prob<T, Acc>(ctx, input.data());
}

Status nll_kernel(KernelContext& ctx) {
  Status st = Status::Ok();
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) { st = nll_typed<typename decltype(tag)::type>(ctx); });
  return st;
}

template <class T>
Status sce_typed(KernelContext& ctx) {
  using Acc = nn_acc_t<T>;
  const Tensor& st = ctx.input(0);
  const AccView<Acc> x(st);
  const int64_t n = st.dim(0), c = st.dim(1), inner = n * c == 0 ? 0 : st.numel() / (n * c);
  // log_softmax over the class axis, in the compute type.
  std::vector<Acc> log_prob(static_cast<size_t>(st.numel()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t base = b * c * inner + d;
      Acc mx = -std::numeric_limits<Acc>::infinity();
      for (int64_t k = 0; k < c; ++k) mx = std::max(mx, x[base + k * inner]);
      Acc sum = 0;
      for (int64_t k = 0; k < c; ++k) sum += std::exp(x[base + k * inner] - mx);
      const Acc lse = mx + std::log(sum);
      for (int64_t k = 0; k < c; ++k) log_prob[static_cast<size_t>(base + k * inner)] = x[base + k * inner] - lse;
    }
  if (ctx.has_output(1)) {
    T* lp = ctx.output(1).data<T>();
    for (size_t i = 0; i < log_prob.size(); ++i) lp[i] = nn_store<T>(log_prob[i]);
  }
  return nll_from_log_prob<T, Acc>(ctx, log_prob.data());
}

Status sce_kernel(KernelContext& ctx) {
  Status st = Status::Ok();
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) { st = sce_typed<typename decltype(tag)::type>(ctx); });
  return st;
}

}  // namespace

void register_loss_ops(std::vector<OpSchema>& table) {
  table.push_back({"NegativeLogLikelihoodLoss", 2, 3, 1, 1, infer_loss, nll_kernel, false});
  table.push_back({"SoftmaxCrossEntropyLoss", 2, 3, 1, 2, infer_loss, sce_kernel, false});
}

}  // namespace openge
