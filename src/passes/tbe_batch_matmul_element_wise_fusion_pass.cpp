// TbeBatchMatmulElementWiseFusionPass (CANN's UB fusion of a (batch) matmul with an Add):
// MatMul / FusedMatMul -> Add(mm_out, other) with `other` of the output's exact shape becomes
// FusedMatMul(A, B, [bias], other): the residual connection of transformer blocks, run as
// oneDNN's sum post-op.
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
      const int mi = fusable_producer(g, consumers, x, static_cast<int>(ai), {"MatMul", "FusedMatMul"});
      if (mi < 0 || dead[static_cast<size_t>(mi)] || has_residual(g.nodes[static_cast<size_t>(mi)]) || x == other)
        continue;
      ++result.matched;
      if (!fuse_residual_add(g, mi, x, other, static_cast<int>(ai))) continue;
      absorb_node(g, mi, static_cast<int>(ai), dead);
      ++result.applied;
      break;
    }
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kTbeBatchMatmulElementWiseFusionPass{"TbeBatchMatmulElementWiseFusionPass", "ub", run};

}  // namespace openge::passes
