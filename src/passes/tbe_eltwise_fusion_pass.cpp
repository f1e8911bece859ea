// TbeEltwiseFusionPass (UB fusion; CANN's name for its elementwise buffer fusion): groups of
// fp32 elementwise vector ops — Add/Sub/Mul/Div/Pow/Max/Min with a full, scalar, last-axis or
// per-channel operand, and the activations of kEltwiseOps — become one FusedElementwise node
// (ops/fused/fused_elementwise.h) whose kernel the online compiler generates (compiler/).
//
// It runs after the precision pass (Pass::after_precision), as CANN's UB fusion runs on the
// dtypes op selection chose: a node the precision pass sent to the AI CPU engine, or gave
// another dtype than fp32, is not fused.
//
// A group grows backwards from its last node (the root, whose output is the group's one
// output): a producer joins when it is fusable, has the root's output shape, and every reader
// of its result is already in the group (so no intermediate is needed outside). That also takes
// the diamonds of GELU (x feeds both the Div and the final Mul). Groups of one node are left alone.
#include <algorithm>

#include "ops/fused/operand_pattern.h"
#include "ops/fused/fused_elementwise.h"
#include "ops/fused/fused_ops.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

const Shape* static_shape(const Graph& g, int v) {
  const Value& val = g.values[static_cast<size_t>(v)];
  if (!val.shape) return nullptr;
  for (int64_t d : *val.shape)
    if (d < 0) return nullptr;
  return &*val.shape;
}

// The op row when node n can be one step of a fused kernel.
const EltwiseOpRow* fusable(const Graph& g, const Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx") return nullptr;
  const EltwiseOpRow* row = find_eltwise_op(n.op_type);
  if (!row || n.aicpu_only || n.outputs.size() != 1 || n.outputs[0] < 0) return nullptr;
  if (static_cast<int>(n.inputs.size()) != row->args) return nullptr;
  if (n.op_type == "Clip" && g.opset < 11) return nullptr;  // bounds were attributes then
  const Value& out = g.values[static_cast<size_t>(n.outputs[0])];
  const Shape* out_shape = static_shape(g, n.outputs[0]);
  if (out.dtype != DType::kFloat32 || out.constant || !out_shape || shape_numel(*out_shape) == 0) return nullptr;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0 || g.values[static_cast<size_t>(v)].dtype != DType::kFloat32) return nullptr;
    const Shape* s = static_shape(g, v);
    if (!s || !operand_pattern(*s, *out_shape)) return nullptr;
    // Clip's bounds: one value each (an empty bound means "no bound", which the kernel lacks).
    if (n.op_type == "Clip" && i > 0 && shape_numel(*s) != 1) return nullptr;
  }
  return row;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  const auto consumers = g.consumers();
  std::vector<int> position(g.nodes.size(), 0);
  for (size_t i = 0; i < order->size(); ++i) position[static_cast<size_t>((*order)[i])] = static_cast<int>(i);
  std::vector<int> group(g.nodes.size(), -1);
  std::vector<bool> dead(g.nodes.size(), false);
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const int root = *it;
    const Node& root_node = g.nodes[static_cast<size_t>(root)];
    if (group[static_cast<size_t>(root)] >= 0 || !fusable(g, root_node)) continue;
    const Shape out_shape = *static_shape(g, root_node.outputs[0]);
    std::vector<int> members = {root};
    group[static_cast<size_t>(root)] = root;
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t m = 0; m < members.size(); ++m) {
        for (int v : g.nodes[static_cast<size_t>(members[m])].inputs) {
          const int p = g.values[static_cast<size_t>(v)].producer;
          if (p < 0 || group[static_cast<size_t>(p)] >= 0 || is_graph_output(g, v)) continue;
          const Node& pn = g.nodes[static_cast<size_t>(p)];
          if (!fusable(g, pn) || *static_shape(g, v) != out_shape) continue;
          const auto& readers = consumers[static_cast<size_t>(v)];
          const bool inside =
              std::all_of(readers.begin(), readers.end(), [&](int r) { return group[static_cast<size_t>(r)] == root; });
          if (!inside) continue;
          group[static_cast<size_t>(p)] = root;
          members.push_back(p);
          grew = true;
        }
      }
    }
    if (members.size() < 2) continue;
    ++result.matched;
    std::sort(members.begin(), members.end(),
              [&](int a, int b) { return position[static_cast<size_t>(a)] < position[static_cast<size_t>(b)]; });
    // Steps in evaluation order; arguments are node inputs (external values, each once) or steps.
    Node fused;
    fused.name = root_node.name;
    fused.op_type = kFusedElementwise;
    fused.domain = kFusedDomain;
    fused.outputs = root_node.outputs;
    fused.impl_mode = root_node.impl_mode;
    EltwiseProgram program;
    std::vector<int> step_of_value(g.values.size(), -1);
    for (size_t s = 0; s < members.size(); ++s) {
      const Node& n = g.nodes[static_cast<size_t>(members[s])];
      const EltwiseOpRow* row = find_eltwise_op(n.op_type);
      EltwiseStep step;
      step.op = n.op_type;
      step.name = n.name;
      step.impl_mode = n.impl_mode;  // per step: high_precision Sigmoid/Tanh/Erf keep libm
      step.alpha = row->alpha_attr ? n.attrs.get_float(row->alpha_attr, row->alpha_default) : 0.0f;
      step.beta = row->beta_attr ? n.attrs.get_float(row->beta_attr, row->beta_default) : 0.0f;
      for (int v : n.inputs) {
        if (step_of_value[static_cast<size_t>(v)] >= 0) {
          step.args.push_back(-step_of_value[static_cast<size_t>(v)] - 1);
          continue;
        }
        auto found = std::find(fused.inputs.begin(), fused.inputs.end(), v);
        if (found == fused.inputs.end()) found = fused.inputs.insert(fused.inputs.end(), v);
        step.args.push_back(static_cast<int>(found - fused.inputs.begin()));
      }
      step_of_value[static_cast<size_t>(n.outputs[0])] = static_cast<int>(s);
      program.steps.push_back(std::move(step));
    }
    write_eltwise_program(fused, program);
    g.nodes[static_cast<size_t>(root)] = std::move(fused);
    for (int m : members)
      if (m != root) absorb_node(g, root, m, dead);
    // absorb_node lists the root's own (new) name first, then the others in group order.
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kTbeEltwiseFusionPass{"TbeEltwiseFusionPass", "ub", run, PassSwitch::kFusionSwitch,
                                 /*after_precision=*/true};

}  // namespace openge::passes
