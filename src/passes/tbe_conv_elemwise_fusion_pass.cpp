// TbeConvElemwiseFusionPass: Conv / FusedConv followed by a one-input activation (Relu,
// LeakyRelu, Clip — MobileNet's Relu6 —, Sigmoid, Tanh) becomes a FusedConv whose activation
// runs as a oneDNN eltwise post-op. (CANN splits this over several UB fusion passes —
// TbeConv2DReluv2Pass, ConvClipByValueFusionPass …; one table-driven pass here.)
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

Result<PassResult> run(Graph& g) {
  PassResult result;
  auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t ai = 0; ai < g.nodes.size(); ++ai) {
    const Node& act_node = g.nodes[ai];
    const auto act = match_activation(g, act_node, g.opset);
    if (!act) continue;
    const int ci = fusable_producer(g, consumers, act_node.inputs[0], static_cast<int>(ai), {"Conv", "FusedConv"});
    if (ci < 0 || dead[static_cast<size_t>(ci)]) continue;
    ++result.matched;
    Node& conv = g.nodes[static_cast<size_t>(ci)];
    make_fused(conv);
    write_fused_activation(conv, *act);
    set_output(g, ci, 0, act_node.outputs[0]);
    absorb_node(g, ci, static_cast<int>(ai), dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kTbeConvElemwiseFusionPass{"TbeConvElemwiseFusionPass", "ub", run};

}  // namespace openge::passes
