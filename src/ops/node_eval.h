// Runs one node on concrete tensors with the AI CPU (reference) engine: inference, output
// allocation, kernel. Used for constant folding, for nodes whose shapes depend on data, and by
// op tests.
#pragma once
#include <vector>

#include "base/guard.h"
#include "ir/graph.h"
#include "openge/status.h"
#include "openge/tensor.h"
#include "ops/op_registry.h"

namespace openge {

// Runs the schema's inference on `ctx` (exceptions become an error naming the node) and checks
// every output shape it decided against the size-limit policy (base/size_limit.h): the one place
// where inferred sizes are checked, at compile time and at run time.
Status run_infer(const OpSchema& schema, InferContext& ctx);

// Runs a kernel (reference or compiled) through `fn`; an exception becomes an error naming the node.
template <class Fn>
Status run_guarded(const Node& node, Fn&& fn) {
  return guard_exceptions(std::forward<Fn>(fn), [&] { return node.op_type + " '" + node.name + "'"; });
}

// True when the executor allocates an output before its kernel runs: tensors (strings too).
// A sequence or optional output is assigned whole by its kernel.
bool output_is_allocated(ValueKind kind, DType dtype);
// An error unless the kernel assigned output `i` a value of `kind` (tensor outputs: always Ok).
Status check_kernel_made(const Node& node, size_t i, ValueKind kind, const Tensor& output);

// Infers output infos for `node` from concrete inputs (nullptr = omitted optional input).
Result<std::vector<ValueInfo>> infer_node(const OpSchema& schema, const Node& node, int64_t opset,
                                          const std::vector<const Tensor*>& inputs, std::vector<Tensor>* folded);

// Infers, allocates owned outputs and runs the reference kernel.
Result<std::vector<Tensor>> evaluate_node(const Node& node, int64_t opset, const std::vector<const Tensor*>& inputs);

// Checks input/output counts against the schema; the message names the node.
Status check_arity(const OpSchema& schema, const Node& node);

}  // namespace openge
