#include "kernels/onednn_matmul.h"

#include <algorithm>

#include "kernels/onednn_common.h"
#include "kernels/onednn_weight_placement.h"
#include "base/parallel.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

// What one matmul node becomes: descs for its operands and where each operand's data lives
// (a constant captured at compile time, or an input index read per run).
struct MatmulSpec {
  dnnl::memory::data_type dt;
  dnnl::memory::desc src_md, dst_md;
  dnnl::memory::desc w_md;        // layout of the weights' data (may be strided: transB)
  std::optional<Tensor> w_const;  // constant weights, packed once
  int w_input = 1;
  std::optional<dnnl::memory::desc> bias_md;
  std::optional<Tensor> bias_const;
  int bias_input = -1;
  int residual_input = -1;
  float sum_scale = 1.0f;
  FusedActivation act;
  WeightLayout weights = WeightLayout::kPacked;  // request.variant.weights
};

class MatmulKernel final : public OneDnnKernel {
 public:
  dnnl::matmul prim;
  dnnl::memory::desc src_md, dst_md, w_md, bias_md, scratchpad_md;
  std::optional<dnnl::memory> w_packed;
  std::shared_ptr<void> w_storage;  // owns w_packed's buffer
  std::optional<Tensor> bias_const;
  int w_input = 1, bias_input = -1, residual_input = -1;
  bool has_bias = false;

