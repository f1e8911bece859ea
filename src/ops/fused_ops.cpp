// Schemas and reference kernels of the fused ops (see fused_ops.h). A fused op's reference is
// the base op's reference kernel (Conv, MatMul from the op table, so the math exists once)
// followed by the epilogue: + bias, + residual, activation, computed in float and rounded once.
#include "ops/fused_ops.h"
#include "ops/fused_elementwise.h"

#include <cstring>

#include "ir/dispatch.h"
#include "ops/fused_attention.h"
#include "ops/shuffle_channel.h"
#include "ops/op_registry.h"
#include "ops/shape_strided_copy.h"
#include "base/parallel.h"

namespace openge {

Result<FusedActivation> read_fused_activation(const Attributes& attrs) {
  FusedActivation act;
  const std::string name = attrs.get_string("activation", "");
  act.alpha = attrs.get_float("activation_alpha", 0.0f);
  act.beta = attrs.get_float("activation_beta", 0.0f);
  if (name.empty()) return act;
  for (const ActivationRow& row : kActivations)
    if (row.name == name) {
      act.kind = row.kind;
      return act;
    }
  return invalid_model("unknown fused activation '" + name + "'");
}

void write_fused_activation(Node& node, const FusedActivation& act) {
  std::string name;
  for (const ActivationRow& row : kActivations)
    if (row.kind == act.kind) name = row.name;
  Attribute s;
  s.kind = Attribute::Kind::kString;
  s.s = name;
  node.attrs.set("activation", s);
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = act.alpha;
  node.attrs.set("activation_alpha", a);
  a.f = act.beta;
  node.attrs.set("activation_beta", a);
}

namespace {

// NCHW <-> NHWC for the channels_last form.
Shape nhwc_to_nchw_shape(const Shape& s) { return {s[0], s[3], s[1], s[2]}; }
Shape nchw_to_nhwc_shape(const Shape& s) { return {s[0], s[2], s[3], s[1]}; }

void permute_nhwc_to_nchw(const Tensor& src, Tensor& dst) {
  const Shape& s = src.shape();  // N H W C
  const int64_t n = s[0], h = s[1], w = s[2], c = s[3];
  strided_copy(src.raw(), dst.raw(), dtype_size(src.dtype()), {n, c, h, w}, {h * w * c, 1, w * c, c});
}
void permute_nchw_to_nhwc(const Tensor& src, Tensor& dst) {
  const Shape& s = src.shape();  // N C H W
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  strided_copy(src.raw(), dst.raw(), dtype_size(src.dtype()), {n, h, w, c}, {c * h * w, w, 1, h * w});
}

// y = act(y + bias[i % bias_len] + z[i]); bias and z may be null.
Status apply_epilogue(KernelContext& ctx, Tensor& y, const Tensor* bias, const Tensor* z, const FusedActivation& act) {
  if (!bias && !z && act.kind == Activation::kNone) return Status::Ok();
  if (z && z->numel() != y.numel()) return ctx.error("residual input has " + shape_to_string(z->shape()) +
                                                     ", output " + shape_to_string(y.shape()));
  const int64_t bias_len = bias ? bias->numel() : 1;
  if (bias && (bias_len == 0 || y.numel() % bias_len != 0)) return ctx.error("bias does not fit the output");
  const bool ok = visit_float_dtype(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = float_or_self_t<T>;
    T* out = y.data<T>();
    const T* b = bias ? bias->data<T>() : nullptr;
    const T* r = z ? z->data<T>() : nullptr;
    parallel_for(y.numel(), 8, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Acc v = static_cast<Acc>(out[i]);
        if (b) v += static_cast<Acc>(b[i % bias_len]);
        if (r) v += static_cast<Acc>(r[i]);
        if (act.kind != Activation::kNone) v = static_cast<Acc>(apply_activation(act, static_cast<float>(v)));
        out[i] = T(v);
      }
    });
  });
  if (!ok) return ctx.error(std::string("dtype ") + dtype_name(y.dtype()) + " is not a float type");
  return Status::Ok();
}

const OpSchema* base_schema(std::string_view op) {
  const OpSchema* s = find_op_schema(op);
  return s && s->infer && s->reference ? s : nullptr;
}

