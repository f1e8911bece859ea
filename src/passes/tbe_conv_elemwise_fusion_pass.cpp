// TbeConvElemwiseFusionPass: Conv / FusedConv followed by an activation becomes a FusedConv whose
// activation runs as a oneDNN eltwise post-op. The activation is one node (Relu, LeakyRelu,
// Clip — MobileNet's Relu6 —, Sigmoid, Tanh, HardSigmoid, HardSwish) or a self-gated pair
// Mul(y, Sigmoid(y)) (Swish/SiLU of EfficientNet) or Mul(y, HardSigmoid(y)) (the HardSwish of
// MobileNetV3 as exporters write it), whose Mul and gate both read the convolution's output.
// (CANN splits this over several UB fusion passes — TbeConv2DReluv2Pass,
// ConvClipByValueFusionPass …; one table-driven pass here.) A convolution whose weights are
// computed at run time (a training graph's) is left alone: oneDNN's fused convolution packs
// constant weights, and the run-time-weight kernel has no post-ops.
#include <algorithm>

#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

// The convolution producing `y` when it may take an activation and its only readers are the
// nodes `readers` (the activation's nodes); -1 otherwise.
int fusable_conv(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<bool>& dead, int y,
                 std::initializer_list<int> readers) {
  const Node* p = producer(g, y);
  if (!p || is_graph_output(g, y) || !(is_op(*p, "Conv") || is_op(*p, "FusedConv")) || has_activation(*p) ||
      p->attrs.get_int("channels_last", 0) != 0 || conv_weights_at_run_time(g, *p))
    return -1;
  const auto& actual = consumers[static_cast<size_t>(y)];
  if (actual.size() != readers.size()) return -1;
  for (int r : readers)
    if (std::count(actual.begin(), actual.end(), r) != 1) return -1;
  const int ci = g.values[static_cast<size_t>(y)].producer;
  return dead[static_cast<size_t>(ci)] ? -1 : ci;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t ai = 0; ai < g.nodes.size(); ++ai) {
    if (dead[ai]) continue;
    const Node& last = g.nodes[ai];
    std::optional<FusedActivation> act;
    int ci = -1, gate = -1;
    if (const auto gated = match_gated_activation(g, consumers, static_cast<int>(ai))) {
      gate = gated->gate_node;
      act = gated->act;
      ci = fusable_conv(g, consumers, dead, gated->x, {gate, static_cast<int>(ai)});
    } else if ((act = match_activation(g, last, g.opset))) {
      ci = fusable_conv(g, consumers, dead, last.inputs[0], {static_cast<int>(ai)});
    }
    if (ci < 0) continue;
    ++result.matched;
    Node& conv = g.nodes[static_cast<size_t>(ci)];
    make_fused(conv);
    write_fused_activation(conv, *act);
    set_output(g, ci, 0, last.outputs[0]);
    if (gate >= 0) absorb_node(g, ci, gate, dead);
    absorb_node(g, ci, static_cast<int>(ai), dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kTbeConvElemwiseFusionPass{"TbeConvElemwiseFusionPass", "ub", run};

}  // namespace openge::passes
