// If, Loop, Scan and SequenceMap: the op-table rows of the control-flow ops. Their subgraphs are
// compiled and run by the executor (runtime/control_flow.cpp), not by a kernel here: an op kernel
// sees only tensors, while a subgraph needs the compile/run machinery of the runtime, which the
// ops layer must not include. What lives here is what every op has: arity, attribute checks and `infer`.
//
// The loader turns every outer-scope value a subgraph reads into an explicit trailing input of
// the node (and of each of its subgraphs, in the same order: Graph::captured_inputs), so the
// node's inputs are [ONNX's own inputs..., captured values...] and a subgraph's inputs are
// [its formal inputs..., the same captured values...].
//
// Output shapes depend on data (which branch, how many iterations): infer decides the dtypes and
// leaves the shapes to run time (set_output_dtype), as the op contract says.
#include <climits>

#include "ops/op_registry.h"

namespace openge {
namespace {

// The subgraph in attribute `name`, or nullptr.
const Graph* subgraph(const InferContext& ctx, const char* name) {
  const Attribute* a = ctx.attrs().find(name);
  return a && a->kind == Attribute::Kind::kGraph ? a->graph.get() : nullptr;
}

size_t formal_inputs(const Graph& g) { return g.inputs.size() - g.captured_inputs; }

// Node inputs that are ONNX's own (not captured outer-scope values).
size_t node_formal_inputs(const InferContext& ctx, const Graph& body) {
  return ctx.num_inputs() >= body.captured_inputs ? ctx.num_inputs() - body.captured_inputs : 0;
}

// What a value is: its kind (tensor, sequence, optional) and element type.
struct ValueType {
  ValueKind kind = ValueKind::kTensor;
  DType dtype = DType::kUndefined;
};

void set_output_type(InferContext& ctx, size_t out, ValueType type) {
  if (type.kind == ValueKind::kTensor)
    ctx.set_output_dtype(out, type.dtype);
  else
    ctx.set_output_kind(out, type.kind, type.dtype);
}

// The type of every value of `body` as far as the node's inputs tell: subgraph input i is fed by
// node input i + offset (captured values line up at the end of both lists), and each node's own
// infer runs on what is known (dtypes, constant values; shapes mostly not). kUndefined where
// nothing tells. Used for subgraph outputs the model leaves untyped (ONNX function bodies do).
// `per_element`: the body receives one element of each sequence the node is given (SequenceMap).
std::vector<ValueType> infer_subgraph_types(const InferContext& ctx, const Graph& body, bool per_element) {
  std::vector<ValueInfo> infos(body.values.size());
  for (size_t v = 0; v < body.values.size(); ++v) {
    const Value& value = body.values[v];
    infos[v].dtype = value.dtype;
    infos[v].kind = value.kind;
    if (value.constant) infos[v] = ValueInfo{value.dtype, true, value.constant->shape(), &*value.constant};
  }
  const size_t offset = node_formal_inputs(ctx, body) - formal_inputs(body);
  for (size_t i = 0; i < body.inputs.size(); ++i) {
    ValueInfo& info = infos[static_cast<size_t>(body.inputs[i])];
    if (info.dtype == DType::kUndefined && ctx.has_input(i + offset)) {
      info.dtype = ctx.input_dtype(i + offset);
      info.kind = ctx.input_kind(i + offset);
      if (per_element && info.kind == ValueKind::kSequence) info.kind = ValueKind::kTensor;
    }
  }
  auto order = body.topological_order();
  if (order.ok()) {
    for (int n : *order) {
      const Node& node = body.nodes[static_cast<size_t>(n)];
      const OpSchema* schema = find_op_schema(node.op_type);
      if (!schema) continue;
      std::vector<const ValueInfo*> ptrs;
      for (int in : node.inputs) ptrs.push_back(in >= 0 ? &infos[static_cast<size_t>(in)] : nullptr);
      InferContext inner(node, ctx.opset(), std::move(ptrs), node.outputs.size());
      Status st;
      try {
        st = schema->infer(inner);
      } catch (...) {  // a hostile constant inside the body: the subgraph's own compile reports it
        continue;
      }
      if (!st.ok()) continue;
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o] < 0) continue;
        ValueInfo& out = infos[static_cast<size_t>(node.outputs[o])];
        out.dtype = inner.output(o).dtype;
        out.kind = inner.output(o).kind;
        out.shape_known = inner.output(o).shape_known;
        out.shape = inner.output(o).shape;
      }
    }
  }
  std::vector<ValueType> types;
  for (int v : body.outputs) types.push_back({infos[static_cast<size_t>(v)].kind, infos[static_cast<size_t>(v)].dtype});
  return types;
}

