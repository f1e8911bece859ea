// BatchNormalization (inference and training mode), InstanceNormalization and LayerNormalization
// reference kernels.
// Statistics are summed in double (two passes: mean, then squared deviations) so the result
// does not depend on the reduction order; outputs are rounded once to the element type.
#include <algorithm>
#include <cmath>

#include "ops/nn/nn_common.h"
#include "ops/prepared_kernel.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

bool output_present(const InferContext& ctx, size_t i) {
  return i < ctx.node().outputs.size() && ctx.node().outputs[i] >= 0;
}

Status check_epsilon(const InferContext& ctx) {
  const float eps = ctx.attrs().get_float("epsilon", 1e-5f);
  if (!(eps >= 0.0f) || !std::isfinite(eps))
    return ctx.error("epsilon must be a finite value >= 0, got " + std::to_string(eps));
  return Status::Ok();
}

// Mean and population variance of n values, in double.
template <class T>
void moments(const T* x, int64_t n, double* mean, double* var) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(static_cast<float_or_self_t<T>>(x[i]));
  const double m = n > 0 ? sum / static_cast<double>(n) : 0.0;
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(static_cast<float_or_self_t<T>>(x[i])) - m;
    sq += d * d;
  }
  *mean = m;
  *var = n > 0 ? sq / static_cast<double>(n) : 0.0;
}

// ---------------------------------------------------------------------------------------------
// BatchNormalization: y = (x - mean) / sqrt(var + epsilon) * scale + B, per channel (or, with
// opset < 9 spatial = 0, per element of a sample).

bool bn_per_activation(const Attributes& attrs, int64_t opset) { return opset < 9 && attrs.get_int("spatial", 1) == 0; }

// Training mode: from opset 14 the training_mode attribute; from 7 to 13, asking for the mean /
// variance outputs; before 7, is_test = 0, which the loader turns into training_mode = 1.
bool bn_mode_by_attribute(int64_t opset) { return opset >= 14 || opset < 7; }
bool bn_training(const Node& node, const Attributes& attrs, int64_t opset) {
  if (bn_mode_by_attribute(opset)) return attrs.get_int("training_mode", 0) != 0;
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (node.outputs[i] >= 0) return true;
  return false;
}

Status infer_batch_norm(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  const DType dt = ctx.input_dtype(0);
  static const char* kParamNames[] = {"", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i)
    if (!is_nn_float(ctx.input_dtype(i)))
      return ctx.error(std::string(kParamNames[i]) + " has dtype " + dtype_name(ctx.input_dtype(i)) +
                       "; expected a float type");
  bool extra_outputs = false;
  for (size_t i = 1; i < ctx.num_outputs(); ++i) extra_outputs = extra_outputs || output_present(ctx, i);
  if (bn_mode_by_attribute(ctx.opset()) && ctx.attrs().get_int("training_mode", 0) == 0 && extra_outputs)
    return ctx.error(
        "the running mean and variance outputs exist only in training mode (training_mode = 1; is_test = 0 before "
        "opset 7)");
  OPENGE_RETURN_IF_ERROR(check_epsilon(ctx));
  const int64_t spatial = ctx.attrs().get_int("spatial", 1);
  if (spatial != 0 && spatial != 1) return ctx.error("spatial must be 0 or 1, got " + std::to_string(spatial));
  if (bn_training(ctx.node(), ctx.attrs(), ctx.opset()) && bn_per_activation(ctx.attrs(), ctx.opset()))
    return ctx.error("training mode with spatial = 0 (per-activation statistics) is not supported");
  // Outputs 1..4: running mean, running variance, then (before opset 14) the batch mean and
  // variance; each one value per channel, in the dtype of the mean / variance inputs.
  auto set_stat_outputs = [&](const Shape* channels) {
    for (size_t i = 1; i < ctx.num_outputs(); ++i) {
      if (!output_present(ctx, i)) continue;
      const DType st = ctx.input_dtype(i % 2 == 1 ? 3 : 4);
      if (channels)
        ctx.set_output(i, st, *channels);
      else
        ctx.set_output_dtype(i, st);
    }
  };
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    set_stat_outputs(nullptr);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 2) return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x ... (rank >= 2)");
  if (dims_known(x)) {
    const int64_t per_sample =
        bn_per_activation(ctx.attrs(), ctx.opset()) ? shape_numel(Shape(x.begin() + 1, x.end())) : x[1];
    for (size_t i = 1; i < 5; ++i) {
      if (!ctx.input_shape_known(i)) continue;
      const Shape& p = ctx.input_shape(i);
      if (dims_known(p) && shape_numel(p) != per_sample)
        return ctx.error(std::string(kParamNames[i]) + " has shape " + shape_to_string(p) + "; expected " +
                         std::to_string(per_sample) + " values to match X " + shape_to_string(x));
    }
  }
  ctx.set_output(0, dt, x);
  const Shape channels{x[1]};
  set_stat_outputs(&channels);
  return Status::Ok();
}

