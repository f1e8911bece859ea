// Schemas and reference kernels of the fused ops (see fused_ops.h). A fused op's reference is
// the base op's reference kernel (Conv, MatMul from the op table, so the math exists once)
// followed by the epilogue: + bias, + residual, activation, computed in float and rounded once.
#include "ops/fused/fused_ops.h"
#include "ops/fused/fused_elementwise.h"

#include <cstring>

#include "ir/dispatch.h"
#include "ops/layout/activation_format.h"
#include "ops/layout/in_formats.h"
#include "ops/fused/fused_attention.h"
#include "ops/nn/shuffle_channel.h"
#include "ops/op_registry.h"
#include "ops/shape/shape_strided_copy.h"
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

// y = act(y + bias[i % bias_len] + z[i]); bias and z may be null.
Status apply_epilogue(KernelContext& ctx, Tensor& y, const Tensor* bias, const Tensor* z, const FusedActivation& act) {
  if (!bias && !z && act.kind == Activation::kNone) return Status::Ok();
  if (z && z->numel() != y.numel())
    return ctx.error("residual input has " + shape_to_string(z->shape()) + ", output " + shape_to_string(y.shape()));
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
    return ctx.error("residual input has shape " + shape_to_string(ctx.input_shape(index)) +
                     "; expected the output's " + shape_to_string(out.shape));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// FusedConv

Status infer_fused_conv(InferContext& ctx) {
  const OpSchema* conv = base_schema("Conv");
  if (!conv) return ctx.error("needs the Conv reference op");
  auto act = read_fused_activation(ctx.attrs());
  if (!act.ok()) return ctx.error(act.status().message());
  OPENGE_RETURN_IF_ERROR(infer_in_formats(ctx, conv->infer,
                                          {&ctx.input(0), &ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr},
                                          conv_formats(ctx.attrs())));
  return check_residual(ctx, 3);
}

Status fused_conv_kernel(KernelContext& ctx) {
  const OpSchema* conv = base_schema("Conv");
  if (!conv) return ctx.error("needs the Conv reference op");
  auto act = read_fused_activation(ctx.attrs());
  if (!act.ok()) return ctx.error(act.status().message());
  OPENGE_RETURN_IF_ERROR(run_in_formats(ctx, conv->reference,
                                        {&ctx.input(0), &ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr},
                                        conv_formats(ctx.attrs())));
  return apply_epilogue(ctx, ctx.output(0), nullptr, ctx.has_input(3) ? &ctx.input(3) : nullptr, *act);
}

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
  if (y.shape_known)
    ctx.set_output(0, y.dtype, y.shape);
  else
    ctx.set_output_dtype(0, y.dtype);
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
// exporters emit for it; computed in float (double for double) and rounded once. The attribute
// `approximate` reads as ONNX's Gelu (opset 20) reads it: "tanh" is
// X/2 * (1 + tanh(sqrt(2/pi) * (X + 0.044715 X^3))).

Status infer_gelu(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!dtype_is_float(dt)) return ctx.error(std::string("needs a float input, got ") + dtype_name(dt));
  const std::string approximate = ctx.attrs().get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.error("approximate must be none or tanh, got '" + approximate + "'");
  if (ctx.input_shape_known(0))
    ctx.set_output(0, dt, ctx.input_shape(0));
  else
    ctx.set_output_dtype(0, dt);
  return Status::Ok();
}

Status gelu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const bool tanh_form = ctx.attrs().get_string("approximate", "none") == "tanh";
  visit_float_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using F = float_or_self_t<T>;
    const T* src = x.data<T>();
    T* dst = y.data<T>();
    parallel_for(x.numel(), 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const F v = static_cast<F>(src[i]);
        const F s = tanh_form ? std::tanh(F(0.79788456080286535588) * (v + F(0.044715) * v * v * v))
                              : std::erf(v * F(0.70710678118654752440));
        dst[i] = T(static_cast<F>(F(0.5) * v * (F(1) + s)));
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
  register_fused_elementwise_ops(table);
  register_shuffle_channel_ops(table);
}

}  // namespace openge
