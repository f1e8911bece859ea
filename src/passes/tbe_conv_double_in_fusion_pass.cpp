// TbeConvDoubleInFusionPass (CANN's UB fusion of a convolution with an element-wise op that
// has a second input): Conv -> Add(conv_out, other) with `other` of the output's exact shape
// becomes FusedConv(X, W, B, other), which oneDNN runs as a sum post-op. The residual
// connection of ResNet / MobileNetV2 blocks.
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
    const Node& add = g.nodes[ai];
    if (!is_op(add, "Add") || add.domain == "openge" || add.inputs.size() != 2 || add.outputs.empty()) continue;
    for (int side = 0; side < 2; ++side) {
      const int x = add.inputs[static_cast<size_t>(side)];
      const int other = add.inputs[static_cast<size_t>(1 - side)];
      const Node* conv = producer(g, x);
      if (!conv || !(is_op(*conv, "Conv") || is_op(*conv, "FusedConv"))) continue;
      if (has_activation(*conv) || has_residual(*conv) || conv->attrs.get_int("channels_last", 0) != 0) continue;
      if (sole_consumer(g, consumers, x) != static_cast<int>(ai) || x == other) continue;
      const int ci = g.values[static_cast<size_t>(x)].producer;
      if (dead[static_cast<size_t>(ci)]) continue;
      ++result.matched;
      if (!fuse_residual_add(g, ci, x, other, static_cast<int>(ai))) continue;
      absorb_node(g, ci, static_cast<int>(ai), dead);
      ++result.applied;
      break;
    }
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kTbeConvDoubleInFusionPass{"TbeConvDoubleInFusionPass", "ub", run};

}  // namespace openge::passes