// Per-channel batch mean and population variance over N and the spatial dims, in double: one
// channel per parallel item, its rows added in order (the same sums at any thread count). Within
// a row the sum runs in SIMD lanes (`omp simd reduction`): a fixed order too, which the compiler
// may not choose for a plain double sum on its own.
template <class T>
void batch_moments(const Tensor& xt, int64_t groups, int64_t inner, std::vector<double>& mean,
                   std::vector<double>& var) {
  using F = float_or_self_t<T>;
  const T* x = xt.data<T>();
  const int64_t rows = groups * inner == 0 ? 0 : xt.numel() / (groups * inner);  // 0 at a zero-sized dim
  mean.assign(static_cast<size_t>(groups), 0.0);
  var.assign(static_cast<size_t>(groups), 0.0);
  const double n = static_cast<double>(rows * inner);
  parallel_for(groups, rows * inner * 4, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double sum = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = x + (r * groups + c) * inner;
#pragma omp simd reduction(+ : sum)
        for (int64_t i = 0; i < inner; ++i) sum += static_cast<double>(static_cast<F>(row[i]));
      }
      const double m = n > 0 ? sum / n : 0.0;
      double sq = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = x + (r * groups + c) * inner;
#pragma omp simd reduction(+ : sq)
        for (int64_t i = 0; i < inner; ++i) {
          const double d = static_cast<double>(static_cast<F>(row[i])) - m;
          sq += d * d;
        }
      }
      mean[static_cast<size_t>(c)] = m;
      var[static_cast<size_t>(c)] = n > 0 ? sq / n : 0.0;
    }
  });
}

template <class T>
void batch_norm_typed(KernelContext& ctx, int64_t groups, int64_t inner, const std::vector<double>& mean,
                      const std::vector<double>& var) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const double eps = ctx.attrs().get_float("epsilon", 1e-5f);
  AccView<double> scale(ctx.input(1)), bias(ctx.input(2));
  // y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a, folded in double.
  std::vector<Acc> a(static_cast<size_t>(groups)), b(static_cast<size_t>(groups));
  for (int64_t c = 0; c < groups; ++c) {
    const size_t u = static_cast<size_t>(c);
    const double ac = scale[c] / std::sqrt(var[u] + eps);
    a[u] = static_cast<Acc>(ac);
    b[u] = static_cast<Acc>(bias[c] - mean[u] * ac);
  }
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  const int64_t rows = groups * inner == 0 ? 0 : xt.numel() / (groups * inner);  // batch
  parallel_for(rows * groups, inner, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t c = r % groups;
      const Acc ac = a[static_cast<size_t>(c)], bc = b[static_cast<size_t>(c)];
      const T* xr = x + r * inner;
      T* yr = y + r * inner;
      for (int64_t i = 0; i < inner; ++i)
        yr[i] = nn_store<T>(static_cast<Acc>(static_cast<float_or_self_t<T>>(xr[i])) * ac + bc);
    }
  });
}

