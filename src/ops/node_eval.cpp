#include "ops/node_eval.h"

#include "base/size_limit.h"

namespace openge {

Status check_arity(const OpSchema& schema, const Node& node) {
  const int in = static_cast<int>(node.inputs.size());
  const int out = static_cast<int>(node.outputs.size());
  const std::string label = node.op_type + " '" + node.name + "'";
  if (in < schema.min_inputs || (schema.max_inputs >= 0 && in > schema.max_inputs))
    return invalid_model(label + " has " + std::to_string(in) + " inputs; " + std::string(schema.op_type) + " takes " +
                         std::to_string(schema.min_inputs) + " to " +
                         (schema.max_inputs < 0 ? std::string("any number") : std::to_string(schema.max_inputs)));
  if (out < schema.min_outputs || out > schema.max_outputs)
    return invalid_model(label + " has " + std::to_string(out) + " outputs; " + std::string(schema.op_type) +
                         " produces " + std::to_string(schema.min_outputs) + " to " +
                         std::to_string(schema.max_outputs));
  for (int i = 0; i < schema.min_inputs && i < in; ++i)
    if (node.inputs[static_cast<size_t>(i)] < 0)
      return invalid_model(label + ": required input " + std::to_string(i) + " is missing");
  return Status::Ok();
}

namespace {

// The ops whose kernels handle string tensors (their elements are std::string, not bytes: a
// kernel that copies dtype_size() bytes per element would silently lose them). Every other op
// is refused a string input before its infer runs.
bool takes_strings(std::string_view op_type) {
  static constexpr std::string_view kOps[] = {"Cast",
                                              "CastLike",
                                              "Identity",
                                              "StringNormalizer",
                                              "TfIdfVectorizer",
                                              "SequenceConstruct",
                                              "SequenceInsert",
                                              "SplitToSequence",
                                              "Optional",
                                              "OptionalGetElement",
                                              "If",
                                              "Loop",
                                              "SequenceMap"};
  for (std::string_view op : kOps)
    if (op == op_type) return true;
  return false;
}

}  // namespace

bool output_is_allocated(ValueKind kind, DType dtype) {
  return kind == ValueKind::kTensor && (dtype_supported(dtype) || dtype == DType::kString);
}

Status check_kernel_made(const Node& node, size_t i, ValueKind kind, const Tensor& output) {
  if (kind == ValueKind::kTensor || i >= node.outputs.size() || node.outputs[i] < 0 || output.kind() == kind)
    return Status::Ok();
  return internal_error(node.op_type + " '" + node.name + "': output " + std::to_string(i) + " should be a " +
                        value_kind_name(kind) + ", the kernel made a " +
                        (output.defined() ? value_kind_name(output.kind()) : "nothing"));
}

Status run_infer(const OpSchema& schema, InferContext& ctx) {
  const Node& node = ctx.node();
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    if (!schema.takes_any_value && ctx.input_kind(i) != ValueKind::kTensor)
      return ctx.error("input " + std::to_string(i) + " is a " + value_kind_name(ctx.input_kind(i)) + "; " +
                       node.op_type + " takes tensors");
    if (ctx.input_kind(i) == ValueKind::kTensor && ctx.input_dtype(i) == DType::kString && !takes_strings(node.op_type))
      return ctx.error("input " + std::to_string(i) + " is a string tensor; " + node.op_type + " takes numbers");
  }
  OPENGE_RETURN_IF_ERROR(run_guarded(node, [&] { return schema.infer(ctx); }));
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    const ValueInfo& o = ctx.output(i);
    if (!o.shape_known || i >= node.outputs.size() || node.outputs[i] < 0) continue;
    const size_t elem_size = o.dtype == DType::kString ? sizeof(std::string) : dtype_size(o.dtype);
    OPENGE_RETURN_IF_ERROR(
        check_tensor_size(o.shape, elem_size, node.op_type + " '" + node.name + "': output " + std::to_string(i)));
  }
  return Status::Ok();
}

Result<std::vector<ValueInfo>> infer_node(const OpSchema& schema, const Node& node, int64_t opset,
                                          const std::vector<const Tensor*>& inputs, std::vector<Tensor>* folded) {
  std::vector<ValueInfo> infos(inputs.size());
  std::vector<const ValueInfo*> ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) continue;
    // A sequence or optional has no shape; its ops read what they need from the value.
    const bool tensor = inputs[i]->is_tensor();
    infos[i] =
        ValueInfo{inputs[i]->dtype(), tensor, tensor ? inputs[i]->shape() : Shape{}, inputs[i], inputs[i]->kind()};
    ptrs[i] = &infos[i];
  }
  InferContext ctx(node, opset, std::move(ptrs), node.outputs.size());
  OPENGE_RETURN_IF_ERROR(run_infer(schema, ctx));
  std::vector<ValueInfo> outs;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const ValueInfo& o = ctx.output(i);
    if (!o.shape_known && o.kind == ValueKind::kTensor && node.outputs[i] >= 0)
      return internal_error(node.op_type + " '" + node.name + "': inference left output " + std::to_string(i) +
                            " without a shape although every input was known");
    outs.push_back(ValueInfo{o.dtype, o.shape_known, o.shape, nullptr, o.kind});
  }
  if (folded) *folded = ctx.folded();
  return outs;
}

Result<std::vector<Tensor>> evaluate_node(const Node& node, int64_t opset, const std::vector<const Tensor*>& inputs) {
  const OpSchema* schema = find_op_schema(node.op_type);
  if (!schema) return unsupported("op " + node.op_type + " is not supported");
  OPENGE_RETURN_IF_ERROR(check_arity(*schema, node));
  std::vector<Tensor> folded;
  auto infos = infer_node(*schema, node, opset, inputs, &folded);
  if (!infos.ok()) return infos.status();
  std::vector<Tensor> outputs;
  outputs.reserve(infos->size());
  for (size_t i = 0; i < infos->size(); ++i) {
    if (i < folded.size() && folded[i].defined()) {
      outputs.push_back(folded[i]);
      continue;
    }
    const ValueInfo& info = (*infos)[i];
    // A sequence or optional output is made by its kernel, which assigns the whole value.
    if (node.outputs[i] < 0 || !output_is_allocated(info.kind, info.dtype)) {
      outputs.emplace_back();
      continue;
    }
    outputs.emplace_back(info.dtype, info.shape);
  }
  bool all_folded = !folded.empty();
  for (size_t i = 0; i < outputs.size(); ++i)
    if (node.outputs[i] >= 0 && (i >= folded.size() || !folded[i].defined())) all_folded = false;
  if (all_folded) return outputs;
  if (schema->output_aliases_input) {
    outputs[0] = inputs[0]->reshaped(outputs[0].shape());
    return outputs;
  }
  std::vector<Tensor*> out_ptrs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const bool made_by_kernel = node.outputs[i] >= 0 && (*infos)[i].kind != ValueKind::kTensor;
    out_ptrs.push_back(outputs[i].defined() || made_by_kernel ? &outputs[i] : nullptr);
  }
  KernelContext kctx(node, opset, inputs, std::move(out_ptrs));
  OPENGE_RETURN_IF_ERROR(run_guarded(node, [&] { return schema->reference(kctx); }));
  for (size_t i = 0; i < outputs.size(); ++i)
    OPENGE_RETURN_IF_ERROR(check_kernel_made(node, i, (*infos)[i].kind, outputs[i]));
  return outputs;
}

}  // namespace openge
