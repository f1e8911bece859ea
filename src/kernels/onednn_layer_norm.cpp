#include "kernels/onednn_layer_norm.h"

#include "kernels/onednn_common.h"
#include "ops/op_context.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;

class LayerNormKernel final : public OneDnnKernel {
 public:
  dnnl::layer_normalization_forward prim;
  dnnl::memory::desc data_md, param_md, scratchpad_md;
  std::optional<Tensor> params[2];  // constant Scale and B, kept by the kernel
  bool has[2] = {false, false};

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    PrimitiveArgs& args = state_for_run<PrimitiveArgs>(*this, ctx, temp);
    args.set(DNNL_ARG_SRC, ctx.input(0).raw());
    args.set(DNNL_ARG_DST, ctx.output(0).raw());
    for (size_t k = 0; k < 2; ++k)
      if (has[k] && !params[k]) args.set(kParamArgs[k], ctx.input(k + 1).raw());
    return args.execute(prim, ctx);
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    auto args = std::make_unique<PrimitiveArgs>(scratchpad_md);
    args->add(DNNL_ARG_SRC, data_md);
    args->add(DNNL_ARG_DST, data_md);
    for (size_t k = 0; k < 2; ++k) {
      if (!has[k]) continue;
      if (params[k])
        args->add_fixed(kParamArgs[k], dnnl::memory(param_md, cpu_engine(), const_cast<void*>(params[k]->raw())));
      else
        args->add(kParamArgs[k], param_md);
    }
    return args;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
  bool reads_input_at_run_time(size_t input) const override { return input == 0 || !params[input - 1]; }

 private:
  static constexpr int kParamArgs[2] = {DNNL_ARG_SCALE, DNNL_ARG_SHIFT};
};

std::unique_ptr<CompiledKernel> none() { return nullptr; }

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_layer_norm_kernel(const KernelRequest& request) {
  const Node& node = request.node;
  const auto& in = request.inputs;
  if (high_precision_impl(node) || in.empty() || in[0].dtype != DType::kFloat32) return none();
  // Only Y: oneDNN's statistics are the variance, not ONNX's InvStdDev.
  for (size_t o = 1; o < request.outputs.size(); ++o)
    if (request.outputs[o].dtype != DType::kUndefined) return none();
  if (request.outputs.empty() || request.outputs[0].dtype != DType::kFloat32) return none();
  if (node.attrs.get_int("stash_type", 1) != 1) return none();
  const auto x = static_shape(in[0]);
  if (!x || x->empty()) return none();
  const int64_t rank = static_cast<int64_t>(x->size());
  int64_t axis = node.attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return none();
  const Shape normalized(x->begin() + axis, x->end());
  int64_t inner = 1, outer = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= (*x)[static_cast<size_t>(d)];
  if (inner == 0 || outer == 0) return none();

  auto k = std::make_unique<LayerNormKernel>();
  // Scale and B of the normalized shape exactly (a broadcast one stays on AI CPU).
  for (size_t p = 0; p < 2; ++p) {
    const size_t i = p + 1;
    if (i >= in.size() || in[i].dtype == DType::kUndefined) continue;
    const auto s = static_shape(in[i]);
    if (in[i].dtype != DType::kFloat32 || !s || *s != normalized) return none();
    k->has[p] = true;
    if (in[i].value) k->params[p] = in[i].value->clone();
  }
  // The rows as a 2-D tensor: oneDNN normalizes over its last dim.
  k->data_md = dnnl::memory::desc({outer, inner}, dnnl::memory::data_type::f32, tag::ab);
  k->param_md = dnnl::memory::desc({inner}, dnnl::memory::data_type::f32, tag::a);
  auto flags = dnnl::normalization_flags::none;
  if (k->has[0]) flags |= dnnl::normalization_flags::use_scale;
  if (k->has[1]) flags |= dnnl::normalization_flags::use_shift;
  const float epsilon = node.attrs.get_float("epsilon", 1e-5f);
  auto pd = try_create([&] {
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, k->data_md, epsilon, flags);
    return dnnl::layer_normalization_forward::primitive_desc(desc, make_attr(dnnl::post_ops()), cpu_engine());
  });
  if (!pd) return none();
  k->prim = dnnl::layer_normalization_forward(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