Status batch_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  // Per channel: groups = C, each covering the spatial size; per activation: one group per
  // element of a sample.
  const bool per_activation = bn_per_activation(ctx.attrs(), ctx.opset());
  // From the dims, not numel / N: a batch of 0 still has C x H x W values per sample.
  const int64_t per_sample = shape_numel(Shape(x.shape().begin() + 1, x.shape().end()));
  const int64_t groups = per_activation ? per_sample : x.dim(1);
  const int64_t inner = per_activation ? 1 : (groups == 0 ? 0 : per_sample / groups);
  for (size_t i = 1; i < 5; ++i)
    if (ctx.input(i).numel() != groups)
      return ctx.error("parameter input " + std::to_string(i) + " has " + std::to_string(ctx.input(i).numel()) +
                       " values; expected " + std::to_string(groups));
  std::vector<double> mean, var;
  const bool training = bn_training(ctx.node(), ctx.attrs(), ctx.opset());
  if (training) {
    visit_float_dtype(x.dtype(),
                      [&](auto tag) { batch_moments<typename decltype(tag)::type>(x, groups, inner, mean, var); });
  } else {
    const AccView<double> m(ctx.input(3)), v(ctx.input(4));
    mean.assign(m.data(), m.data() + groups);
    var.assign(v.data(), v.data() + groups);
  }
  if (x.numel() > 0)
    visit_float_dtype(x.dtype(),
                      [&](auto tag) { batch_norm_typed<typename decltype(tag)::type>(ctx, groups, inner, mean, var); });
  if (!training) return Status::Ok();
  // running = input * momentum + batch * (1 - momentum); then the batch statistics themselves.
  const double momentum = ctx.attrs().get_float("momentum", 0.9f);
  const AccView<double> in_mean(ctx.input(3)), in_var(ctx.input(4));
  for (size_t i = 1; i < ctx.num_outputs() && i < 5; ++i) {
    if (!ctx.has_output(i)) continue;
    const bool is_mean = i % 2 == 1;
    const std::vector<double>& batch = is_mean ? mean : var;
    const AccView<double>& input = is_mean ? in_mean : in_var;
    Tensor& out = ctx.output(i);
    visit_float_dtype(out.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      for (int64_t c = 0; c < groups && c < out.numel(); ++c) {
        const double b = batch[static_cast<size_t>(c)];
        out.data<S>()[c] = nn_store<S>(static_cast<nn_acc_t<S>>(i <= 2 ? input[c] * momentum + b * (1 - momentum) : b));
      }
    });
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// InstanceNormalization: per (n, c) plane, y = scale[c] * (x - mean) / sqrt(var + eps) + B[c].

Status infer_instance_norm(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "scale"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 2, "B"));
  OPENGE_RETURN_IF_ERROR(check_epsilon(ctx));
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3)
    return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ... (rank >= 3)");
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.input_shape_known(i)) continue;
    const Shape& p = ctx.input_shape(i);
    if (p.size() != 1 || (p[0] >= 0 && x[1] >= 0 && p[0] != x[1]))
      return ctx.error(std::string(i == 1 ? "scale" : "B") + " has shape " + shape_to_string(p) + "; expected [" +
                       std::to_string(x[1]) + "]");
  }
  ctx.set_output(0, dt, x);
  return Status::Ok();
}

template <class T>
void instance_norm_typed(KernelContext& ctx) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const double eps = ctx.attrs().get_float("epsilon", 1e-5f);
  AccView<double> scale(ctx.input(1)), bias(ctx.input(2));
  const int64_t channels = xt.dim(1);
  const int64_t planes = xt.dim(0) * channels;
  const int64_t plane = planes == 0 ? 0 : xt.numel() / planes;
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  parallel_for(planes, 3 * plane, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % channels;
      double mean, var;
      moments(x + p * plane, plane, &mean, &var);
      const double a = scale[c] / std::sqrt(var + eps);
      const Acc ac = static_cast<Acc>(a), bc = static_cast<Acc>(bias[c] - mean * a);
      for (int64_t i = 0; i < plane; ++i)
        y[p * plane + i] = nn_store<T>(static_cast<Acc>(static_cast<float_or_self_t<T>>(x[p * plane + i])) * ac + bc);
    }
  });
}

Status instance_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (ctx.input(1).numel() != x.dim(1) || ctx.input(2).numel() != x.dim(1))
    return ctx.error("scale and B need " + std::to_string(x.dim(1)) + " values, one per channel");
  visit_float_dtype(x.dtype(), [&](auto tag) { instance_norm_typed<typename decltype(tag)::type>(ctx); });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// LayerNormalization (opset 17): normalises over dims [axis, rank); Scale and B broadcast to
