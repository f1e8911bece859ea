// BatchNormBnInferFusionPass (CANN's name; CANN turns an inference BatchNorm into its BNInference
// op): a BatchNormalization in inference form that ConvBatchnormFusionPass could not fold (its
// input is not a convolution's: DenseNet's BN after each Concat, pre-activation blocks) becomes
// the per-channel affine map it computes, Mul(x, scale') -> Add(shift'), with N x C x 1 x 1 ...
// constants. As plain elementwise ops they run in whichever layout their neighbours use
// (ChannelsLastLayoutPass keeps them in NHWC between a Concat and a convolution), and
// TbeEltwiseFusionPass joins them with the Relu after them into one vector kernel.
#include <string>

#include "ir/dispatch.h"
#include "passes/batchnorm_affine.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

// A constant of shape 1 x C x 1 x ... (rank `rank`) holding `v`, in dtype `dtype`.
Tensor per_channel_constant(const std::vector<double>& v, DType dtype, size_t rank) {
  Shape shape(rank, 1);
  shape[1] = static_cast<int64_t>(v.size());
  Tensor t(dtype, shape);
  visit_float_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using F = float_or_self_t<T>;
    for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = T(static_cast<F>(v[i]));
  });
  return t;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  const size_t original_nodes = g.nodes.size();
  for (size_t bi = 0; bi < original_nodes; ++bi) {
    if (!is_op(g.nodes[bi], "BatchNormalization") || g.nodes[bi].inputs.empty() || g.nodes[bi].inputs[0] < 0) continue;
    const Value x = g.values[static_cast<size_t>(g.nodes[bi].inputs[0])];  // a copy: values grow below
    if (!x.shape || x.shape->size() < 2 || (*x.shape)[1] <= 0 || !dtype_is_float(x.dtype)) continue;
    const auto affine = inference_batchnorm_affine(g, g.nodes[bi], (*x.shape)[1]);
    if (!affine) continue;
    ++result.matched;
    const std::string base = g.nodes[bi].name.empty() ? "bn" : g.nodes[bi].name;
    const size_t rank = x.shape->size();
    const int scale = add_constant(g, base + "_bninfer_scale", per_channel_constant(affine->scale, x.dtype, rank));
    const int shift = add_constant(g, base + "_bninfer_shift", per_channel_constant(affine->shift, x.dtype, rank));
    const int scaled = add_intermediate(g, base + "_bninfer_scaled", x.dtype, *x.shape);
    const int y = g.nodes[bi].outputs[0];
    Node add;
    add.name = base + "_bninfer_add";
    add.op_type = "Add";
    add.inputs = {scaled, shift};
    add.outputs = {y};
    add.fused_from = {g.nodes[bi].name};
    Node& mul = g.nodes[bi];
    mul.fused_from = {mul.name};
    mul.name = base + "_bninfer_mul";
    mul.op_type = "Mul";
    mul.domain.clear();
    mul.attrs = Attributes{};
    mul.inputs = {mul.inputs[0], scale};
    mul.outputs = {scaled};
    set_output(g, static_cast<int>(bi), 0, scaled);
    g.nodes.push_back(std::move(add));
    set_output(g, static_cast<int>(g.nodes.size() - 1), 0, y);
    ++result.applied;
  }
  return result;
}

}  // namespace

const Pass kBatchNormBnInferFusionPass{"BatchNormBnInferFusionPass", "graph", run};

}  // namespace openge::passes
