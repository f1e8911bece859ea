// ONNX AttributeProto -> Attribute, for every kind but graphs (the model loader reads subgraphs
// itself; a compiled model has none). Shared by the model loader and the .oge reader.
#pragma once
#include <string>

#include "ir/graph.h"

namespace onnx {
class AttributeProto;
}

namespace openge {

// `base_dir` resolves a tensor attribute's external data; `what` names the attribute in messages.
Result<Attribute> attribute_from_proto(const onnx::AttributeProto& proto, const std::string& base_dir,
                                       const std::string& what);

}  // namespace openge
