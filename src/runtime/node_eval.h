// Runs one node on concrete tensors with the AI CPU (reference) engine: inference, output
// allocation, kernel. Used for constant folding, for nodes whose shapes depend on data, and by
// op tests.
#pragma once
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"
#include "openge/tensor.h"
#include "ops/op_registry.h"

namespace openge {

// Infers output infos for `node` from concrete inputs (nullptr = omitted optional input).
Result<std::vector<ValueInfo>> infer_node(const OpSchema& schema, const Node& node, int64_t opset,
                                          const std::vector<const Tensor*>& inputs, std::vector<Tensor>* folded);

// Infers, allocates owned outputs and runs the reference kernel.
Result<std::vector<Tensor>> evaluate_node(const Node& node, int64_t opset, const std::vector<const Tensor*>& inputs);

// Checks input/output counts against the schema; the message names the node.
Status check_arity(const OpSchema& schema, const Node& node);

}  // namespace openge
