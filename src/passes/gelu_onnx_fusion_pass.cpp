// GeluONNXFusionPass (CANN's name): the erf form of GELU as PyTorch and other exporters emit it
// (BERT's feed-forward layer), five nodes
//   x * 0.5 * (1 + erf(x / sqrt(2)))   as   Div|Mul -> Erf -> Add(1) -> Mul(x, ·) -> Mul(0.5)
//                                       or  Mul(x, 0.5) -> Mul(·, 1 + erf(...))
// becomes one Gelu node (ops/fused/fused_ops.h). ATbeMatMulElemwiseFusionPass then takes a Gelu that
// follows a MatMul into it as its activation.
#include <cmath>

#include "ops/fused/fused_ops.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

struct GeluMatch {
  int output = -1;
  std::vector<int> nodes;  // the pattern's nodes, to delete
};

std::optional<GeluMatch> match_gelu(const Graph& g, const std::vector<std::vector<int>>& consumers, int x) {
  if (is_graph_output(g, x)) return std::nullopt;
  const auto& readers = consumers[static_cast<size_t>(x)];
  if (readers.size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const int di = readers[static_cast<size_t>(k)], mi = readers[static_cast<size_t>(1 - k)];
    const Node& d = g.nodes[static_cast<size_t>(di)];
    if (d.inputs.size() != 2 || d.inputs[0] != x || d.outputs.size() != 1) continue;
    const bool scaled = (is_op(d, "Div") && near_value(scalar_constant(g, d.inputs[1]), std::sqrt(2.0))) ||
                        (is_op(d, "Mul") && near_value(scalar_constant(g, d.inputs[1]), 1.0 / std::sqrt(2.0)));
    if (!scaled) continue;
    const int ei = sole_reader_op(g, consumers, d.outputs[0], "Erf");
    if (ei < 0) continue;
    const int ai = sole_reader_op(g, consumers, g.nodes[static_cast<size_t>(ei)].outputs[0], "Add");
    if (ai < 0) continue;
    const Node& add = g.nodes[static_cast<size_t>(ai)];
    if (!near_value(scalar_constant(g, other_input(add, g.nodes[static_cast<size_t>(ei)].outputs[0])), 1.0)) continue;
    const Node& m = g.nodes[static_cast<size_t>(mi)];
    if (!is_op(m, "Mul") || m.outputs.size() != 1) continue;
    const int one_plus_erf = add.outputs[0];
    // Variant A: Mul(x, 1 + erf) -> Mul(·, 0.5).
    if (other_input(m, x) == one_plus_erf && sole_consumer(g, consumers, one_plus_erf) == mi) {
      const int fi = sole_reader_op(g, consumers, m.outputs[0], "Mul");
      if (fi >= 0 && near_value(scalar_constant(g, other_input(g.nodes[static_cast<size_t>(fi)], m.outputs[0])), 0.5))
        return GeluMatch{g.nodes[static_cast<size_t>(fi)].outputs[0], {di, ei, ai, mi, fi}};
    }
    // Variant B: Mul(x, 0.5) -> Mul(·, 1 + erf).
    if (near_value(scalar_constant(g, other_input(m, x)), 0.5)) {
      const int fi = sole_reader_op(g, consumers, m.outputs[0], "Mul");
      if (fi >= 0 && other_input(g.nodes[static_cast<size_t>(fi)], m.outputs[0]) == one_plus_erf &&
          sole_consumer(g, consumers, one_plus_erf) == fi)
        return GeluMatch{g.nodes[static_cast<size_t>(fi)].outputs[0], {di, ei, ai, mi, fi}};
    }
  }
  return std::nullopt;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& x = g.values[v];
    if (x.constant || !dtype_is_float(x.dtype)) continue;
    auto gelu = match_gelu(g, consumers, static_cast<int>(v));
    if (!gelu) continue;
    bool clash = false;
    for (int n : gelu->nodes) clash = clash || dead[static_cast<size_t>(n)];
    if (clash) continue;
    ++result.matched;
    // The first node of the pattern (the scaling of x) becomes the Gelu; the others go.
    const int keep = gelu->nodes.front();
    Node& node = g.nodes[static_cast<size_t>(keep)];
    node.op_type = kFusedGelu;
    node.domain = kFusedDomain;
    node.inputs = {static_cast<int>(v)};
    node.attrs = Attributes{};
    set_output(g, keep, 0, gelu->output);
    for (size_t k = 1; k < gelu->nodes.size(); ++k) absorb_node(g, keep, gelu->nodes[k], dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kGeluONNXFusionPass{"GeluONNXFusionPass", "graph", run};

}  // namespace openge::passes
