#include "openge/tensor_files.h"

#include <onnx/onnx-data_pb.h>  // SequenceProto, OptionalProto
#include <onnx/onnx_pb.h>

#include <limits>

#include "base/guard.h"
#include "frontend/tensor_proto.h"
#include "io/atomic_file.h"

namespace openge {
namespace {

// Every element of a sequence has the sequence's element type.
Result<Tensor> sequence_from_proto(const onnx::SequenceProto& proto, DType elem, const std::string& what) {
  if (proto.elem_type() != onnx::SequenceProto::TENSOR && proto.elem_type() != onnx::SequenceProto::UNDEFINED)
    return unsupported(what + ": a sequence of sequences, maps or optionals; OpenGE holds sequences of tensors");
  if (proto.elem_type() == onnx::SequenceProto::UNDEFINED && proto.tensor_values_size() > 0)
    return invalid_argument(what + ": a sequence with tensors but elem_type UNDEFINED");
  std::vector<Tensor> elements;
  for (int i = 0; i < proto.tensor_values_size(); ++i) {
    const std::string item = what + " element " + std::to_string(i);
    auto t = tensor_from_proto(proto.tensor_values(i), "", item);
    if (!t.ok()) return t.status();
    if (elem != DType::kUndefined && t->dtype() != elem)
      return invalid_argument(item + " is " + dtype_name(t->dtype()) + " but the sequence holds " + dtype_name(elem));
    elements.push_back(std::move(t.value()));
  }
  return Tensor::sequence(elem, std::move(elements));
}

Result<Tensor> optional_from_proto(const onnx::OptionalProto& proto, ValueKind kind, DType elem,
                                   const std::string& what) {
  const bool of_sequence = kind == ValueKind::kOptionalSequence;
  const bool has_value = of_sequence ? proto.has_sequence_value() : proto.has_tensor_value();
  if (!has_value) {
    if (proto.has_tensor_value() || proto.has_sequence_value() || proto.has_optional_value() || proto.has_map_value())
      return invalid_argument(what + ": the optional holds another kind of value than the model's " +
                              value_kind_name(kind));
    return Tensor::optional(kind, elem, Tensor());
  }
  auto value = of_sequence ? sequence_from_proto(proto.sequence_value(), elem, what)
                           : tensor_from_proto(proto.tensor_value(), "", what);
  if (!value.ok()) return value.status();
  if (elem != DType::kUndefined && value->dtype() != elem)
    return invalid_argument(what + " holds " + dtype_name(value->dtype()) + " but the model expects " +
                            dtype_name(elem));
  return Tensor::optional(kind, elem, std::move(value.value()));
}

void sequence_to_proto(const Tensor& seq, const std::string& name, onnx::SequenceProto& proto) {
  proto.set_name(name);
  proto.set_elem_type(onnx::SequenceProto::TENSOR);
  for (const Tensor& t : seq.elements()) tensor_to_proto(t, "", *proto.add_tensor_values());
}

}  // namespace

Result<Tensor> read_value_pb_from_bytes(const void* data, size_t size, ValueKind kind, DType elem,
                                        const std::string& name) {
  if (kind == ValueKind::kTensor) return read_tensor_pb_from_bytes(data, size, name, "");
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return invalid_argument(name + " is larger than 2 GiB, the limit of a serialized protobuf");
  return guard_exceptions(
      [&]() -> Result<Tensor> {
        if (kind == ValueKind::kSequence) {
          onnx::SequenceProto proto;
          if (!proto.ParseFromArray(data, static_cast<int>(size)))
            return invalid_argument(name + " is not a serialized ONNX SequenceProto (the model's input is a sequence)");
          return sequence_from_proto(proto, elem, name);
        }
        onnx::OptionalProto proto;
        if (!proto.ParseFromArray(data, static_cast<int>(size)))
          return invalid_argument(name + " is not a serialized ONNX OptionalProto (the model's input is an optional)");
        return optional_from_proto(proto, kind, elem, name);
      },
      name);
}

Result<Tensor> read_value_pb(const std::string& path, ValueKind kind, DType elem) {
  if (kind == ValueKind::kTensor) return read_tensor_pb(path);
  auto bytes = read_proto_file(path, "value file");
  if (!bytes.ok()) return bytes.status();
  return read_value_pb_from_bytes(bytes->data(), bytes->size(), kind, elem, "value file " + path);
}

Status write_value_pb(const Tensor& value, const std::string& name, const std::string& path) {
  switch (value.kind()) {
    case ValueKind::kTensor:
      return write_tensor_pb(value, name, path);
    case ValueKind::kSequence: {
      onnx::SequenceProto proto;
      sequence_to_proto(value, name, proto);
      return write_file_atomically(path, proto.SerializeAsString());
    }
    case ValueKind::kOptional:
    case ValueKind::kOptionalSequence: {
      onnx::OptionalProto proto;
      proto.set_name(name);
      const bool of_sequence = value.kind() == ValueKind::kOptionalSequence;
      proto.set_elem_type(of_sequence ? onnx::OptionalProto::SEQUENCE : onnx::OptionalProto::TENSOR);
      if (!value.elements().empty()) {
        if (of_sequence)
          sequence_to_proto(value.elements().front(), "", *proto.mutable_sequence_value());
        else
          tensor_to_proto(value.elements().front(), "", *proto.mutable_tensor_value());
      }
      return write_file_atomically(path, proto.SerializeAsString());
    }
  }
  return internal_error("value '" + name + "' has an unknown kind");
}

}  // namespace openge
