// Shape inference and constant folding, the first stage of a compile (compiler/pipeline.h); for
// a .oge, the check that every stored type is what its node computes.
#include <algorithm>

#include "compiler/executable_builder.h"
#include "ops/node_eval.h"
#include "runtime/control_flow.h"

namespace openge::compiler {
namespace {

// Folding larger results would trade a run-time op for a big constant nobody asked for.
constexpr size_t kMaxFoldBytes = size_t{64} << 20;

}  // namespace

ValueInfo info_of(const Value& v) {
  ValueInfo info;
  info.dtype = v.dtype;
  info.shape_known = shape_is_static(v.shape);
  if (info.shape_known) info.shape = *v.shape;
  info.value = v.constant ? &*v.constant : nullptr;
  info.kind = v.kind;
  return info;
}

void input_infos(const Graph& g, const Node& node, std::vector<ValueInfo>& infos,
                 std::vector<const ValueInfo*>& ptrs) {
  infos.assign(node.inputs.size(), ValueInfo{});
  ptrs.assign(node.inputs.size(), nullptr);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] < 0) continue;
    infos[i] = info_of(g.values[static_cast<size_t>(node.inputs[i])]);
    ptrs[i] = &infos[i];
  }
}

Status ExecutableBuilder::infer_and_fold() {
  Graph& g = exe_->graph_;
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  std::vector<Node> sorted;
  sorted.reserve(g.nodes.size());
  for (int n : *order) sorted.push_back(std::move(g.nodes[static_cast<size_t>(n)]));
  g.nodes = std::move(sorted);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int out : g.nodes[n].outputs)
      if (out >= 0) g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);

  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    const OpSchema* schema = find_op_schema(node.op_type);
    if (!schema) return unsupported("node " + g.node_label(static_cast<int>(n)) + ": op is not supported");
    std::vector<ValueInfo> infos;
    std::vector<const ValueInfo*> ptrs;
    input_infos(g, node, infos, ptrs);
    bool all_constant = true;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] >= 0) all_constant = all_constant && infos[i].value;
    InferContext ctx(node, g.opset, ptrs, node.outputs.size());
    OPENGE_RETURN_IF_ERROR(run_infer(*schema, ctx));
    size_t out_bytes = 0;
    bool holds_no_constant = false;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] < 0) continue;
      Value& v = g.values[static_cast<size_t>(node.outputs[o])];
      const ValueInfo& info = ctx.output(o);
      v.kind = info.kind;
      v.dtype = info.dtype;
      v.shape = info.shape_known ? std::optional<Shape>(info.shape) : std::nullopt;
      // Constants are tensors of numbers (graph dumps write them as initializers).
      if (info.kind != ValueKind::kTensor || info.dtype == DType::kString) holds_no_constant = true;
      if (o < ctx.folded().size() && ctx.folded()[o].defined()) v.constant = ctx.folded()[o];
      if (info.shape_known) out_bytes += static_cast<size_t>(shape_numel(info.shape)) * dtype_size(info.dtype);
    }
    const bool foldable = !schema->fold_only_when_seeded || node.attrs.find("seed");
    // A control-flow node is never folded here: its subgraphs run only through the executor.
    if (all_constant && foldable && !holds_no_constant && out_bytes <= kMaxFoldBytes && !has_subgraph(node)) {
      std::vector<const Tensor*> inputs;
      for (const ValueInfo* p : ptrs) inputs.push_back(p ? p->value : nullptr);
      auto folded = evaluate_node(node, g.opset, inputs);
      if (!folded.ok()) return folded.status();
      for (size_t o = 0; o < node.outputs.size(); ++o)
        if (node.outputs[o] >= 0) g.values[static_cast<size_t>(node.outputs[o])].constant = std::move((*folded)[o]);
    }
  }
  return Status::Ok();
}

Status ExecutableBuilder::check_precompiled() {
  // The rewrites ran when the .oge was compiled; only infer runs here, as a check that every
  // stored type is what its node computes from its inputs, so that a file not written by openge
  // compile cannot hand a kernel buffers of the wrong size. A stored float32 where infer says
  // float16 / bfloat16 is the precision pass's "float16 in, float32 out" of cube ops, and stays.
  Graph& g = exe_->graph_;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    const OpSchema* schema = find_op_schema(node.op_type);
    if (!schema) return unsupported("node " + g.node_label(static_cast<int>(n)) + ": op is not supported");
    std::vector<ValueInfo> infos;
    std::vector<const ValueInfo*> ptrs;
    input_infos(g, node, infos, ptrs);
    InferContext ctx(node, g.opset, ptrs, node.outputs.size());
    OPENGE_RETURN_IF_ERROR(run_infer(*schema, ctx));
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] < 0) continue;
      Value& v = g.values[static_cast<size_t>(node.outputs[o])];
      const ValueInfo& info = ctx.output(o);
      const bool widened_output =
          v.dtype == DType::kFloat32 && (info.dtype == DType::kFloat16 || info.dtype == DType::kBFloat16);
      if (v.dtype != DType::kUndefined && v.dtype != info.dtype && !widened_output)
        return invalid_model("node " + g.node_label(static_cast<int>(n)) + ": output '" + v.name + "' is stored as " +
                             dtype_name(v.dtype) + " but the op computes " + dtype_name(info.dtype) +
                             " (not written by openge compile): recompile it");
      if (v.dtype == DType::kUndefined) v.dtype = info.dtype;
      if (info.shape_known && shape_is_static(v.shape) && *v.shape != info.shape)
        return invalid_model("node " + g.node_label(static_cast<int>(n)) + ": output '" + v.name + "' is stored with shape " +
                             shape_to_string(*v.shape) + " but the op computes " + shape_to_string(info.shape) +
                             " (not written by openge compile): recompile it");
      v.shape = info.shape_known ? std::optional<Shape>(info.shape) : std::nullopt;
      if (o < ctx.folded().size() && ctx.folded()[o].defined()) v.constant = ctx.folded()[o];
    }
  }
  return check_declared_outputs();
}

Status ExecutableBuilder::check_declared_outputs() const {
  const Graph& g = exe_->graph_;
  for (size_t i = 0; i < g.outputs.size() && i < g.declared_outputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.outputs[i])];
    const Graph::DeclaredType& declared = g.declared_outputs[i];
    if (declared.dtype != DType::kUndefined && v.dtype != DType::kUndefined && declared.kind != v.kind)
      return invalid_model("graph output '" + v.name + "' is declared a " + value_kind_name(declared.kind) +
                           " but the graph computes a " + value_kind_name(v.kind));
    if (declared.dtype != DType::kUndefined && v.dtype != DType::kUndefined && declared.dtype != v.dtype)
      return invalid_model("graph output '" + v.name + "' is declared " + dtype_name(declared.dtype) +
                           " but the graph computes " + dtype_name(v.dtype));
    if (!declared.shape || !shape_is_static(v.shape)) continue;
    bool matches = declared.shape->size() == v.shape->size();
    for (size_t d = 0; matches && d < v.shape->size(); ++d)
      matches = (*declared.shape)[d] < 0 || (*declared.shape)[d] == (*v.shape)[d];
    if (!matches)
      return invalid_model("graph output '" + v.name + "' is declared with shape " + shape_to_string(*declared.shape) +
                           " but the graph computes " + shape_to_string(*v.shape));
  }
  return Status::Ok();
}

}  // namespace openge::compiler