Status check_residual(InferContext& ctx, size_t index) {
  if (!ctx.has_input(index)) return Status::Ok();
  const ValueInfo& out = ctx.output(0);
  if (ctx.input_dtype(index) != out.dtype)
    return ctx.error(std::string("residual input has dtype ") + dtype_name(ctx.input_dtype(index)) + ", output " +
                     dtype_name(out.dtype));
  if (out.shape_known && ctx.input_shape_known(index) && ctx.input_shape(index) != out.shape)
    return ctx.error("residual input has shape " + shape_to_string(ctx.input_shape(index)) + "; expected the output's " +
                     shape_to_string(out.shape));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// FusedConv

// Inference of `base` on `inputs`, where input 0 (and the output) are NHWC when channels_last.
Status infer_maybe_channels_last(InferContext& ctx, const OpSchema& base, std::vector<const ValueInfo*> inputs,
                                 bool channels_last) {
  ValueInfo x = *inputs[0];
  if (channels_last && x.shape_known) {
    if (x.shape.size() != 4) return ctx.error("channels_last needs a 4-D input, got " + shape_to_string(x.shape));
    x.shape = nhwc_to_nchw_shape(x.shape);
    x.value = nullptr;
    inputs[0] = &x;
  }
  InferContext inner(ctx.node(), ctx.opset(), std::move(inputs), 1);
  OPENGE_RETURN_IF_ERROR(base.infer(inner));
  const ValueInfo& y = inner.output(0);
  if (y.shape_known) ctx.set_output(0, y.dtype, channels_last ? nchw_to_nhwc_shape(y.shape) : y.shape);
  else ctx.set_output_dtype(0, y.dtype);
  return Status::Ok();
}

// Runs `base`'s reference kernel; with channels_last on NCHW copies of input 0 and output 0.
Status run_maybe_channels_last(KernelContext& ctx, const OpSchema& base, std::vector<const Tensor*> inputs,
                               bool channels_last) {
  Tensor& y = ctx.output(0);
  if (!channels_last) {
    KernelContext inner(ctx.node(), ctx.opset(), std::move(inputs), {&y});
    return base.reference(inner);
  }
  const Tensor& x = *inputs[0];
  if (x.rank() != 4 || y.rank() != 4) return ctx.error("channels_last needs 4-D input and output");
  Tensor x_nchw(x.dtype(), nhwc_to_nchw_shape(x.shape()));
  Tensor y_nchw(y.dtype(), nhwc_to_nchw_shape(y.shape()));
  permute_nhwc_to_nchw(x, x_nchw);
  inputs[0] = &x_nchw;
  KernelContext inner(ctx.node(), ctx.opset(), std::move(inputs), {&y_nchw});
  OPENGE_RETURN_IF_ERROR(base.reference(inner));
  permute_nchw_to_nhwc(y_nchw, y);
  return Status::Ok();
}

Status infer_fused_conv(InferContext& ctx) {
  const OpSchema* conv = base_schema("Conv");
  if (!conv) return ctx.error("needs the Conv reference op");
  auto act = read_fused_activation(ctx.attrs());
  if (!act.ok()) return ctx.error(act.status().message());
  OPENGE_RETURN_IF_ERROR(infer_maybe_channels_last(
      ctx, *conv, {&ctx.input(0), &ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr},
      ctx.attrs().get_int("channels_last", 0) != 0));
  return check_residual(ctx, 3);
}

Status fused_conv_kernel(KernelContext& ctx) {
  const OpSchema* conv = base_schema("Conv");
  if (!conv) return ctx.error("needs the Conv reference op");
  auto act = read_fused_activation(ctx.attrs());
  if (!act.ok()) return ctx.error(act.status().message());
  OPENGE_RETURN_IF_ERROR(run_maybe_channels_last(
      ctx, *conv, {&ctx.input(0), &ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr},
      ctx.attrs().get_int("channels_last", 0) != 0));
  return apply_epilogue(ctx, ctx.output(0), nullptr, ctx.has_input(3) ? &ctx.input(3) : nullptr, *act);
}

// ---------------------------------------------------------------------------------------------
// Nhwc<Pool>: the pool named after the prefix, on NHWC input and output.

template <const char* kBase>
Status infer_nhwc_pool(InferContext& ctx) {
  const OpSchema* base = base_schema(kBase);
  if (!base) return ctx.error(std::string("needs the ") + kBase + " reference op");
  return infer_maybe_channels_last(ctx, *base, {&ctx.input(0)}, true);
}

template <const char* kBase>
Status nhwc_pool_kernel(KernelContext& ctx) {
  const OpSchema* base = base_schema(kBase);
  if (!base) return ctx.error(std::string("needs the ") + kBase + " reference op");
  return run_maybe_channels_last(ctx, *base, {&ctx.input(0)}, true);
}

constexpr char kMaxPool[] = "MaxPool";
constexpr char kAveragePool[] = "AveragePool";
constexpr char kGlobalAveragePool[] = "GlobalAveragePool";
constexpr char kGlobalMaxPool[] = "GlobalMaxPool";

// ---------------------------------------------------------------------------------------------
// FusedMatMul

Status infer_fused_matmul(InferContext& ctx) {
  const OpSchema* matmul = base_schema("MatMul");
  if (!matmul) return ctx.error("needs the MatMul reference op");
  auto act = read_fused_activation(ctx.attrs());
  if (!act.ok()) return ctx.error(act.status().message());
  InferContext inner(ctx.node(), ctx.opset(), {&ctx.input(0), &ctx.input(1)}, 1);
  OPENGE_RETURN_IF_ERROR(matmul->infer(inner));
  const ValueInfo& y = inner.output(0);
  if (y.shape_known) ctx.set_output(0, y.dtype, y.shape);
  else ctx.set_output_dtype(0, y.dtype);
  if (!dtype_is_float(y.dtype)) return ctx.error("needs float inputs");
  if (ctx.has_input(2)) {
    if (ctx.input_dtype(2) != y.dtype) return ctx.error("bias dtype differs from the output's");
    if (ctx.input_shape_known(2) && y.shape_known &&
        (ctx.input_shape(2).size() != 1 || y.shape.empty() || ctx.input_shape(2)[0] != y.shape.back()))
      return ctx.error("bias has shape " + shape_to_string(ctx.input_shape(2)) + "; expected [N] for output " +
                       shape_to_string(y.shape));
  }
  return check_residual(ctx, 3);
}

Status fused_matmul_kernel(KernelContext& ctx) {
  const OpSchema* matmul = base_schema("MatMul");
  if (!matmul) return ctx.error("needs the MatMul reference op");
  auto act = read_fused_activation(ctx.attrs());
  if (!act.ok()) return ctx.error(act.status().message());
  Tensor& y = ctx.output(0);
  KernelContext inner(ctx.node(), ctx.opset(), {&ctx.input(0), &ctx.input(1)}, {&y});
  OPENGE_RETURN_IF_ERROR(matmul->reference(inner));
  return apply_epilogue(ctx, y, ctx.has_input(2) ? &ctx.input(2) : nullptr, ctx.has_input(3) ? &ctx.input(3) : nullptr,
                        *act);
}

// ---------------------------------------------------------------------------------------------
// Gelu(X) = X/2 * (1 + erf(X / sqrt 2)), made by GeluONNXFusionPass from the five nodes
// exporters emit for it; computed in float (double for double) and rounded once.

Status infer_gelu(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!dtype_is_float(dt)) return ctx.error(std::string("needs a float input, got ") + dtype_name(dt));
  if (ctx.input_shape_known(0)) ctx.set_output(0, dt, ctx.input_shape(0));
  else ctx.set_output_dtype(0, dt);
  return Status::Ok();
}

