// Checks a node against ONNX's own operator schemas (libonnx's registry, the one onnx.checker
// uses): the op exists in the model's opset, every attribute is one the op defines, with the
// declared type and its value present, and required attributes are given. `opset` is that of the
// node's domain (the default domain's, or e.g. ai.onnx.preview.training's).
#pragma once
#include <string>

#include "openge/status.h"

namespace onnx {
class NodeProto;
}

namespace openge {

Status check_node_against_onnx_schema(const onnx::NodeProto& node, int64_t opset, const std::string& label);

}  // namespace openge
