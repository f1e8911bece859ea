#include "frontend/model_writer.h"

#include <onnx/onnx_pb.h>

#include <set>

#include "frontend/tensor_proto.h"
#include "io/atomic_file.h"

namespace openge {

Status write_model_with_initializers(const std::string& source, const std::map<std::string, Tensor>& values,
                                     const std::string& path) {
  auto bytes = read_proto_file(source, "model");
  if (!bytes.ok()) return bytes.status();
  onnx::ModelProto model;
  if (!model.ParseFromString(*bytes)) return invalid_model("model " + source + " is not a valid ONNX file");
  std::set<std::string> written;
  for (onnx::TensorProto& init : *model.mutable_graph()->mutable_initializer()) {
    auto it = values.find(init.name());
    if (it == values.end()) continue;
    const std::string name = init.name();
    init.Clear();  // external data and old dims go with it
    tensor_to_proto(it->second, name, init);
    written.insert(name);
  }
  for (const auto& [name, value] : values)
    if (!written.count(name)) return invalid_argument("'" + name + "' is not an initializer of " + source);
  std::string out;
  if (!model.SerializeToString(&out)) return io_error("could not serialize the model for " + path);
  return write_file_atomically(path, out);
}

}  // namespace openge