Status gelu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  visit_float_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using F = float_or_self_t<T>;
    const T* src = x.data<T>();
    T* dst = y.data<T>();
    parallel_for(x.numel(), 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const F v = static_cast<F>(src[i]);
        dst[i] = T(static_cast<F>(F(0.5) * v * (F(1) + std::erf(v * F(0.70710678118654752440)))));
      }
    });
  });
  return Status::Ok();
}

}  // namespace

void register_fused_ops(std::vector<OpSchema>& table) {
  table.push_back({kFusedGelu, 1, 1, 1, 1, infer_gelu, gelu_kernel});
  register_fused_attention_ops(table);
  table.push_back({kFusedConv, 2, 4, 1, 1, infer_fused_conv, fused_conv_kernel});
  table.push_back({kFusedMatMul, 2, 4, 1, 1, infer_fused_matmul, fused_matmul_kernel});
  table.push_back({"NhwcMaxPool", 1, 1, 1, 1, infer_nhwc_pool<kMaxPool>, nhwc_pool_kernel<kMaxPool>});
  table.push_back({"NhwcAveragePool", 1, 1, 1, 1, infer_nhwc_pool<kAveragePool>, nhwc_pool_kernel<kAveragePool>});
  table.push_back({"NhwcGlobalAveragePool", 1, 1, 1, 1, infer_nhwc_pool<kGlobalAveragePool>,
                   nhwc_pool_kernel<kGlobalAveragePool>});
  table.push_back({"NhwcGlobalMaxPool", 1, 1, 1, 1, infer_nhwc_pool<kGlobalMaxPool>,
                   nhwc_pool_kernel<kGlobalMaxPool>});
  register_fused_elementwise_ops(table);
  register_shuffle_channel_ops(table);
}

}  // namespace openge
