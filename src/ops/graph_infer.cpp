#include "ops/graph_infer.h"

#include "ops/node_eval.h"
#include "ops/op_registry.h"

namespace openge {

ValueInfo info_of(const Value& v) {
  ValueInfo info;
  info.dtype = v.dtype;
  info.shape_known = shape_is_static(v.shape);
  if (info.shape_known) info.shape = *v.shape;
  info.value = v.constant ? &*v.constant : nullptr;
  info.kind = v.kind;
  return info;
}

void input_infos(const Graph& g, const Node& node, std::vector<ValueInfo>& infos, std::vector<const ValueInfo*>& ptrs) {
  infos.assign(node.inputs.size(), ValueInfo{});
  ptrs.assign(node.inputs.size(), nullptr);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] < 0) continue;
    infos[i] = info_of(g.values[static_cast<size_t>(node.inputs[i])]);
    ptrs[i] = &infos[i];
  }
}

Status sort_topologically(Graph& g) {
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  std::vector<Node> sorted;
  sorted.reserve(g.nodes.size());
  for (int n : *order) sorted.push_back(std::move(g.nodes[static_cast<size_t>(n)]));
  g.nodes = std::move(sorted);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int out : g.nodes[n].outputs)
      if (out >= 0) g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);
  return Status::Ok();
}

Status infer_node_types(Graph& g, const Node& node, std::vector<Tensor>* folded) {
  const OpSchema* schema = find_op_schema(node.op_type);
  if (!schema) return unsupported("node " + node.op_type + " '" + node.name + "': op is not supported");
  std::vector<ValueInfo> infos;
  std::vector<const ValueInfo*> ptrs;
  input_infos(g, node, infos, ptrs);
  InferContext ctx(node, g.opset, ptrs, node.outputs.size());
  OPENGE_RETURN_IF_ERROR(run_infer(*schema, ctx));
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    if (node.outputs[o] < 0) continue;
    Value& v = g.values[static_cast<size_t>(node.outputs[o])];
    const ValueInfo& info = ctx.output(o);
    v.kind = info.kind;
    v.dtype = info.dtype;
    v.shape = info.shape_known ? std::optional<Shape>(info.shape) : std::nullopt;
  }
  if (folded) *folded = ctx.folded();
  return Status::Ok();
}

Status infer_and_fold_nodes(Graph& g, size_t max_fold_bytes) {
  std::vector<Tensor> known;
  for (const Node& node : g.nodes) {
    OPENGE_RETURN_IF_ERROR(infer_node_types(g, node, &known));
    std::vector<const Tensor*> inputs;
    bool all_constant = true;
    for (int in : node.inputs) {
      const Tensor* value = in >= 0 && g.values[static_cast<size_t>(in)].constant
                                ? &*g.values[static_cast<size_t>(in)].constant
                                : nullptr;
      if (in >= 0) all_constant = all_constant && value;
      inputs.push_back(value);
    }
    size_t out_bytes = 0;
    bool holds_no_constant = false;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] < 0) continue;
      Value& v = g.values[static_cast<size_t>(node.outputs[o])];
      // Constants are tensors of numbers (graph dumps write them as initializers).
      if (v.kind != ValueKind::kTensor || v.dtype == DType::kString) holds_no_constant = true;
      if (o < known.size() && known[o].defined()) v.constant = known[o];
      if (v.shape) out_bytes += static_cast<size_t>(shape_numel(*v.shape)) * dtype_size(v.dtype);
    }
    const OpSchema* schema = find_op_schema(node.op_type);
    // Outputs infer already knows (Shape, a FileConstant's view of its file) are not computed
    // again: the kernel would only copy them (a FileConstant's weight into the heap).
    bool all_known = !node.outputs.empty();
    for (size_t o = 0; o < node.outputs.size(); ++o)
      if (node.outputs[o] >= 0 && (o >= known.size() || !known[o].defined())) all_known = false;
    if (all_known) continue;
    const bool foldable = !schema->fold_only_when_seeded || node.attrs.find("seed");
    // A control-flow node is never folded here: its subgraphs run only through the executor.
    if (all_constant && foldable && !holds_no_constant && out_bytes <= max_fold_bytes && !has_subgraph(node)) {
      auto folded = evaluate_node(node, g.opset, inputs);
      if (!folded.ok()) return folded.status();
      for (size_t o = 0; o < node.outputs.size(); ++o)
        if (node.outputs[o] >= 0) g.values[static_cast<size_t>(node.outputs[o])].constant = std::move((*folded)[o]);
    }
  }
  return Status::Ok();
}

}  // namespace openge
