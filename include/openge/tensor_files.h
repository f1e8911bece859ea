// Tensors as files: NumPy .npy and ONNX's serialized protobufs (TensorProto for a tensor,
// SequenceProto / OptionalProto for a sequence or an optional: the input_<i>.pb / output_<i>.pb of
// ONNX's test cases and of `openge run --inputs/--outputs`). Files are untrusted input: every
// size is checked against the size-limit policy and the bytes the file really holds before
// anything is allocated, and a bad file is one error naming it. Writers write atomically
// (temporary name, then rename).
#pragma once
#include <cstddef>
#include <string>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

// .npy (format 1.0/2.0/3.0, little-endian, C order).
Result<Tensor> read_npy(const std::string& path);
// The same from bytes in memory (tests, the fuzzer).
Result<Tensor> read_npy_from_bytes(const void* data, size_t size, const std::string& name);
// bfloat16 tensors are stored as float32 (NumPy cannot name bf16).
Status write_npy(const Tensor& tensor, const std::string& path);

// A serialized TensorProto file; external data resolves against the file's folder.
Result<Tensor> read_tensor_pb(const std::string& path);
// The same from bytes in memory (tests, the fuzzer); `name` names them in messages. External
// data resolves against `base_dir`.
Result<Tensor> read_tensor_pb_from_bytes(const void* data, size_t size, const std::string& name,
                                         const std::string& base_dir);
// Strings into string_data, every other type as raw_data.
Status write_tensor_pb(const Tensor& tensor, const std::string& name, const std::string& path);

// A value of `kind` (the model declares it; the bytes alone do not say) with element type
// `elem` (an empty sequence or optional carries no element type of its own).
Result<Tensor> read_value_pb_from_bytes(const void* data, size_t size, ValueKind kind, DType elem,
                                        const std::string& name);
Result<Tensor> read_value_pb(const std::string& path, ValueKind kind, DType elem);
// A tensor, sequence or optional.
Status write_value_pb(const Tensor& value, const std::string& name, const std::string& path);

}  // namespace openge
