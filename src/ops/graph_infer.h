// Shape inference and constant folding over a whole graph, in node order: every node's infer
// (ops/op_context.h), and nodes whose inputs are all constant evaluated on the reference engine.
// The compile pipeline's first stage (compiler/infer_and_fold.cpp) and autodiff, which needs
// every value's type before it differentiates, both run it.
#pragma once
#include <cstddef>
#include <vector>

#include "ir/graph.h"
#include "ops/op_context.h"

namespace openge {

// What infer sees of a value, and of each input of a node (null for an omitted optional input;
// `infos` owns what `ptrs` points at).
ValueInfo info_of(const Value& v);
void input_infos(const Graph& g, const Node& node, std::vector<ValueInfo>& infos, std::vector<const ValueInfo*>& ptrs);

// Puts g.nodes in topological order and sets each output value's producer; an error names a node
// on a cycle.
Status sort_topologically(Graph& g);

// Runs `node`'s inference against the types `g` holds for its inputs and writes each output
// value's kind, dtype and shape (unknown: none); `folded`, when given, receives the output values
// inference itself knows (Shape of a static input …). An error names the node.
Status infer_node_types(Graph& g, const Node& node, std::vector<Tensor>* folded = nullptr);

// For nodes already in topological order: sets each output value's kind, dtype, shape and, for
// a foldable node, its constant. Results larger than `max_fold_bytes` are not folded; neither
// are nodes with subgraphs nor unseeded random ones. An error names the node.
Status infer_and_fold_nodes(Graph& g, size_t max_fold_bytes);

}  // namespace openge
