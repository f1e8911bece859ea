// The IR graph as an ONNX model, for graph dumps (DUMP_GE_GRAPH): the nodes of a compile stage
// with their attributes, the inferred dtype and shape of every value, and the weights, at the
// three detail levels of GE's DumpLevel (docs/FORMATS.md, "Graph dumps").
#pragma once
#include <cstdint>
#include <optional>

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

// The opset version a model imports for a node of a domain other than the default one, when the
// op table registers its op there (the training optimizers of ai.onnx.preview.training); nullopt
// otherwise (OpenGE's own fused ops, or an op the table puts elsewhere).
std::optional<int64_t> domain_opset(const Node& n);

// Nodes keep their order; every domain the nodes use is imported (OpenGE's own at version 1); values without a name get
// none. Fused nodes carry `_fused_from`, and the precision pass's choices `_aicpu_only` / `_impl_mode`, as extra
// attributes (shown by Netron). file_constants: weights that view an external_weight file (base/file_backed_memory.h)
// become FileConstant nodes naming the file (graph dumps); off, every weight is an initializer with its data (a .oge
// must carry its weights, not a temporary file's name).
void graph_to_onnx(const Graph& graph, Detail detail, onnx::ModelProto& model, bool file_constants = false);

}  // namespace openge::graph_dump
