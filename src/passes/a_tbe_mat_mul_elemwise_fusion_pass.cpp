// ATbeMatMulElemwiseFusionPass (CANN's UB fusion of MatMul with an element-wise op):
// MatMul / FusedMatMul followed by an activation becomes a FusedMatMul with that activation
// as a oneDNN post-op. Besides the one-node activations (Relu, LeakyRelu, Clip, Sigmoid, Tanh)
// it recognises the erf form of GELU that exporters emit for BERT's feed-forward layer:
//   x * 0.5 * (1 + erf(x / sqrt(2)))   as   Div|Mul -> Erf -> Add(1) -> Mul(x, ·) -> Mul(0.5)
//                                       or  Mul(x, 0.5) -> Mul(·, 1 + erf(...))
#include <cmath>

#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

bool near(std::optional<double> v, double want) { return v && std::abs(*v - want) <= 1e-4 * std::abs(want); }

// The other input of a two-input node, given one; -1 if `v` is not an input.
int other_input(const Node& n, int v) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return -1;
}

int only_reader(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, const char* op) {
  const int r = sole_consumer(g, consumers, v);
  return r >= 0 && is_op(g.nodes[static_cast<size_t>(r)], op) && g.nodes[static_cast<size_t>(r)].domain.empty() ? r
                                                                                                               : -1;
}

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
    const bool scaled = (is_op(d, "Div") && near(scalar_constant(g, d.inputs[1]), std::sqrt(2.0))) ||
                        (is_op(d, "Mul") && near(scalar_constant(g, d.inputs[1]), 1.0 / std::sqrt(2.0)));
    if (!scaled) continue;
    const int ei = only_reader(g, consumers, d.outputs[0], "Erf");
    if (ei < 0) continue;
    const int ai = only_reader(g, consumers, g.nodes[static_cast<size_t>(ei)].outputs[0], "Add");
    if (ai < 0) continue;
    const Node& add = g.nodes[static_cast<size_t>(ai)];
    if (!near(scalar_constant(g, other_input(add, g.nodes[static_cast<size_t>(ei)].outputs[0])), 1.0)) continue;
    const Node& m = g.nodes[static_cast<size_t>(mi)];
    if (!is_op(m, "Mul") || m.outputs.size() != 1) continue;
    const int one_plus_erf = add.outputs[0];
    // Variant A: Mul(x, 1 + erf) -> Mul(·, 0.5).
    if (other_input(m, x) == one_plus_erf && sole_consumer(g, consumers, one_plus_erf) == mi) {
      const int fi = only_reader(g, consumers, m.outputs[0], "Mul");
      if (fi >= 0 && near(scalar_constant(g, other_input(g.nodes[static_cast<size_t>(fi)], m.outputs[0])), 0.5))
        return GeluMatch{g.nodes[static_cast<size_t>(fi)].outputs[0], {di, ei, ai, mi, fi}};
    }
    // Variant B: Mul(x, 0.5) -> Mul(·, 1 + erf).
    if (near(scalar_constant(g, other_input(m, x)), 0.5)) {
      const int fi = only_reader(g, consumers, m.outputs[0], "Mul");
      if (fi >= 0 && other_input(g.nodes[static_cast<size_t>(fi)], m.outputs[0]) == one_plus_erf &&
          sole_consumer(g, consumers, one_plus_erf) == fi)
        return GeluMatch{g.nodes[static_cast<size_t>(fi)].outputs[0], {di, ei, ai, mi, fi}};
    }
  }
  return std::nullopt;
}

Result<PassResult> run(Graph& g) {
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
    std::optional<FusedActivation> act;
    int out = -1;
    std::vector<int> remove;
    if (reader >= 0 && !dead[static_cast<size_t>(reader)]) {
      act = match_activation(g, g.nodes[static_cast<size_t>(reader)], g.opset);
      if (act) {
        out = g.nodes[static_cast<size_t>(reader)].outputs[0];
        remove = {reader};
      }
    }
    if (!act) {
      auto gelu = match_gelu(g, consumers, x);
      if (gelu) {
        act = FusedActivation{Activation::kGelu, 0, 0};
        out = gelu->output;
        remove = gelu->nodes;
      }
    }
    if (!act) continue;
    bool clash = false;
    for (int r : remove) clash = clash || dead[static_cast<size_t>(r)];
    if (clash) continue;
    ++result.matched;
    Node& node = g.nodes[mi];
    make_fused(node);
    write_fused_activation(node, *act);
    set_output(g, static_cast<int>(mi), 0, out);
    for (int r : remove) absorb_node(g, static_cast<int>(mi), r, dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kATbeMatMulElemwiseFusionPass{"ATbeMatMulElemwiseFusionPass", "ub", run};

}  // namespace openge::passes