// The dtype subgraph output k has: its declared type, else what inference over the subgraph
// tells (infer_subgraph_dtypes).
ValueType subgraph_output_type(const InferContext& ctx, const Graph& body, size_t k, bool per_element = false) {
  if (k < body.declared_outputs.size() && body.declared_outputs[k].dtype != DType::kUndefined)
    return {body.declared_outputs[k].kind, body.declared_outputs[k].dtype};
  const Value& known = body.values[static_cast<size_t>(body.outputs[k])];
  if (known.dtype != DType::kUndefined) return {known.kind, known.dtype};
  return infer_subgraph_types(ctx, body, per_element)[k];
}

Status set_subgraph_output(InferContext& ctx, const Graph& body, size_t k, size_t out, const char* attr) {
  const ValueType type = subgraph_output_type(ctx, body, k);
  if (type.dtype == DType::kUndefined)
    return ctx.error(std::string("attribute '") + attr + "': output " + std::to_string(k) + " ('" +
                     body.values[static_cast<size_t>(body.outputs[k])].name +
                     "') has no declared element type and none can be derived; declare it in the subgraph's outputs");
  set_output_type(ctx, out, type);
  return Status::Ok();
}

Status require_scalar_of(const InferContext& ctx, size_t i, DType dtype, const char* what) {
  if (!ctx.has_input(i)) return Status::Ok();
  if (ctx.input_dtype(i) != dtype)
    return ctx.error(std::string(what) + " must be " + dtype_name(dtype) + ", got " + dtype_name(ctx.input_dtype(i)));
  if (ctx.input_shape_known(i) && shape_numel(ctx.input_shape(i)) != 1)
    return ctx.error(std::string(what) + " must hold one element, got shape " + shape_to_string(ctx.input_shape(i)));
  return Status::Ok();
}

Status infer_if(InferContext& ctx) {
  const Graph* then_g = subgraph(ctx, "then_branch");
  const Graph* else_g = subgraph(ctx, "else_branch");
  if (!then_g || !else_g) return ctx.error("needs the graph attributes then_branch and else_branch");
  OPENGE_RETURN_IF_ERROR(require_scalar_of(ctx, 0, DType::kBool, "the condition (input 0)"));
  const size_t n = ctx.num_outputs();
  if (then_g->outputs.size() != n || else_g->outputs.size() != n)
    return ctx.error("has " + std::to_string(n) + " outputs but then_branch gives " +
                     std::to_string(then_g->outputs.size()) + " and else_branch gives " +
                     std::to_string(else_g->outputs.size()));
  for (size_t k = 0; k < n; ++k) {
    ValueType t = subgraph_output_type(ctx, *then_g, k), e = subgraph_output_type(ctx, *else_g, k);
    if (t.dtype == DType::kUndefined) t = e;
    if (e.dtype == DType::kUndefined) e = t;
    if (t.dtype != e.dtype || t.kind != e.kind)
      return ctx.error("output " + std::to_string(k) + " is a " + value_kind_name(t.kind) + " of " +
                       dtype_name(t.dtype) + " in then_branch but a " + value_kind_name(e.kind) + " of " +
                       dtype_name(e.dtype) + " in else_branch");
    if (t.dtype == DType::kUndefined) return set_subgraph_output(ctx, *then_g, k, k, "then_branch");
    set_output_type(ctx, k, t);
  }
  return Status::Ok();
}

