// ATbeMatMulElemwiseFusionPass (CANN's UB fusion of MatMul with an element-wise op):
// MatMul / FusedMatMul followed by an activation becomes a FusedMatMul with that activation
// as a oneDNN post-op: Relu, LeakyRelu, Clip, Sigmoid, Tanh, and the Gelu node that
// GeluONNXFusionPass makes of the five-node erf form (BERT's feed-forward layer).
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  const size_t count = g.nodes.size();
  for (size_t mi = 0; mi < count; ++mi) {
    const Node& mm = g.nodes[mi];
    if (dead[mi] || !(is_op(mm, "MatMul") || is_op(mm, "FusedMatMul")) || has_activation(mm) || mm.outputs.empty())
      continue;
    const int x = mm.outputs[0];
    if (x < 0) continue;
    const int reader = sole_consumer(g, consumers, x);
    if (reader < 0 || dead[static_cast<size_t>(reader)]) continue;
    const auto act = match_activation(g, g.nodes[static_cast<size_t>(reader)], g.opset);
    if (!act) continue;
    ++result.matched;
    Node& node = g.nodes[mi];
    make_fused(node);
    write_fused_activation(node, *act);
    set_output(g, static_cast<int>(mi), 0, g.nodes[static_cast<size_t>(reader)].outputs[0]);
    absorb_node(g, static_cast<int>(mi), reader, dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kATbeMatMulElemwiseFusionPass{"ATbeMatMulElemwiseFusionPass", "ub", run};

}  // namespace openge::passes
