#include "frontend/attribute_proto.h"

#include <onnx/onnx_pb.h>

#include "frontend/tensor_proto.h"

namespace openge {

Result<Attribute> attribute_from_proto(const onnx::AttributeProto& ap, const std::string& base_dir,
                                       const std::string& what) {
  Attribute a;
  switch (ap.type()) {
    case onnx::AttributeProto::FLOAT:
      a.kind = Attribute::Kind::kFloat;
      a.f = ap.f();
      break;
    case onnx::AttributeProto::INT:
      a.kind = Attribute::Kind::kInt;
      a.i = ap.i();
      break;
    case onnx::AttributeProto::STRING:
      a.kind = Attribute::Kind::kString;
      a.s = ap.s();
      break;
    case onnx::AttributeProto::FLOATS:
      a.kind = Attribute::Kind::kFloats;
      a.floats.assign(ap.floats().begin(), ap.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      a.kind = Attribute::Kind::kInts;
      a.ints.assign(ap.ints().begin(), ap.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      a.kind = Attribute::Kind::kStrings;
      a.strings.assign(ap.strings().begin(), ap.strings().end());
      break;
    case onnx::AttributeProto::TENSOR: {
      a.kind = Attribute::Kind::kTensor;
      auto t = tensor_from_proto(ap.t(), base_dir, what);
      if (!t.ok()) return t.status();
      a.t = std::move(t.value());
      break;
    }
    case onnx::AttributeProto::GRAPHS:
      return unsupported(what + " is a list of subgraphs, which no op OpenGE runs takes");
    default:
      return unsupported(what + " has attribute type " + std::to_string(ap.type()) + ", which OpenGE does not support");
  }
  return a;
}

}  // namespace openge
