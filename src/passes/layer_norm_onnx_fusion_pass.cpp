// LayerNormONNXFusionPass (CANN's name): layer normalization as PyTorch exports it below
// opset 17 (which has no LayerNormalization op), over the last K axes of x:
//   m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Pow(d, 2)); n = Div(d, Sqrt(Add(v, eps)))
//   y = Add(Mul(n, gamma), beta)        gamma, beta constants; each operand order; both optional
// becomes one LayerNormalization(x, gamma, beta) with axis = rank - K and epsilon = eps, a node
// the engine runs at any opset. Values keep their dtype and shape: gamma and beta must broadcast
// into the normalized dims without growing y.
#include <algorithm>

#include "ir/dispatch.h"
#include "passes/norm_pattern_util.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

struct LayerNormMatch {
  int x = -1, output = -1, scale = -1, bias = -1;
  int64_t axis = 0;
  double epsilon = 0;
  std::vector<int> nodes;  // the pattern's nodes, the first ReduceMean first
};

std::optional<LayerNormMatch> match(Graph& g, const std::vector<std::vector<int>>& consumers, int mean_node) {
  const Node& m1 = g.nodes[static_cast<size_t>(mean_node)];
  if (m1.inputs.empty() || m1.outputs.size() != 1) return std::nullopt;
  LayerNormMatch r;
  r.x = m1.inputs[0];
  // Copies: adding constants below may move the values.
  const Value& xv = g.values[static_cast<size_t>(r.x)];
  if (!xv.shape || xv.shape->empty() || !dtype_is_float(xv.dtype) || xv.constant) return std::nullopt;
  const DType dtype = xv.dtype;
  const Shape x = *xv.shape;
  const auto axis = trailing_axis(m1, static_cast<int64_t>(x.size()));
  if (!axis) return std::nullopt;
  r.axis = *axis;
  const int mean = m1.outputs[0];
  const int sub = sole_reader_op(g, consumers, mean, "Sub");
  if (sub < 0 || g.nodes[static_cast<size_t>(sub)].inputs != std::vector<int>{r.x, mean}) return std::nullopt;
  const int d = g.nodes[static_cast<size_t>(sub)].outputs[0];
  // d feeds the Pow and the Div, nothing else.
  const auto& d_readers = consumers[static_cast<size_t>(d)];
  if (is_graph_output(g, d) || d_readers.size() != 2) return std::nullopt;
  int pow = -1, div = -1;
  for (int n : d_readers) {
    if (is_op(g.nodes[static_cast<size_t>(n)], "Pow")) pow = n;
    if (is_op(g.nodes[static_cast<size_t>(n)], "Div")) div = n;
  }
  if (pow < 0 || div < 0) return std::nullopt;
  const Node& p = g.nodes[static_cast<size_t>(pow)];
  if (p.inputs.size() != 2 || p.inputs[0] != d || !near_value(scalar_constant(g, p.inputs[1]), 2.0))
    return std::nullopt;
  const int m2 = sole_reader_op(g, consumers, p.outputs[0], "ReduceMean");
  if (m2 < 0 || trailing_axis(g.nodes[static_cast<size_t>(m2)], static_cast<int64_t>(x.size())) != axis)
    return std::nullopt;
  const int var = g.nodes[static_cast<size_t>(m2)].outputs[0];
  const int add_eps = sole_reader_op(g, consumers, var, "Add");
  if (add_eps < 0) return std::nullopt;
  const auto eps = scalar_constant(g, other_input(g.nodes[static_cast<size_t>(add_eps)], var));
  if (!eps || *eps < 0) return std::nullopt;
  r.epsilon = *eps;
  const int sqrt = sole_reader_op(g, consumers, g.nodes[static_cast<size_t>(add_eps)].outputs[0], "Sqrt");
  if (sqrt < 0) return std::nullopt;
  const int root = g.nodes[static_cast<size_t>(sqrt)].outputs[0];
  if (sole_reader_op(g, consumers, root, "Div") != div ||
      g.nodes[static_cast<size_t>(div)].inputs != std::vector<int>{d, root})
    return std::nullopt;
  r.nodes = {mean_node, sub, pow, m2, add_eps, sqrt, div};
  r.output = g.nodes[static_cast<size_t>(div)].outputs[0];
  // The affine part, when there: Mul by gamma, then Add of beta.
  if (const int mul = sole_reader_op(g, consumers, r.output, "Mul"); mul >= 0) {
    r.scale = affine_input(g, other_input(g.nodes[static_cast<size_t>(mul)], r.output), dtype, x, r.axis);
    if (r.scale >= 0) {
      r.nodes.push_back(mul);
      r.output = g.nodes[static_cast<size_t>(mul)].outputs[0];
    }
  }
  if (const int add = sole_reader_op(g, consumers, r.output, "Add"); add >= 0 && r.scale >= 0) {
    r.bias = affine_input(g, other_input(g.nodes[static_cast<size_t>(add)], r.output), dtype, x, r.axis);
    if (r.bias >= 0) {
      r.nodes.push_back(add);
      r.output = g.nodes[static_cast<size_t>(add)].outputs[0];
    }
  }
  return r;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < dead.size(); ++i) {
    if (dead[i] || !is_op(g.nodes[i], "ReduceMean")) continue;
    auto m = match(g, consumers, static_cast<int>(i));
    if (!m) continue;
    bool clash = false;
    for (int n : m->nodes) clash = clash || dead[static_cast<size_t>(n)];
    if (clash) continue;
    ++result.matched;
    const DType dtype = g.values[static_cast<size_t>(m->x)].dtype;
    if (m->scale < 0) m->scale = add_constant(g, g.nodes[i].name + "_scale_one", one_of(dtype));
    Node& ln = g.nodes[i];
    ln.op_type = "LayerNormalization";
    ln.inputs = {m->x, m->scale};
    if (m->bias >= 0) ln.inputs.push_back(m->bias);
    ln.attrs = Attributes{};
    Attribute axis;
    axis.kind = Attribute::Kind::kInt;
    axis.i = m->axis;
    ln.attrs.set("axis", axis);
    Attribute eps;
    eps.kind = Attribute::Kind::kFloat;
    eps.f = static_cast<float>(m->epsilon);
    ln.attrs.set("epsilon", eps);
    set_output(g, static_cast<int>(i), 0, m->output);
    for (size_t k = 1; k < m->nodes.size(); ++k) absorb_node(g, static_cast<int>(i), m->nodes[k], dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kLayerNormONNXFusionPass{"LayerNormONNXFusionPass", "graph", run};

}  // namespace openge::passes
