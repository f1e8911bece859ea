// ConvBatchnormFusionPass (CANN's name): Conv -> BatchNormalization (inference form, all
// statistics constant, conv weights and bias constant) becomes one Conv with folded weights:
//   s = scale / sqrt(var + eps);  W'[m] = W[m] * s[m];  B'[m] = B[m] * s[m] + beta[m] - mean[m] * s[m]
// Folding happens in double and rounds once to the weights' dtype.
#include <algorithm>
#include <cmath>

#include "ir/dispatch.h"
#include "passes/batchnorm_affine.h"
#include "passes/pass.h"
#include "passes/pass_util.h"
#include "passes/pass_registry.h"

namespace openge::passes {
namespace {

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t bi = 0; bi < g.nodes.size(); ++bi) {
    const Node& bn = g.nodes[bi];
    if (!is_op(bn, "BatchNormalization") || bn.inputs.empty()) continue;
    const int x = bn.inputs[0];
    const Node* conv_ptr = producer(g, x);
    if (!conv_ptr || !is_op(*conv_ptr, "Conv") || conv_ptr->domain == "openge") continue;
    if (sole_consumer(g, consumers, x) != static_cast<int>(bi)) continue;
    const int ci = g.values[static_cast<size_t>(x)].producer;
    if (dead[static_cast<size_t>(ci)]) continue;
    const Tensor* w = constant_of(g, conv_ptr->inputs[1]);
    if (!w || w->rank() < 3 || !dtype_is_float(w->dtype())) continue;
    const int64_t m = w->dim(0);
    const auto bn_affine = inference_batchnorm_affine(g, bn, m);
    if (!bn_affine) continue;
    ++result.matched;
    const bool has_bias = conv_ptr->inputs.size() > 2 && conv_ptr->inputs[2] >= 0;
    const Tensor* b = has_bias ? constant_of(g, conv_ptr->inputs[2]) : nullptr;
    if ((has_bias && !b) || (b && b->numel() != m)) continue;
    const std::vector<double>& s = bn_affine->scale;
    std::vector<double> shift = bn_affine->shift;
    for (int64_t i = 0; i < m; ++i)
      if (b) shift[static_cast<size_t>(i)] += b->scalar_as_double(i) * s[static_cast<size_t>(i)];
    Tensor w2(w->dtype(), w->shape());
    Tensor b2(w->dtype(), {m});
    const int64_t per_out = w->numel() / m;
    visit_float_dtype(w->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using F = float_or_self_t<T>;
      const T* src = w->data<T>();
      T* dst = w2.data<T>();
      for (int64_t i = 0; i < w->numel(); ++i)
        dst[i] = T(static_cast<F>(static_cast<double>(static_cast<F>(src[i])) * s[static_cast<size_t>(i / per_out)]));
      for (int64_t i = 0; i < m; ++i) b2.data<T>()[i] = T(static_cast<F>(shift[static_cast<size_t>(i)]));
    });
    Node& conv = g.nodes[static_cast<size_t>(ci)];
    const std::string base = conv.name.empty() ? "conv" : conv.name;
    conv.inputs[1] = add_constant(g, base + "_bn_folded_weight", std::move(w2));
    if (conv.inputs.size() < 3) conv.inputs.resize(3, -1);
    conv.inputs[2] = add_constant(g, base + "_bn_folded_bias", std::move(b2));
    const int y = bn.outputs[0];
    set_output(g, ci, 0, y);
    absorb_node(g, ci, static_cast<int>(bi), dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kConvBatchnormFusionPass{"ConvBatchnormFusionPass", "graph", run};

}  // namespace openge::passes
