#include "kernels/onednn_conv.h"

#include "kernels/onednn_common.h"
#include "kernels/onednn_conv_train.h"
#include "kernels/silu_in_place.h"
#include "ops/layout/activation_format.h"
#include "ops/op_context.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;

class ConvKernel final : public OneDnnKernel {
 public:
  dnnl::convolution_forward prim;
  dnnl::memory::desc bias_md, scratchpad_md;
  ActivationStaging staging;   // the primitive's activation layouts (blocked ones staged)
  dnnl::memory weights;        // reordered once into the primitive's preferred layout
  std::optional<Tensor> bias;  // constant bias (else read from input 2 per run, if present)
  bool has_bias = false;
  bool has_residual = false;
  bool silu_after = false;  // the Swish activation runs after the primitive (silu_in_place.h)

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    StagedArgs& args = state_for_run<StagedArgs>(*this, ctx, temp);
    if (has_bias && !bias) args.prim.set(DNNL_ARG_BIAS, ctx.input(2).raw());
    Status ran = staging.run(prim, args, ctx.input(0), ctx.output(0), has_residual ? &ctx.input(3) : nullptr, ctx);
    if (ran.ok() && silu_after) silu_in_place(ctx.output(0).data<float>(), ctx.output(0).numel());
    return ran;
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    std::unique_ptr<StagedArgs> args = staging.make_args(scratchpad_md);
    args->prim.add_fixed(DNNL_ARG_WEIGHTS, weights);
    if (has_bias && bias)
      args->prim.add_fixed(DNNL_ARG_BIAS, wrap(bias_md, bias->raw()));
    else if (has_bias)
      args->prim.add(DNNL_ARG_BIAS, bias_md);
    return args;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
  // The weights are always reordered at compile time; a constant bias is kept by the kernel.
  bool reads_input_at_run_time(size_t input) const override { return !(input == 1 || (input == 2 && bias)); }
};

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_conv_kernel(const KernelRequest& request) {
  const Node& node = request.node;
  const bool fused = node.op_type == kFusedConv;
  const auto& in = request.inputs;
  if (in.size() < 2 || request.outputs.empty()) return std::unique_ptr<CompiledKernel>();
  const auto x_shape = static_shape(in[0]);
  const auto w_shape = static_shape(in[1]);
  const auto y_shape = static_shape(request.outputs[0]);
  const auto dt = to_dnnl(in[0].dtype);
  // Weights that are an input (training graphs: they change every step) are not packed.
  if (!fused && !in[1].value && in[1].dtype != DType::kUndefined) return make_runtime_weight_conv_kernel(request);
  if (!x_shape || !w_shape || !y_shape || !dt || w_shape->size() != 4 || !in[1].value || in[1].dtype != in[0].dtype ||
      request.outputs[0].dtype != in[0].dtype)
    return std::unique_ptr<CompiledKernel>();
  const bool has_bias = in.size() > 2 && in[2].dtype != DType::kUndefined;
  const bool has_residual = fused && in.size() > 3 && in[3].dtype != DType::kUndefined;
  if (has_bias && (in[2].dtype != in[0].dtype || !static_shape(in[2]))) return std::unique_ptr<CompiledKernel>();
  if (has_residual && (in[3].dtype != in[0].dtype || static_shape(in[3]) != y_shape))
    return std::unique_ptr<CompiledKernel>();

  FusedActivation act;
  ConvFormats formats;
  if (fused) {
    auto a = read_fused_activation(node.attrs);
    if (!a.ok()) return a.status();
    act = *a;
    formats = conv_formats(node.attrs);
  }
  // Logical NCHW dims; the formats only change the memory tags.
  const auto x_nchw = nchw_shape(*x_shape, formats.x);
  const auto y_nchw = nchw_shape(*y_shape, formats.y);
  if (!x_nchw || !y_nchw) return std::unique_ptr<CompiledKernel>();
  const Shape &x = *x_nchw, &y = *y_nchw;
  const Shape& w = *w_shape;
  const int64_t group = node.attrs.get_int("group", 1);
  if (group < 1 || x[1] % group != 0 || w[0] % group != 0 || w[1] * group != x[1] || y[1] != w[0])
    return std::unique_ptr<CompiledKernel>();
  const std::vector<int64_t> kernel{w[2], w[3]};
  auto params = read_window_params(node.attrs, 2, &kernel, false);
  if (!params.ok()) return std::unique_ptr<CompiledKernel>();  // the reference engine reports it
  auto geom = resolve_window(*params, {x[2], x[3]});
  if (!geom.ok() || geom->output != std::vector<int64_t>{y[2], y[3]}) return std::unique_ptr<CompiledKernel>();

  auto k = std::make_unique<ConvKernel>();
  const dnnl::memory::desc src_md(to_dims(x), *dt, activation_tag(formats.x));
  const dnnl::memory::desc dst_md(to_dims(y), *dt, activation_tag(formats.y));
  // The variant may run the primitive on oneDNN's blocked layout or on NHWC, staged around it.
  auto primitive_md = [&](const Shape& dims, const dnnl::memory::desc& graph_md) {
    switch (request.variant.activations) {
      case ActivationLayout::kBlocked:
        return dnnl::memory::desc(to_dims(dims), *dt, tag::any);
      case ActivationLayout::kChannelsLast:
        return dnnl::memory::desc(to_dims(dims), *dt, tag::nhwc);
      case ActivationLayout::kGraph:
        break;
    }
    return graph_md;
  };
  const dnnl::memory::desc src_prim = primitive_md(x, src_md), dst_prim = primitive_md(y, dst_md);
  const dnnl::memory::dims w_dims = group > 1 ? dnnl::memory::dims{group, w[0] / group, w[1], w[2], w[3]} : to_dims(w);
  const dnnl::memory::desc w_plain(w_dims, *dt, group > 1 ? tag::goihw : tag::oihw);
  const dnnl::memory::desc w_any(w_dims, *dt, tag::any);
  k->has_bias = has_bias;
  k->has_residual = has_residual;
  if (has_bias) {
    k->bias_md = dnnl::memory::desc({w[0]}, *dt, tag::x);
    if (in[2].value) k->bias = in[2].value->clone();
  }
  // Swish (SiLU) is the last step, so it can run after the primitive: faster than oneDNN's
  // post-op where this build has the vector pass; high_precision keeps oneDNN's exp.
  k->silu_after = act.kind == Activation::kSwish && *dt == dnnl::memory::data_type::f32 && fast_silu_available() &&
                  !high_precision_impl(node);
  FusedActivation in_primitive = act;
  if (k->silu_after) in_primitive.kind = Activation::kNone;
  dnnl::post_ops ops;
  if (has_residual) ops.append_sum(1.0f);
  append_activation(ops, in_primitive);
  const dnnl::primitive_attr attr = make_attr(ops);

  const dnnl::memory::dims strides{geom->strides[0], geom->strides[1]};
  const dnnl::memory::dims dilations{geom->dilations[0] - 1, geom->dilations[1] - 1};
  const dnnl::memory::dims pad_l{geom->pad_begin[0], geom->pad_begin[1]};
  const dnnl::memory::dims pad_r{geom->pad_end[0], geom->pad_end[1]};
  // A tuned node may ask for Winograd; oneDNN refuses it (no kernel) where it has none.
  const dnnl::algorithm algorithm = request.variant.conv_algorithm == ConvAlgorithm::kWinograd
                                        ? dnnl::algorithm::convolution_winograd
                                        : dnnl::algorithm::convolution_direct;
  auto pd = try_create([&] {
    auto desc = has_bias
                    ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, src_prim, w_any,
                                                      k->bias_md, dst_prim, strides, dilations, pad_l, pad_r)
                    : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, src_prim, w_any,
                                                      dst_prim, strides, dilations, pad_l, pad_r);
    return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
  });
  if (!pd) return std::unique_ptr<CompiledKernel>();
  k->prim = dnnl::convolution_forward(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  k->staging = ActivationStaging::make(src_md, pd->src_desc(), dst_md, pd->dst_desc(), has_residual);
  k->weights = reorder_constant(w_plain, in[1].value->raw(), pd->weights_desc());
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