  Status run(KernelContext& ctx) const override {
    Tensor& y = ctx.output(0);
    if (residual_input >= 0) copy_residual(ctx.input(static_cast<size_t>(residual_input)), y);
    std::unique_ptr<KernelState> temp;
    PrimitiveArgs& args = state_for_run<PrimitiveArgs>(*this, ctx, temp);
    args.set(DNNL_ARG_SRC, ctx.input(0).raw());
    args.set(DNNL_ARG_DST, y.raw());
    if (!w_packed) args.set(DNNL_ARG_WEIGHTS, ctx.input(static_cast<size_t>(w_input)).raw());
    if (has_bias && !bias_const) args.set(DNNL_ARG_BIAS, ctx.input(static_cast<size_t>(bias_input)).raw());
    return args.execute(prim, ctx);
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    auto args = std::make_unique<PrimitiveArgs>(scratchpad_md);
    args->add(DNNL_ARG_SRC, src_md);
    if (w_packed)
      args->add_fixed(DNNL_ARG_WEIGHTS, *w_packed);
    else
      args->add(DNNL_ARG_WEIGHTS, w_md);
    args->add(DNNL_ARG_DST, dst_md);
    if (has_bias && bias_const)
      args->add_fixed(DNNL_ARG_BIAS, wrap(bias_md, bias_const->raw()));
    else if (has_bias)
      args->add(DNNL_ARG_BIAS, bias_md);
    return args;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
  bool reads_input_at_run_time(size_t input) const override {
    return !(w_packed && input == static_cast<size_t>(w_input));
  }
};

Result<std::unique_ptr<CompiledKernel>> build(MatmulSpec& spec) {
  auto k = std::make_unique<MatmulKernel>();
  dnnl::post_ops ops;
  if (spec.residual_input >= 0) ops.append_sum(spec.sum_scale);
  append_activation(ops, spec.act);
  const dnnl::primitive_attr attr = make_attr(ops);
  // Constant weights: let oneDNN choose the packed layout, unless a tuned node keeps them plain.
  const bool pack = spec.w_const && spec.weights == WeightLayout::kPacked;
  const dnnl::memory::desc w_prim = pack ? dnnl::memory::desc(spec.w_md.dims(), spec.dt, tag::any) : spec.w_md;
  auto pd = try_create([&] {
    auto desc = spec.bias_md ? dnnl::matmul::desc(spec.src_md, w_prim, *spec.bias_md, spec.dst_md)
                             : dnnl::matmul::desc(spec.src_md, w_prim, spec.dst_md);
    return dnnl::matmul::primitive_desc(desc, attr, cpu_engine());
  });
  if (!pd) return std::unique_ptr<CompiledKernel>();
  k->prim = dnnl::matmul(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  k->src_md = spec.src_md;
  k->dst_md = spec.dst_md;
  k->w_md = spec.w_md;
  k->w_input = spec.w_input;
  const std::string impl = pd->impl_info_str();
  if (spec.w_const && impl.rfind("gemm", 0) != 0) {
    k->w_packed = reorder_constant(spec.w_md, spec.w_const->raw(), pd->weights_desc());
  } else if (spec.w_const) {
    // The gemm path reads plain weights whose address changes its speed (onednn_weight_placement.h).
    std::string key = impl + "|" + std::to_string(num_threads()) + "|" + std::to_string(spec.residual_input >= 0) +
                      std::to_string(spec.bias_md.has_value()) + std::to_string(static_cast<int>(spec.act.kind));
    for (const auto* md : {&spec.src_md, &spec.w_md, &spec.dst_md})
      for (auto d : md->dims()) key += "," + std::to_string(d);
    PlacedWeights placed = place_weights_measured(k->prim, *pd, spec.w_md, spec.w_const->raw(), key);
    k->w_storage = std::move(placed.storage);
    k->w_packed = placed.memory;
  }
  k->has_bias = spec.bias_md.has_value();
  if (k->has_bias) k->bias_md = *spec.bias_md;
  k->bias_const = std::move(spec.bias_const);
  k->bias_input = spec.bias_input;
  k->residual_input = spec.residual_input;
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

bool present(const KernelRequest& r, size_t i) { return i < r.inputs.size() && r.inputs[i].dtype != DType::kUndefined; }

std::unique_ptr<CompiledKernel> none() { return nullptr; }

// Row-major strides of `d`.
dims plain_strides(const dims& d) {
  dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_matmul_kernel(const KernelRequest& request) {
  const Node& node = request.node;
  const bool fused = node.op_type == kFusedMatMul;
  if (request.inputs.size() < 2 || request.outputs.empty()) return none();
  const auto a = static_shape(request.inputs[0]);
  const auto b = static_shape(request.inputs[1]);
  const auto y = static_shape(request.outputs[0]);
  const auto dt = to_dnnl(request.inputs[0].dtype);
  if (!a || !b || !y || !dt || a->size() < 2 || b->size() < 2 || y->size() > 12 ||
      request.inputs[1].dtype != request.inputs[0].dtype || request.outputs[0].dtype != request.inputs[0].dtype)
    return none();
  MatmulSpec spec;
  spec.dt = *dt;
  spec.weights = request.variant.weights;
  const int64_t K = a->back(), N = b->back();
  if ((*b)[b->size() - 2] != K || y->back() != N) return none();
  const Tensor* b_const = request.inputs[1].value;
  if (b->size() == 2 && b_const) {
    // Shared 2-D weights: fold A's batch dims into M and pack the weights once.
    const int64_t M = shape_numel(*a) / K;
    spec.src_md = dnnl::memory::desc({M, K}, *dt, tag::ab);
    spec.dst_md = dnnl::memory::desc({M, N}, *dt, tag::ab);
    spec.w_md = dnnl::memory::desc({K, N}, *dt, tag::ab);
    spec.w_const = *b_const;
  } else {
    // Batched: same rank for all three, broadcast batch dims of size 1.
    const size_t r = y->size();
    auto pad = [&](const Shape& s) {
      dims d(r - s.size(), 1);
      d.insert(d.end(), s.begin(), s.end());
      return d;
    };
    const dims ad = pad(*a), bd = pad(*b), yd = to_dims(*y);
    for (size_t i = 0; i + 2 < r; ++i) {
      if (ad[i] != yd[i] && ad[i] != 1) return none();
      if (bd[i] != yd[i] && bd[i] != 1) return none();
    }
    spec.src_md = dnnl::memory::desc(ad, *dt, plain_strides(ad));
    spec.dst_md = dnnl::memory::desc(yd, *dt, plain_strides(yd));
    spec.w_md = dnnl::memory::desc(bd, *dt, plain_strides(bd));
    if (b_const) spec.w_const = *b_const;
  }
  const size_t r = static_cast<size_t>(spec.dst_md.dims().size());
  if (fused) {
    auto act = read_fused_activation(node.attrs);
    if (!act.ok()) return act.status();
    spec.act = *act;
    if (present(request, 2)) {
      const auto& bias = request.inputs[2];
      const auto bs = static_shape(bias);
      if (bias.dtype != request.inputs[0].dtype || !bs || shape_numel(*bs) != N) return none();
      dims bias_dims(r, 1);
      bias_dims.back() = N;
      spec.bias_md = dnnl::memory::desc(bias_dims, *dt, plain_strides(bias_dims));
      if (bias.value) spec.bias_const = bias.value->clone();
      spec.bias_input = 2;
    }
    if (present(request, 3)) {
      if (request.inputs[3].dtype != request.inputs[0].dtype || static_shape(request.inputs[3]) != y) return none();
      spec.residual_input = 3;
    }
  }
  return build(spec);
}

Result<std::unique_ptr<CompiledKernel>> make_gemm_kernel(const KernelRequest& request) {
  const Node& node = request.node;
  if (request.inputs.size() < 2 || request.outputs.empty()) return none();
  const auto a = static_shape(request.inputs[0]);
  const auto b = static_shape(request.inputs[1]);
  const auto y = static_shape(request.outputs[0]);
  const DType dtype = request.inputs[0].dtype;
  const auto dt = to_dnnl(dtype);
  if (!a || !b || !y || !dt || a->size() != 2 || b->size() != 2 || y->size() != 2 || request.inputs[1].dtype != dtype ||
      request.outputs[0].dtype != dtype)
    return none();
  const bool trans_a = node.attrs.get_int("transA", 0) != 0;
  const bool trans_b = node.attrs.get_int("transB", 0) != 0;
  const float alpha = node.attrs.get_float("alpha", 1.0f);
  const float beta = node.attrs.get_float("beta", 1.0f);
  const int64_t M = (*y)[0], N = (*y)[1];
  const int64_t K = trans_a ? (*a)[0] : (*a)[1];
  if ((trans_a ? (*a)[1] : (*a)[0]) != M || (trans_b ? (*b)[1] : (*b)[0]) != K || (trans_b ? (*b)[0] : (*b)[1]) != N)
    return none();
  MatmulSpec spec;
  spec.dt = *dt;
  spec.weights = request.variant.weights;
  spec.src_md = dnnl::memory::desc({M, K}, *dt, trans_a ? dims{1, M} : dims{K, 1});
  spec.dst_md = dnnl::memory::desc({M, N}, *dt, tag::ab);
  spec.w_md = dnnl::memory::desc({K, N}, *dt, trans_b ? dims{1, K} : dims{N, 1});
  const Tensor* b_const = request.inputs[1].value;
  auto scaled = [](const Tensor& t, float s) {
    Tensor out = t.clone();
    float* p = out.data<float>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] *= s;
    return out;
  };
  if (alpha != 1.0f && (!b_const || dtype != DType::kFloat32)) return none();
  if (b_const) spec.w_const = alpha != 1.0f ? scaled(*b_const, alpha) : *b_const;
  if (present(request, 2) && beta != 0.0f) {
    const auto& c = request.inputs[2];
    const auto cs = static_shape(c);
    if (!cs || c.dtype != dtype) return none();
    if (shape_numel(*cs) == N && cs->back() == N && cs->size() <= 2 && (cs->size() < 2 || (*cs)[0] == 1)) {
      // A row vector: a bias.
      if (beta != 1.0f && (!c.value || dtype != DType::kFloat32)) return none();
      spec.bias_md = dnnl::memory::desc({1, N}, *dt, tag::ab);
      if (c.value) spec.bias_const = beta != 1.0f ? scaled(*c.value, beta) : c.value->clone();
      spec.bias_input = 2;
    } else if (*cs == *y) {
      spec.residual_input = 2;  // dst = beta * C + A*B via the sum post-op
      spec.sum_scale = beta;
    } else {
      return none();
    }
  }
  return build(spec);
}

}  // namespace openge::onednn