// those dims; optional Mean and InvStdDev outputs keep the reduced dims as 1.

Status infer_layer_norm(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "Scale"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 2, "B"));
  OPENGE_RETURN_IF_ERROR(check_epsilon(ctx));
  const int64_t stash = ctx.attrs().get_int("stash_type", 1);
  if (stash != static_cast<int64_t>(DType::kFloat32))
    return ctx.error("stash_type " + std::to_string(stash) + " is unsupported; only 1 (float32) is implemented");
  const DType dt = ctx.input_dtype(0);
  const bool want_mean = output_present(ctx, 1), want_inv = output_present(ctx, 2);
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    if (want_mean) ctx.set_output_dtype(1, DType::kFloat32);
    if (want_inv) ctx.set_output_dtype(2, DType::kFloat32);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis_attr = ctx.attrs().get_int("axis", -1);
  auto axis = normalize_axis(axis_attr, rank);
  if (rank == 0 || !axis)
    return ctx.error("axis " + std::to_string(axis_attr) + " is out of range for X of shape " + shape_to_string(x));
  const Shape normalized(x.begin() + *axis, x.end());
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.input_shape_known(i)) continue;
    const Shape& p = ctx.input_shape(i);
    auto b = broadcast_shapes(p, normalized);
    if (!b || *b != normalized)
      return ctx.error(std::string(i == 1 ? "Scale" : "B") + " of shape " + shape_to_string(p) +
                       " does not broadcast to the normalized dims " + shape_to_string(normalized));
  }
  ctx.set_output(0, dt, x);
  Shape stat(x.begin(), x.begin() + *axis);
  stat.resize(x.size(), 1);
  if (want_mean) ctx.set_output(1, DType::kFloat32, stat);
  if (want_inv) ctx.set_output(2, DType::kFloat32, stat);
  return Status::Ok();
}

// What a LayerNormalization node does to its shapes, decided once per call (reference) or once
// per compiled shape (prepared): rows of `inner` normalized elements, and how Scale and B
// (inputs 1 and 2) broadcast over the normalized dims.
struct LayerNormPlan {
  int64_t inner = 0, outer = 0;
  double eps = 1e-5;
  Shape normalized;
  bool has[2] = {false, false};
  std::vector<int64_t> strides[2];  // broadcast strides of Scale, B over `normalized`
};

Result<LayerNormPlan> layer_norm_plan(const Node& node, const Shape& x, const Shape* scale, const Shape* bias) {
  auto axis = normalize_axis(node.attrs.get_int("axis", -1), static_cast<int64_t>(x.size()));
  if (!axis) return invalid_model("axis is out of range for X of shape " + shape_to_string(x));
  LayerNormPlan p;
  p.eps = node.attrs.get_float("epsilon", 1e-5f);
  p.normalized.assign(x.begin() + *axis, x.end());
  p.inner = shape_numel(p.normalized);
  p.outer = p.inner == 0 ? 0 : shape_numel(x) / p.inner;
  const Shape* params[2] = {scale, bias};
  for (size_t i = 0; i < 2; ++i) {
    if (!params[i]) continue;
    auto b = broadcast_shapes(*params[i], p.normalized);
    if (!b || *b != p.normalized)
      return invalid_model("Scale/B do not broadcast to the normalized dims " + shape_to_string(p.normalized));
    p.has[i] = true;
    p.strides[i] = broadcast_strides(*params[i], p.normalized);
  }
  return p;
}

