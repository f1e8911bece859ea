// The IR graph as an ONNX model, for graph dumps (DUMP_GE_GRAPH): the nodes of a compile stage
// with their attributes, the inferred dtype and shape of every value, and the weights, at the
// three detail levels of GE's DumpLevel (CANN_FORMATS.md §7.3).
#pragma once
#include "ir/graph.h"

namespace onnx {
class ModelProto;
}

namespace openge::graph_dump {

enum class Detail {
  kFull = 1,       // DUMP_GE_GRAPH=1: everything, weights included
  kNoWeights = 2,  // 2: weights keep their dtype and dims, not their data
  kMinimal = 3,    // 3: nodes and edges only: no attributes, no weights data, no inner value types
};

// Nodes keep their order; values without a name get none. Fused nodes carry `_fused_from`, and
// the precision pass's choices `_aicpu_only` / `_impl_mode`, as extra attributes (shown by Netron).
void graph_to_onnx(const Graph& graph, Detail detail, onnx::ModelProto& model);

}  // namespace openge::graph_dump