// Loop: inputs (M, cond, v_initial × N, captured …); body inputs (iteration_num, cond, v × N,
// captured …), body outputs (cond, v × N, scan × K); node outputs (v_final × N, scan × K).
Status infer_loop(InferContext& ctx) {
  const Graph* body = subgraph(ctx, "body");
  if (!body) return ctx.error("needs the graph attribute body");
  const size_t formal = node_formal_inputs(ctx, *body);
  if (formal < 2) return ctx.error("needs the inputs M and cond (either may be empty)");
  const size_t n = formal - 2;
  if (formal_inputs(*body) != 2 + n)
    return ctx.error("body takes " + std::to_string(formal_inputs(*body)) + " inputs; with " + std::to_string(n) +
                     " loop-carried values it must take " + std::to_string(2 + n) +
                     " (iteration_num, cond, the values)");
  if (body->outputs.size() < 1 + n)
    return ctx.error("body gives " + std::to_string(body->outputs.size()) + " outputs; it must give cond and the " +
                     std::to_string(n) + " loop-carried values, then the scan outputs");
  const size_t k = body->outputs.size() - 1 - n;
  if (ctx.num_outputs() != n + k)
    return ctx.error("has " + std::to_string(ctx.num_outputs()) + " outputs; its body makes " + std::to_string(n) +
                     " loop-carried values and " + std::to_string(k) + " scan outputs");
  OPENGE_RETURN_IF_ERROR(require_scalar_of(ctx, 0, DType::kInt64, "the trip count M (input 0)"));
  OPENGE_RETURN_IF_ERROR(require_scalar_of(ctx, 1, DType::kBool, "the condition cond (input 1)"));
  for (size_t i = 0; i < n; ++i) {
    if (!ctx.has_input(2 + i)) return ctx.error("loop-carried input " + std::to_string(2 + i) + " is missing");
    // What the body makes is what the loop ends with (an optional sequence fed in may come
    // back a plain sequence); where the body says nothing, the initial value's type.
    const ValueType body_out = subgraph_output_type(ctx, *body, 1 + i);
    set_output_type(
        ctx, i,
        body_out.dtype != DType::kUndefined ? body_out : ValueType{ctx.input_kind(2 + i), ctx.input_dtype(2 + i)});
  }
  for (size_t s = 0; s < k; ++s) OPENGE_RETURN_IF_ERROR(set_subgraph_output(ctx, *body, 1 + n + s, n + s, "body"));
  return Status::Ok();
}

// Scan (opset 9+): inputs (state × N, scan × M, captured …); body inputs (state × N, one slice of
// each scan input, captured …), body outputs (state × N, scan × K). Opset 8 puts an optional
// sequence_lens first and a batch axis on every input and output.
Status infer_scan(InferContext& ctx) {
  const Graph* body = subgraph(ctx, "body");
  if (!body) return ctx.error("needs the graph attribute body");
  const int64_t m = ctx.attrs().get_int("num_scan_inputs", -1);
  const size_t lead = ctx.opset() < 9 ? 1 : 0;  // sequence_lens
  const size_t formal = node_formal_inputs(ctx, *body);
  if (m < 1 || static_cast<size_t>(m) + lead > formal)
    return ctx.error("num_scan_inputs must be between 1 and the number of inputs (" + std::to_string(formal - lead) +
                     "), got " + std::to_string(m));
  const size_t n = formal - lead - static_cast<size_t>(m);
  if (formal_inputs(*body) != n + static_cast<size_t>(m))
    return ctx.error("body takes " + std::to_string(formal_inputs(*body)) + " inputs; it must take " +
                     std::to_string(n + static_cast<size_t>(m)) + " (the " + std::to_string(n) +
                     " states, then one slice of each scan input)");
  if (body->outputs.size() < n || ctx.num_outputs() != body->outputs.size())
    return ctx.error("has " + std::to_string(ctx.num_outputs()) + " outputs but its body gives " +
                     std::to_string(body->outputs.size()) + " (the " + std::to_string(n) +
                     " states, then the scan outputs)");
  const size_t k = body->outputs.size() - n;
  const struct {
    const char* name;
    size_t count;
  } lists[] = {{"scan_input_axes", static_cast<size_t>(m)},
               {"scan_input_directions", static_cast<size_t>(m)},
               {"scan_output_axes", k},
               {"scan_output_directions", k},
               {"directions", static_cast<size_t>(m)}};
  for (const auto& list : lists) {
    if (!ctx.attrs().has(list.name)) continue;
    const std::vector<int64_t> values = ctx.attrs().get_ints(list.name);
    if (values.size() != list.count)
      return ctx.error(std::string("attribute ") + list.name + " has " + std::to_string(values.size()) +
                       " entries; it must have " + std::to_string(list.count));
  }
  if (lead && ctx.has_input(0) && ctx.input_dtype(0) != DType::kInt64)
    return ctx.error(std::string("sequence_lens (input 0) must be int64, got ") + dtype_name(ctx.input_dtype(0)));
  for (size_t i = 0; i < n; ++i) ctx.set_output_dtype(i, ctx.input_dtype(lead + i));
  for (size_t s = 0; s < k; ++s) OPENGE_RETURN_IF_ERROR(set_subgraph_output(ctx, *body, n + s, n + s, "body"));
  return Status::Ok();
}

