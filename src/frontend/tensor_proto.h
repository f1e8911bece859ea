// ONNX TensorProto <-> Tensor. Shared by the model loader (initializers, Constant nodes) and the
// CLI's input_<i>.pb / output_<i>.pb files.
#pragma once
#include <string>

#include "openge/status.h"
#include "openge/tensor.h"

namespace onnx { class TensorProto; }

namespace openge {

// Largest tensor OpenGE accepts from a file; protects against hostile dims.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 36;  // 64 GiB

// Converts a TensorProto. `base_dir` resolves external data (relative to the model's folder);
// `what` names the tensor in messages ("initializer 'conv1.weight'").
Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what);

// Reads a serialized TensorProto file.
Result<Tensor> read_tensor_pb(const std::string& path);
// Writes one atomically (temporary name, then rename).
Status write_tensor_pb(const Tensor& tensor, const std::string& name, const std::string& path);

// Checks dims (non-negative, product without overflow, size under kMaxTensorBytes).
Status check_dims(const Shape& dims, DType dtype, const std::string& what);

}  // namespace openge
