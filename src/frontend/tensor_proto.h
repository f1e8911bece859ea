// ONNX TensorProto <-> Tensor. Shared by the model loader (initializers, Constant nodes) and the
// CLI's input_<i>.pb / output_<i>.pb files.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "openge/tensor_files.h"  // read_tensor_pb, write_tensor_pb
#include "openge/status.h"
#include "openge/tensor.h"

namespace onnx {
class TensorProto;
}

namespace openge {

class MappedFile;

// A tensor's raw_data that the loader kept out of the parsed message (initializer_split.h): its
// bytes, and the mapped file they lie in (or null), whose pages are given back as they are copied.
struct OutsideRawData {
  std::string_view bytes;
  const MappedFile* file = nullptr;
  size_t file_offset = 0;
};

// Converts a TensorProto. `base_dir` resolves external data (relative to the model's folder);
// `what` names the tensor in messages ("initializer 'conv1.weight'"). `raw_data_outside`, when
// given, is the tensor's raw_data.
Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what,
                                 const std::optional<OutsideRawData>& raw_data_outside = std::nullopt);

// The reverse (strings into string_data, every other type as raw_data).
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto);

// The bytes of a serialized protobuf file (`what` names it: "tensor file"), refused over 2 GiB.
Result<std::string> read_proto_file(const std::string& path, const std::string& what);

// Checks dims against the size-limit policy (base/size_limit.h): non-negative, product without
// overflow, size at most max_tensor_bytes().
Status check_dims(const Shape& dims, DType dtype, const std::string& what);

}  // namespace openge