// SequenceMap (opset 17): inputs (input_sequence, additional inputs …, captured …); the body
// takes one input per formal input: the i-th element of each sequence, a tensor input whole.
// Each body output (a tensor) becomes one element of the same output sequence.
Status infer_sequence_map(InferContext& ctx) {
  const Graph* body = subgraph(ctx, "body");
  if (!body) return ctx.error("needs the graph attribute body");
  const size_t formal = node_formal_inputs(ctx, *body);
  if (formal < 1 || !ctx.has_input(0) || ctx.input_kind(0) != ValueKind::kSequence)
    return ctx.error("input 0 (input_sequence) must be a sequence");
  if (formal_inputs(*body) != formal)
    return ctx.error("body takes " + std::to_string(formal_inputs(*body)) + " inputs; it must take one per input (" +
                     std::to_string(formal) + ")");
  for (size_t i = 1; i < formal; ++i) {
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
    if (ctx.input_kind(i) != ValueKind::kSequence && ctx.input_kind(i) != ValueKind::kTensor)
      return ctx.error("input " + std::to_string(i) + " must be a sequence or a tensor, got a " +
                       value_kind_name(ctx.input_kind(i)));
  }
  if (body->outputs.size() != ctx.num_outputs())
    return ctx.error("has " + std::to_string(ctx.num_outputs()) + " outputs but its body gives " +
                     std::to_string(body->outputs.size()));
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    const ValueType type = subgraph_output_type(ctx, *body, k, true);
    if (type.dtype == DType::kUndefined || type.kind != ValueKind::kTensor)
      return ctx.error("body output " + std::to_string(k) + " must be a tensor of a known element type, got a " +
                       value_kind_name(type.kind) + " of " + dtype_name(type.dtype));
    ctx.set_output_kind(k, ValueKind::kSequence, type.dtype);
  }
  return Status::Ok();
}

// Constant folding never calls this (it skips nodes with subgraphs) and neither does the executor
// (it runs a control-flow node's subgraphs itself); only a direct call of the op's kernel does.
Status run_through_executor(KernelContext& ctx) {
  return ctx.error("a control-flow op runs its subgraphs through the executor (Executable), not as a lone kernel");
}

}  // namespace

void register_control_flow_ops(std::vector<OpSchema>& table) {
  constexpr int kAny = INT_MAX;
  // Subgraphs take and make sequences and optionals as well as tensors (takes_any_value).
  table.push_back({"If", 1, -1, 1, kAny, infer_if, run_through_executor, false, false, true});
  table.push_back({"Loop", 0, -1, 1, kAny, infer_loop, run_through_executor, false, false, true});
  table.push_back({"Scan", 0, -1, 1, kAny, infer_scan, run_through_executor, false, false,
                   true});  // opset 8: sequence_lens may be ""
  table.push_back({"SequenceMap", 1, -1, 1, kAny, infer_sequence_map, run_through_executor, false, false, true});
}

}  // namespace openge
