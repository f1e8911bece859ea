#include "kernels/onednn_qlinear.h"

#include <algorithm>
#include <cstdlib>

#include "kernels/onednn_common.h"
#include "ops/nn/nn_window.h"

namespace openge::onednn {

bool int8_weights_safe(bool has_vnni, int max_abs_weight) { return has_vnni || 2 * 255 * max_abs_weight <= 32767; }

bool cpu_has_vnni() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::avx2_vnni:
    case isa::avx512_core_vnni:
    case isa::avx512_core_bf16:
    case isa::avx512_core_amx:
      return true;
    default:
      return false;
  }
}

namespace {

using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

std::unique_ptr<CompiledKernel> none() { return nullptr; }

std::optional<dnnl::memory::data_type> int8_type(DType t) {
  if (t == DType::kUInt8) return dnnl::memory::data_type::u8;
  if (t == DType::kInt8) return dnnl::memory::data_type::s8;
  return std::nullopt;
}

// Input i's data when it is present and known at compile time.
const Tensor* constant_input(const KernelRequest& r, size_t i) {
  return i < r.inputs.size() && r.inputs[i].dtype != DType::kUndefined ? r.inputs[i].value : nullptr;
}

// The requantization of one QLinear node as oneDNN attributes: output scale per output channel
// (or one), and the activation / output zero points. Input positions follow QLinearConv and
// QLinearMatMul, which share them: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp.
struct Requant {
  std::vector<float> scales;
  bool per_channel = false;
  int32_t src_zp = 0, dst_zp = 0;
};

std::optional<Requant> read_requant(const KernelRequest& r, int64_t channels) {
  const Tensor* x_scale = constant_input(r, 1);
  const Tensor* x_zp = constant_input(r, 2);
  const Tensor* w_scale = constant_input(r, 4);
  const Tensor* y_scale = constant_input(r, 6);
  const Tensor* y_zp = constant_input(r, 7);
  if (!x_scale || !w_scale || !y_scale || !y_zp || x_scale->numel() != 1 || y_scale->numel() != 1 ||
      y_zp->numel() != 1 || (w_scale->numel() != 1 && w_scale->numel() != channels))
    return std::nullopt;
  if (r.inputs[2].dtype != DType::kUndefined && (!x_zp || x_zp->numel() != 1)) return std::nullopt;
  if (r.inputs.size() > 5 && r.inputs[5].dtype != DType::kUndefined) {
    const Tensor* w_zp = constant_input(r, 5);
    if (!w_zp) return std::nullopt;
    for (int64_t i = 0; i < w_zp->numel(); ++i)
      if (w_zp->scalar_as_int(i) != 0) return std::nullopt;  // oneDNN 2.6: no weight zero points for int8
  }
  Requant q;
  q.per_channel = w_scale->numel() > 1;
  const float xs = static_cast<float>(x_scale->scalar_as_double());
  const float ys = static_cast<float>(y_scale->scalar_as_double());
  // The reference kernels' multiplier, in their order: x_scale * w_scale[m], then / y_scale.
  for (int64_t m = 0; m < w_scale->numel(); ++m)
    q.scales.push_back(xs * static_cast<float>(w_scale->scalar_as_double(m)) / ys);
  q.src_zp = x_zp ? static_cast<int32_t>(x_zp->scalar_as_int()) : 0;
  q.dst_zp = static_cast<int32_t>(y_zp->scalar_as_int());
  return q;
}

// A QLinearConvAdd's residual: added as (r_q - zero_point) * scale in oneDNN's sum post-op,
// then Relu where the node absorbed one.
struct Residual {
  float scale = 1;  // r_scale / y_scale
  int32_t zero_point = 0;
  dnnl::memory::data_type dtype = dnnl::memory::data_type::u8;
  bool relu = false;
};

dnnl::primitive_attr requant_attr(const Requant& q, int channel_dim, const std::optional<Residual>& residual = {}) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_output_scales(q.per_channel ? 1 << channel_dim : 0, q.scales);
  if (q.src_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {q.src_zp});
  dnnl::post_ops ops;
  if (residual) {
    ops.append_sum(residual->scale, residual->zero_point, residual->dtype);
    if (residual->relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  }
  if (q.dst_zp != 0 || residual) {
    // oneDNN adds the output zero point in float and rounds after it; ONNX rounds first and adds
    // the zero point as an integer. Rounding in a post-op (to nearest even, before the zero
    // point) makes the sum an integer, so oneDNN's later add and conversion are exact.
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
  }
  if (ops.len() > 0) attr.set_post_ops(ops);
  if (q.dst_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {q.dst_zp});
  return attr;
}

// Constant int8 weights whose sums oneDNN computes exactly on this CPU.
bool weights_supported(const KernelRequest& r, size_t i) {
  const Tensor* w = constant_input(r, i);
  if (!w || w->dtype() != DType::kInt8) return false;
  const int8_t* p = w->data<int8_t>();
  int max_abs = 0;
  for (int64_t k = 0; k < w->numel(); ++k) max_abs = std::max(max_abs, std::abs(static_cast<int>(p[k])));
  static const bool vnni = cpu_has_vnni();
  return int8_weights_safe(vnni, max_abs);
}

// oneDNN's reference int8 kernels are slower than OpenGE's own reference; only jit ones count.
bool is_reference_impl(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

// One int8 primitive. The activations arrive and leave in the graph's layout (ONNX's NCHW, or
// NHWC inside a channels-last region); where the primitive wants another (int8 convolutions run
// on channels-last), they are reordered through per-thread buffers around it.
class QLinearKernel final : public OneDnnKernel {
 public:
  dnnl::primitive prim;
  dnnl::memory::desc bias_md, scratchpad_md;
  ActivationStaging staging;  // the primitive's activation layouts, and reorders where they differ
  dnnl::memory weights;
  std::optional<Tensor> bias;

  bool has_residual = false;  // QLinearConvAdd: input 9 is placed into dst for the sum post-op

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    StagedArgs& args = state_for_run<StagedArgs>(*this, ctx, temp);
    return staging.run(prim, args, ctx.input(0), ctx.output(0), has_residual ? &ctx.input(9) : nullptr, ctx);
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    std::unique_ptr<StagedArgs> args = staging.make_args(scratchpad_md);
    args->prim.add_fixed(DNNL_ARG_WEIGHTS, weights);
    if (bias) args->prim.add_fixed(DNNL_ARG_BIAS, wrap(bias_md, bias->raw()));
    return args;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
};

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_qlinear_conv_kernel(const KernelRequest& request) {
  const auto& in = request.inputs;
  if (in.size() < 8 || request.outputs.empty()) return none();
  // channels_last (ChannelsLastLayoutPass's int8 regions): x, y and the residual arrive and
  // leave as N x H x W x C, the layout oneDNN's int8 convolutions compute in, so no reorder runs.
  const bool nhwc = request.node.attrs.get_int("channels_last", 0) != 0;
  const ActivationFormat format = nhwc ? ActivationFormat::kNhwc : ActivationFormat::kNchw;
  const auto logical = [&](const std::optional<Shape>& s) {
    return s && nhwc ? nchw_shape(*s, ActivationFormat::kNhwc) : s;
  };
  const auto x_shape = logical(static_shape(in[0]));
  const auto w_shape = static_shape(in[3]);
  const auto y_shape = logical(static_shape(request.outputs[0]));
  const auto x_dt = int8_type(in[0].dtype);
  const auto y_dt = int8_type(request.outputs[0].dtype);
  if (!x_shape || !w_shape || !y_shape || !x_dt || !y_dt || x_shape->size() != 4 || w_shape->size() != 4 ||
      !weights_supported(request, 3))
    return none();
  const Shape &x = *x_shape, &w = *w_shape, &y = *y_shape;
  const int64_t group = request.node.attrs.get_int("group", 1);
  if (group < 1 || x[1] % group != 0 || w[0] % group != 0 || w[1] * group != x[1] || y[1] != w[0]) return none();
  const bool has_bias = in.size() > 8 && in[8].dtype != DType::kUndefined;
  const Tensor* bias = has_bias ? constant_input(request, 8) : nullptr;
  if (has_bias && (!bias || bias->dtype() != DType::kInt32 || bias->numel() != w[0])) return none();
  const auto requant = read_requant(request, w[0]);
  if (!requant) return none();
  std::optional<Residual> residual;
  if (request.node.op_type == "QLinearConvAdd") {
    const Tensor* r_scale = constant_input(request, 10);
    const Tensor* r_zp = constant_input(request, 11);
    const auto r_dt = in.size() > 11 ? int8_type(in[9].dtype) : std::nullopt;
    if (!r_scale || !r_zp || !r_dt || *r_dt != *y_dt || r_scale->numel() != 1 || r_zp->numel() != 1 ||
        logical(static_shape(in[9])) != y_shape)
      return none();
    const Tensor* y_scale = constant_input(request, 6);
    residual =
        Residual{static_cast<float>(r_scale->scalar_as_double()) / static_cast<float>(y_scale->scalar_as_double()),
                 static_cast<int32_t>(r_zp->scalar_as_int()), *r_dt, request.node.attrs.get_int("relu", 0) != 0};
  }
  const std::vector<int64_t> kernel{w[2], w[3]};
  auto params = read_window_params(request.node.attrs, 2, &kernel, false);
  if (!params.ok()) return none();  // the reference engine reports it
  auto geom = resolve_window(*params, {x[2], x[3]});
  if (!geom.ok() || geom->output != std::vector<int64_t>{y[2], y[3]}) return none();

  auto k = std::make_unique<QLinearKernel>();
  const tag plain = format == ActivationFormat::kNhwc ? tag::nhwc : tag::nchw;
  const dnnl::memory::desc src_plain(to_dims(x), *x_dt, plain);
  const dnnl::memory::desc dst_plain(to_dims(y), *y_dt, plain);
  const dims w_dims = group > 1 ? dims{group, w[0] / group, w[1], w[2], w[3]} : to_dims(w);
  const dnnl::memory::desc w_plain(w_dims, dnnl::memory::data_type::s8, group > 1 ? tag::goihw : tag::oihw);
  if (bias) {
    k->bias_md = dnnl::memory::desc({w[0]}, dnnl::memory::data_type::s32, tag::x);
    k->bias = bias->clone();
  }
  const dims strides{geom->strides[0], geom->strides[1]};
  const dims dilations{geom->dilations[0] - 1, geom->dilations[1] - 1};
  const dims pad_l{geom->pad_begin[0], geom->pad_begin[1]};
  const dims pad_r{geom->pad_end[0], geom->pad_end[1]};
  const auto any = [](const dims& d, dnnl::memory::data_type t) { return dnnl::memory::desc(d, t, tag::any); };
  const dnnl::primitive_attr attr = requant_attr(*requant, 1, residual);
  k->has_residual = residual.has_value();
  auto pd = try_create([&] {
    const auto prop = dnnl::prop_kind::forward_inference;
    const auto algo = dnnl::algorithm::convolution_direct;
    auto desc =
        bias ? dnnl::convolution_forward::desc(prop, algo, any(to_dims(x), *x_dt), any(w_dims, w_plain.data_type()),
                                               k->bias_md, any(to_dims(y), *y_dt), strides, dilations, pad_l, pad_r)
             : dnnl::convolution_forward::desc(prop, algo, any(to_dims(x), *x_dt), any(w_dims, w_plain.data_type()),
                                               any(to_dims(y), *y_dt), strides, dilations, pad_l, pad_r);
    return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
  });
  if (!pd || is_reference_impl(*pd)) return none();
  k->prim = dnnl::convolution_forward(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  k->staging = ActivationStaging::make(src_plain, pd->src_desc(), dst_plain, pd->dst_desc(), residual.has_value());
  k->weights = reorder_constant(w_plain, constant_input(request, 3)->raw(), pd->weights_desc());
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

Result<std::unique_ptr<CompiledKernel>> make_qlinear_matmul_kernel(const KernelRequest& request) {
  const auto& in = request.inputs;
  if (in.size() < 8 || request.outputs.empty()) return none();
  const auto a = static_shape(in[0]);
  const auto b = static_shape(in[3]);
  const auto y = static_shape(request.outputs[0]);
  const auto a_dt = int8_type(in[0].dtype);
  const auto y_dt = int8_type(request.outputs[0].dtype);
  // A [..., M, K] folded into rows, B a constant [K, N]: the form of quantized Linear / Gemm layers.
  if (!a || !b || !y || !a_dt || !y_dt || a->size() < 2 || b->size() != 2 || !weights_supported(request, 3))
    return none();
  const int64_t K = a->back(), N = (*b)[1];
  if ((*b)[0] != K || y->back() != N) return none();
  const int64_t M = shape_numel(*a) / std::max<int64_t>(K, 1);
  if (K == 0 || shape_numel(*y) != M * N) return none();
  const auto requant = read_requant(request, N);
  if (!requant) return none();
  auto k = std::make_unique<QLinearKernel>();
  k->staging.src_md = dnnl::memory::desc({M, K}, *a_dt, tag::ab);
  k->staging.dst_md = dnnl::memory::desc({M, N}, *y_dt, tag::ab);
  const dnnl::memory::desc w_plain({K, N}, dnnl::memory::data_type::s8, tag::ab);
  const dnnl::primitive_attr attr = requant_attr(*requant, 1);
  auto pd = try_create([&] {
    dnnl::matmul::desc desc(k->staging.src_md, dnnl::memory::desc({K, N}, dnnl::memory::data_type::s8, tag::any),
                            k->staging.dst_md);
    return dnnl::matmul::primitive_desc(desc, attr, cpu_engine());
  });
  if (!pd || is_reference_impl(*pd)) return none();
  k->prim = dnnl::matmul(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  k->weights = reorder_constant(w_plain, constant_input(request, 3)->raw(), pd->weights_desc());
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
