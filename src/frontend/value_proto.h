// ONNX values that are not tensors, as files: SequenceProto (a sequence of tensors) and
// OptionalProto (an optional tensor or sequence), the input_<i>.pb / output_<i>.pb of ONNX's test
// cases and of `openge run --inputs/--outputs`. A tensor goes through tensor_proto.h.
#pragma once
#include <string>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

// Reads a value of `kind` (the model declares it; the bytes alone do not say) with element type
// `elem` (an empty sequence or optional carries no element type of its own).
Result<Tensor> read_value_pb_from_bytes(const void* data, size_t size, ValueKind kind, DType elem,
                                        const std::string& name);
Result<Tensor> read_value_pb(const std::string& path, ValueKind kind, DType elem);

// Writes a tensor, sequence or optional atomically (temporary name, then rename).
Status write_value_pb(const Tensor& value, const std::string& name, const std::string& path);

}  // namespace openge
