#include "kernels/onednn_pool.h"

#include <string>

#include "kernels/onednn_common.h"
#include "ops/layout/in_formats.h"
#include "ops/nn/nn_window.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;

using PoolKernel = SrcDstKernel<dnnl::pooling_v2_forward, DNNL_ARG_SRC, DNNL_ARG_DST>;

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_pool_kernel(const KernelRequest& request) {
  const Node& node = request.node;
  const ActivationFormat format = node_data_format(node);
  const std::string& op = node.op_type;
  if (request.inputs.empty() || request.outputs.size() != 1) return std::unique_ptr<CompiledKernel>();
  const auto xs = static_shape(request.inputs[0]);
  const auto ys = static_shape(request.outputs[0]);
  // Int8 activations (a QDQ model's MaxPool on its quantized tensor, RequantFusionPass): max
  // pooling only, which compares values and so is exact in any type.
  const bool max_pool = op == "MaxPool" || op == "GlobalMaxPool";
  const DType in_type = request.inputs[0].dtype;
  const auto dt = max_pool && in_type == DType::kUInt8  ? std::optional(dnnl::memory::data_type::u8)
                  : max_pool && in_type == DType::kInt8 ? std::optional(dnnl::memory::data_type::s8)
                                                        : to_dnnl(in_type);
  if (!xs || !ys || !dt || request.outputs[0].dtype != request.inputs[0].dtype)
    return std::unique_ptr<CompiledKernel>();
  // Logical NCHW dims; the format only changes the memory tag.
  const auto x_nchw = nchw_shape(*xs, format);
  const auto y_nchw = nchw_shape(*ys, format);
  if (!x_nchw || !y_nchw) return std::unique_ptr<CompiledKernel>();
  const Shape &x = *x_nchw, &y = *y_nchw;
  const bool global = op == "GlobalAveragePool" || op == "GlobalMaxPool";
  const bool is_max = op == "MaxPool" || op == "GlobalMaxPool";
  std::vector<int64_t> kernel, strides{1, 1}, dilations{1, 1}, pad_l{0, 0}, pad_r{0, 0};
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  if (global) {
    kernel = {x[2], x[3]};
    if (y[2] != 1 || y[3] != 1) return std::unique_ptr<CompiledKernel>();
    if (!is_max) alg = dnnl::algorithm::pooling_avg_exclude_padding;
  } else {
    if (node.attrs.get_int("storage_order", 0) != 0) return std::unique_ptr<CompiledKernel>();
    auto params = read_window_params(node.attrs, 2, nullptr, true);
    if (!params.ok()) return std::unique_ptr<CompiledKernel>();
    auto geom = resolve_window(*params, {x[2], x[3]});
    if (!geom.ok() || geom->output != std::vector<int64_t>{y[2], y[3]}) return std::unique_ptr<CompiledKernel>();
    kernel = geom->kernel;
    strides = geom->strides;
    dilations = geom->dilations;
    pad_l = geom->pad_begin;
    bool pads_as_given = true;
    for (size_t i = 0; i < 2; ++i) {
      // oneDNN sizes the output as floor((in + pl + pr - ek) / s) + 1. ONNX's pads fit that
      // unless ceil_mode added a window; then the end pad grows to cover it (padding never
      // contributes to max or exclude-pad averages).
      const int64_t ek = geom->effective_kernel(i);
      pad_r[i] = geom->pad_end[i];
      if ((geom->input[i] + pad_l[i] + pad_r[i] - ek) / strides[i] + 1 != geom->output[i]) {
        pad_r[i] = (geom->output[i] - 1) * strides[i] + ek - geom->input[i] - pad_l[i];
        pads_as_given = false;
      }
      if (pad_r[i] < 0 || (geom->input[i] + pad_l[i] + pad_r[i] - ek) / strides[i] + 1 != geom->output[i])
        return std::unique_ptr<CompiledKernel>();
    }
    if (!is_max) {
      const bool include_pad = node.attrs.get_int("count_include_pad", 0) != 0;
      if (include_pad && !pads_as_given) return std::unique_ptr<CompiledKernel>();
      alg = include_pad ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
    }
  }
  std::vector<int64_t> dil_dnnl{dilations[0] - 1, dilations[1] - 1};
  auto k = std::make_unique<PoolKernel>();
  const tag t = activation_tag(format);
  k->src_md = dnnl::memory::desc(to_dims(x), *dt, t);
  k->dst_md = dnnl::memory::desc(to_dims(y), *dt, t);
  auto pd = try_create([&] {
    dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, k->src_md, k->dst_md, to_dims(strides),
                                        to_dims(kernel), to_dims(dil_dnnl), to_dims(pad_l), to_dims(pad_r));
    return dnnl::pooling_v2_forward::primitive_desc(desc, make_attr(dnnl::post_ops()), cpu_engine());
  });
  if (!pd) return std::unique_ptr<CompiledKernel>();
  k->prim = dnnl::pooling_v2_forward(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
