#include "frontend/onnx_schema_check.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

namespace openge {
namespace {

const char* attribute_type_name(onnx::AttributeProto::AttributeType t) {
  switch (t) {
    case onnx::AttributeProto::FLOAT:
      return "float";
    case onnx::AttributeProto::INT:
      return "int";
    case onnx::AttributeProto::STRING:
      return "string";
    case onnx::AttributeProto::TENSOR:
      return "tensor";
    case onnx::AttributeProto::GRAPH:
      return "graph";
    case onnx::AttributeProto::FLOATS:
      return "floats";
    case onnx::AttributeProto::INTS:
      return "ints";
    case onnx::AttributeProto::STRINGS:
      return "strings";
    default:
      return "other";
  }
}

// A scalar attribute must carry the field of its declared type.
bool value_present(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT:
      return a.has_f();
    case onnx::AttributeProto::INT:
      return a.has_i();
    case onnx::AttributeProto::STRING:
      return a.has_s();
    case onnx::AttributeProto::TENSOR:
      return a.has_t();
    case onnx::AttributeProto::GRAPH:
      return a.has_g();
    default:
      return true;  // lists may be empty
  }
}

}  // namespace

Status check_node_against_onnx_schema(const onnx::NodeProto& node, int64_t opset, const std::string& label) {
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  const std::string domain = default_domain ? onnx::ONNX_DOMAIN : node.domain();
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), domain);
  if (!schema)
    return invalid_model("node " + label + ": op " + node.op_type() + " does not exist in ONNX opset " +
                         std::to_string(opset) + (default_domain ? "" : " of domain " + domain));
  // Inputs that later opsets added (Unsqueeze's axes, Pad's pads …) do not exist in older ones.
  if (node.input_size() > schema->max_input())
    return invalid_model("node " + label + " has " + std::to_string(node.input_size()) + " inputs; " + node.op_type() +
                         " (opset " + std::to_string(opset) + ") takes at most " + std::to_string(schema->max_input()));
  const auto& defined = schema->attributes();
  for (const auto& a : node.attribute()) {
    auto it = defined.find(a.name());
    if (it == defined.end()) {
      std::string known;
      for (const auto& [name, _] : defined) known += (known.empty() ? "" : ", ") + name;
      return invalid_model("node " + label + ": " + node.op_type() + " (opset " + std::to_string(opset) +
                           ") has no attribute '" + a.name() + "' (it has: " + (known.empty() ? "none" : known) + ")");
    }
    if (a.type() != it->second.type)
      return invalid_model("node " + label + ": attribute '" + a.name() + "' must be of type " +
                           attribute_type_name(it->second.type) + ", the model gives " + attribute_type_name(a.type()));
    if (!value_present(a))
      return invalid_model("node " + label + ": attribute '" + a.name() + "' declares type " +
                           attribute_type_name(a.type()) + " but carries no such value");
  }
  for (const auto& [name, attr] : defined) {
    if (!attr.required) continue;
    bool given = false;
    for (const auto& a : node.attribute()) given = given || a.name() == name;
    if (!given) return invalid_model("node " + label + ": required attribute '" + name + "' is missing");
  }
  return Status::Ok();
}

}  // namespace openge
