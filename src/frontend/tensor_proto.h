// ONNX TensorProto <-> Tensor. Shared by the model loader (initializers, Constant nodes) and the
// CLI's input_<i>.pb / output_<i>.pb files.
#pragma once
#include <string>

#include "openge/status.h"
#include "openge/tensor.h"

namespace onnx { class TensorProto; }

namespace openge {

// Converts a TensorProto. `base_dir` resolves external data (relative to the model's folder);
// `what` names the tensor in messages ("initializer 'conv1.weight'").
Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what);

// The reverse (strings into string_data, every other type as raw_data).
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto);

// The bytes of a serialized protobuf file (`what` names it: "tensor file"), refused over 2 GiB.
Result<std::string> read_proto_file(const std::string& path, const std::string& what);

// Reads a serialized TensorProto file.
Result<Tensor> read_tensor_pb(const std::string& path);
// The same from bytes in memory (tests, the fuzzer); `name` names them in messages. External
// data resolves against `base_dir`.
Result<Tensor> read_tensor_pb_from_bytes(const void* data, size_t size, const std::string& name,
                                         const std::string& base_dir);
// Writes one atomically (temporary name, then rename).
Status write_tensor_pb(const Tensor& tensor, const std::string& name, const std::string& path);

// Checks dims against the size-limit policy (base/size_limit.h): non-negative, product without
// overflow, size at most max_tensor_bytes().
Status check_dims(const Shape& dims, DType dtype, const std::string& what);

}  // namespace openge