// Scale and B expanded to the normalized dims into `buf` (2 * inner accumulators), then the rows.
template <class T>
void layer_norm_typed(KernelContext& ctx, const LayerNormPlan& p, void* buf) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const int64_t inner = p.inner;
  Acc* expanded = static_cast<Acc*>(buf);
  for (size_t k = 0; k < 2; ++k) {
    Acc* v = expanded + static_cast<int64_t>(k) * inner;
    if (!p.has[k]) {
      std::fill(v, v + inner, static_cast<Acc>(k == 0 ? 1.0 : 0.0));
      continue;
    }
    AccView<Acc> src(ctx.input(k + 1));
    const std::vector<int64_t>& strides = p.strides[k];
    const size_t rank = p.normalized.size();
    // The odometer on the stack unless the normalized rank is unusually high.
    int64_t idx_inline[16] = {};
    std::vector<int64_t> idx_heap;
    if (rank > 16) idx_heap.assign(rank, 0);
    int64_t* idx = rank > 16 ? idx_heap.data() : idx_inline;
    for (int64_t e = 0; e < inner; ++e) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off += idx[d] * strides[d];
      v[e] = src[off];
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < p.normalized[d]) break;
        idx[d] = 0;
      }
    }
  }
  const Acc* scale = expanded;
  const Acc* bias = expanded + inner;
  const double eps = p.eps;
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  float* mean_out = ctx.has_output(1) ? ctx.output(1).data<float>() : nullptr;
  float* inv_out = ctx.has_output(2) ? ctx.output(2).data<float>() : nullptr;
  parallel_for(p.outer, 4 * inner, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * inner;
      T* yr = y + r * inner;
      double mean, var;
      moments(xr, inner, &mean, &var);
      const double inv = 1.0 / std::sqrt(var + eps);
      if (mean_out) mean_out[r] = static_cast<float>(mean);
      if (inv_out) inv_out[r] = static_cast<float>(inv);
      const Acc m = static_cast<Acc>(mean), s = static_cast<Acc>(inv);
      for (int64_t i = 0; i < inner; ++i)
        yr[i] = nn_store<T>((static_cast<Acc>(static_cast<float_or_self_t<T>>(xr[i])) - m) * s * scale[i] + bias[i]);
    }
  });
}

// The expanded Scale and B: two rows of the widest accumulator (double).
size_t layer_norm_buffer_bytes(const LayerNormPlan& p) { return 2 * static_cast<size_t>(p.inner) * sizeof(double); }

Status layer_norm_planned(KernelContext& ctx, const LayerNormPlan& p, void* buf) {
  std::vector<double> own;  // outside an executor (no scratch)
  if (!buf) {
    own.resize(2 * static_cast<size_t>(p.inner));
    buf = own.data();
  }
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { layer_norm_typed<typename decltype(tag)::type>(ctx, p, buf); });
  return Status::Ok();
}

Status layer_norm_kernel(KernelContext& ctx) {
  auto plan = layer_norm_plan(ctx.node(), ctx.input(0).shape(), ctx.has_input(1) ? &ctx.input(1).shape() : nullptr,
                              ctx.has_input(2) ? &ctx.input(2).shape() : nullptr);
  if (!plan.ok()) return ctx.error(plan.status().message());
  return layer_norm_planned(ctx, *plan, nullptr);
}

class PreparedLayerNorm final : public PreparedKernel {
 public:
  explicit PreparedLayerNorm(LayerNormPlan plan) : plan_(std::move(plan)) {}
  size_t scratch_bytes() const override { return layer_norm_buffer_bytes(plan_); }
  Status run(KernelContext& ctx) const override { return layer_norm_planned(ctx, plan_, ctx.scratch()); }

 private:
  LayerNormPlan plan_;
};

Result<std::unique_ptr<CompiledKernel>> prepare_layer_norm(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  auto present = [&](size_t i) { return request.inputs.size() > i && request.inputs[i].dtype != DType::kUndefined; };
  auto plan = layer_norm_plan(request.node, request.inputs[0].shape, present(1) ? &request.inputs[1].shape : nullptr,
                              present(2) ? &request.inputs[2].shape : nullptr);
  if (!plan.ok()) return not_prepared();  // the reference kernel reports it
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedLayerNorm>(std::move(plan.value())));
}

}  // namespace

void register_nn_norm_ops(std::vector<OpSchema>& table) {
  table.push_back({"BatchNormalization", 5, 5, 1, 5, infer_batch_norm, batch_norm_kernel});
  table.push_back({"InstanceNormalization", 3, 3, 1, 1, infer_instance_norm, instance_norm_kernel});
  table.push_back({"LayerNormalization", 2, 3, 1, 3, infer_layer_norm, layer_norm_kernel});
  table.back().prepare = &prepare_layer_norm;
}

}  // namespace openge
