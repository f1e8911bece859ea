// SoftmaxFusionPass (CANN's name): softmax written out with elementary ops, as TensorFlow and
// hand-written PyTorch exports have it, over one axis a (keepdims reductions):
//   y = Div(e, ReduceSum(e, a))   with e = Exp(x)                       (3 nodes)
//   y = Div(e, ReduceSum(e, a))   with e = Exp(Sub(x, ReduceMax(x, a)))  (5 nodes, the stable form)
// becomes one Softmax(x, axis = a). Below opset 13 Softmax flattens from its axis, so there the
// pass fuses only a softmax over the last axis.
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

const Node& node_at(const Graph& g, int n) { return g.nodes[static_cast<size_t>(n)]; }

// The one axis (non-negative) a default-domain keepdims `op` reduces over, from its `axes`
// attribute or its constant axes input; nullopt otherwise.
std::optional<int64_t> single_axis(const Graph& g, const Node& n, const char* op, int64_t rank) {
  if (!is_op(n, op) || !n.domain.empty() || n.attrs.get_int("keepdims", 1) == 0 || n.inputs.empty())
    return std::nullopt;
  std::vector<int64_t> axes = n.attrs.get_ints("axes");
  if (n.inputs.size() == 2) {
    const Tensor* t = constant_of(g, n.inputs[1]);
    if (!t || !axes.empty() || t->numel() != 1) return std::nullopt;
    axes = {static_cast<int64_t>(t->scalar_as_double(0))};
  } else if (n.inputs.size() != 1) {
    return std::nullopt;
  }
  if (axes.size() != 1) return std::nullopt;
  const int64_t a = axes[0] < 0 ? axes[0] + rank : axes[0];
  if (a < 0 || a >= rank) return std::nullopt;
  return a;
}

struct SoftmaxMatch {
  int x = -1, output = -1;
  int64_t axis = 0;
  std::vector<int> nodes;  // the Exp first
};

std::optional<SoftmaxMatch> match(const Graph& g, const std::vector<std::vector<int>>& consumers, int exp_node) {
  const Node& ex = node_at(g, exp_node);
  if (ex.inputs.size() != 1 || ex.outputs.size() != 1) return std::nullopt;
  SoftmaxMatch r;
  r.x = ex.inputs[0];
  const Value& in = g.values[static_cast<size_t>(r.x)];
  if (!in.shape || in.shape->empty() || !dtype_is_float(in.dtype)) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(in.shape->size());
  // e feeds the ReduceSum and the Div, nothing else.
  const int e = ex.outputs[0];
  const auto& readers = consumers[static_cast<size_t>(e)];
  if (is_graph_output(g, e) || readers.size() != 2) return std::nullopt;
  int sum = readers[0], div = readers[1];
  if (!is_op(node_at(g, sum), "ReduceSum")) std::swap(sum, div);
  const auto axis = single_axis(g, node_at(g, sum), "ReduceSum", rank);
  if (!axis || node_at(g, sum).inputs[0] != e || !is_op(node_at(g, div), "Div") || !node_at(g, div).domain.empty() ||
      node_at(g, div).inputs != std::vector<int>{e, node_at(g, sum).outputs[0]} ||
      sole_consumer(g, consumers, node_at(g, sum).outputs[0]) != div)
    return std::nullopt;
  if (g.opset < 13 && *axis != rank - 1) return std::nullopt;
  r.axis = *axis;
  r.output = node_at(g, div).outputs[0];
  r.nodes = {exp_node, sum, div};
  // The stable form: x - ReduceMax(x) before the Exp.
  const int sub = in.producer;
  if (sub >= 0 && is_op(node_at(g, sub), "Sub") && node_at(g, sub).domain.empty() &&
      node_at(g, sub).inputs.size() == 2 && sole_consumer(g, consumers, r.x) == exp_node) {
    const int x = node_at(g, sub).inputs[0];
    const int max = g.values[static_cast<size_t>(node_at(g, sub).inputs[1])].producer;
    if (max >= 0 && node_at(g, max).inputs.size() >= 1 && node_at(g, max).inputs[0] == x &&
        single_axis(g, node_at(g, max), "ReduceMax", rank) == axis &&
        sole_consumer(g, consumers, node_at(g, max).outputs[0]) == sub) {
      r.x = x;
      r.nodes.push_back(sub);
      r.nodes.push_back(max);
    }
  }
  const Value& y = g.values[static_cast<size_t>(r.output)];
  const Value& xv = g.values[static_cast<size_t>(r.x)];
  if (!y.shape || !xv.shape || *y.shape != *xv.shape || y.dtype != xv.dtype) return std::nullopt;
  return r;
}

std::optional<PatternMatch> find(const Graph& g, const std::vector<std::vector<int>>& consumers, int exp_node) {
  const auto m = match(g, consumers, exp_node);
  if (!m) return std::nullopt;
  return PatternMatch{m->nodes, m->output, [x = m->x, axis = m->axis](Graph&, Node& node) {
                        node.op_type = "Softmax";
                        node.inputs = {x};
                        node.attrs = Attributes{};
                        set_int_attr(node, "axis", axis);
                        return true;
                      }};
}

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_anchored_patterns(g, "Exp", find); }

}  // namespace

const Pass kSoftmaxFusionPass{"SoftmaxFusionPass", "graph", run};

}  // namespace openge::passes
