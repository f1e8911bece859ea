// Nodes that write into their inputs (ops/training/optimizer_update_op.h: the in-graph optimizer
// update) are correct only if they run after every other reader of what they write and if what
// they write is storage the caller keeps (a graph input). The compile pipeline calls this after
// the graph passes: it moves such nodes behind all others (their results feed only graph
// outputs, so the order stays topological) and refuses a graph that breaks the contract.
#pragma once
#include "ir/graph.h"
#include "openge/status.h"

namespace openge::compiler {

Status order_in_place_updates(Graph& g);

}  // namespace openge::compiler
