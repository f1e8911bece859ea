#include "frontend/tensor_proto.h"

#include <onnx/onnx_pb.h>  // defines ONNX_API before including the generated onnx-ml.pb.h

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "base/guard.h"
#include "base/mapped_file.h"
#include "base/path_util.h"
#include "base/size_limit.h"
#include "io/atomic_file.h"
#include "openge/half.h"

namespace openge {
namespace fs = std::filesystem;

Status check_dims(const Shape& dims, DType dtype, const std::string& what) {
  // A string element is a std::string, however short the text.
  return check_tensor_size(dims, dtype == DType::kString ? sizeof(std::string) : dtype_size(dtype), what);
}

namespace {

// A decimal byte count, the whole string ("12", not "1e9x" or "-1").
std::optional<uint64_t> parse_byte_count(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

// Reads `length` bytes at `offset` of an external-data file, which must lie inside the model's
// folder (as the ONNX checker requires), into `out`.
Result<Tensor> read_external(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what,
                             DType dtype, const Shape& dims) {
  const uint64_t needed = static_cast<uint64_t>(shape_numel(dims)) * dtype_size(dtype);
  std::string location;
  uint64_t offset = 0, length = needed;
  bool has_length = false;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      const auto n = parse_byte_count(entry.value());
      if (!n)
        return invalid_model(what + ": external data field '" + entry.key() + "' is not a byte count: '" +
                             entry.value() + "'");
      if (entry.key() == "offset")
        offset = *n;
      else {
        length = *n;
        has_length = true;
      }
    }
  }
  if (location.empty()) return invalid_model(what + ": external data has no location");
  const fs::path rel(location);
  if (rel.is_absolute() || location.find("..") != std::string::npos)
    return invalid_model(what + ": external data location '" + location +
                         "' must be a relative path inside the model's folder");
  if (has_length && length != needed)
    return invalid_model(what + ": external data length " + std::to_string(length) + " does not match the " +
                         std::to_string(needed) + " bytes its dims and type need");
  const fs::path file = fs::path(base_dir) / rel;
  // Resolve links too: a symlink inside the folder must not lead outside it.
  std::error_code link_ec;
  const fs::path real_base = fs::weakly_canonical(fs::path(base_dir), link_ec);
  const fs::path real_file = fs::weakly_canonical(file, link_ec);
  const std::string base_text = real_base.string() + "/";
  if (link_ec || real_file.string().compare(0, base_text.size(), base_text) != 0)
    return invalid_model(what + ": external data location '" + location + "' resolves to " + real_file.string() +
                         ", outside the model's folder");
  OPENGE_RETURN_IF_ERROR(require_regular_file(file.string(), "external data file").with_context(what));
  std::ifstream in(file, std::ios::binary);
  if (!in) return io_error(what + ": cannot open external data file " + file.string());
  std::error_code ec;
  const uint64_t file_size = fs::file_size(file, ec);
  if (ec || offset > file_size || needed > file_size - offset)
    return invalid_model(what + ": external data file " + file.string() + " is too short for offset " +
                         std::to_string(offset) + " + " + std::to_string(needed) + " bytes");
  Tensor out(dtype, dims);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(out.raw()), static_cast<std::streamsize>(out.nbytes()));
  if (!in) return io_error(what + ": reading external data file " + file.string() + " failed");
  return out;
}

// How many values the typed field for `dtype` holds (the field ONNX stores that type in).
int typed_value_count(const onnx::TensorProto& proto, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return proto.float_data_size();
    case DType::kFloat64:
      return proto.double_data_size();
    case DType::kInt64:
      return proto.int64_data_size();
    case DType::kUInt32:
    case DType::kUInt64:
      return proto.uint64_data_size();
    default:
      return proto.int32_data_size();
  }
}

template <class Src, class Fn>
Status copy_typed(const Src& field, Tensor& out, const std::string& what, const char* field_name, Fn convert) {
  if (static_cast<int64_t>(field.size()) != out.numel())
    return invalid_model(what + " has " + std::to_string(field.size()) + " values in " + field_name + " but its dims " +
                         shape_to_string(out.shape()) + " need " + std::to_string(out.numel()));
  for (int i = 0; i < field.size(); ++i) convert(i, field.Get(i));
  return Status::Ok();
}

// A string tensor: string_data only (ONNX stores strings nowhere else), one entry per element.
Result<Tensor> strings_from_proto(const onnx::TensorProto& proto, bool has_raw_data, const std::string& what) {
  Shape dims(proto.dims().begin(), proto.dims().end());
  OPENGE_RETURN_IF_ERROR(check_dims(dims, DType::kString, what));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || has_raw_data)
    return invalid_model(what + ": a string tensor keeps its values in string_data (not raw_data or external data)");
  if (proto.string_data_size() != shape_numel(dims))
    return invalid_model(what + " has " + std::to_string(proto.string_data_size()) + " strings but its dims " +
                         shape_to_string(dims) + " need " + std::to_string(shape_numel(dims)));
  Tensor t(DType::kString, dims);
  for (int i = 0; i < proto.string_data_size(); ++i) t.data<std::string>()[i] = proto.string_data(i);
  return t;
}

}  // namespace

void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto) {
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t d : tensor.shape()) proto.add_dims(d);
  if (tensor.dtype() == DType::kString) {
    for (int64_t i = 0; i < tensor.numel(); ++i) proto.add_string_data(tensor.data<std::string>()[i]);
    return;
  }
  proto.set_raw_data(tensor.raw(), tensor.nbytes());
}

Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what,
                                 const std::optional<OutsideRawData>& raw_data_outside) {
  const bool has_raw_data = raw_data_outside.has_value() || proto.has_raw_data();
  const DType dtype = static_cast<DType>(proto.data_type());
  if (dtype == DType::kString) return strings_from_proto(proto, has_raw_data, what);
  if (!dtype_supported(dtype))
    return unsupported(what + " has element type " + std::to_string(proto.data_type()) + " (" + dtype_name(dtype) +
                       "), which OpenGE does not support");
  Shape dims(proto.dims().begin(), proto.dims().end());
  OPENGE_RETURN_IF_ERROR(check_dims(dims, dtype, what));
  if (proto.has_segment()) return unsupported(what + " is a segmented tensor, which OpenGE does not support");
  // Every size is checked against the data the file really holds before anything is
  // allocated: a hostile file must not make OpenGE allocate what it declares but lacks.
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) return read_external(proto, base_dir, what, dtype, dims);
  const int64_t numel = shape_numel(dims);
  const uint64_t nbytes = static_cast<uint64_t>(numel) * dtype_size(dtype);
  if (has_raw_data) {
    const std::string_view raw = raw_data_outside ? raw_data_outside->bytes : std::string_view(proto.raw_data());
    if (raw.size() != nbytes)
      return invalid_model(what + " has " + std::to_string(raw.size()) + " bytes of raw_data but its dims " +
                           shape_to_string(dims) + " and type " + dtype_name(dtype) + " need " +
                           std::to_string(nbytes));
    Tensor t(dtype, dims);
    if (raw_data_outside && raw_data_outside->file)
      raw_data_outside->file->copy_releasing(raw_data_outside->file_offset, nbytes, t.raw());
    else if (nbytes)
      std::memcpy(t.raw(), raw.data(), nbytes);
    return t;
  }
  if (typed_value_count(proto, dtype) != numel)
    return invalid_model(what + " has " + std::to_string(typed_value_count(proto, dtype)) + " values but its dims " +
                         shape_to_string(dims) + " need " + std::to_string(numel));
  Tensor t(dtype, dims);
  Status s;
  switch (dtype) {
    case DType::kFloat32:
      s = copy_typed(proto.float_data(), t, what, "float_data", [&](int i, float v) { t.data<float>()[i] = v; });
      break;
    case DType::kFloat64:
      s = copy_typed(proto.double_data(), t, what, "double_data", [&](int i, double v) { t.data<double>()[i] = v; });
      break;
    case DType::kInt64:
      s = copy_typed(proto.int64_data(), t, what, "int64_data", [&](int i, int64_t v) { t.data<int64_t>()[i] = v; });
      break;
    case DType::kUInt32:
    case DType::kUInt64:
      s = copy_typed(proto.uint64_data(), t, what, "uint64_data", [&](int i, uint64_t v) {
        if (dtype == DType::kUInt32)
          t.data<uint32_t>()[i] = static_cast<uint32_t>(v);
        else
          t.data<uint64_t>()[i] = v;
      });
      break;
    default:
      // int32_data carries every type of 32 bits or fewer, fp16/bf16 as their bit patterns.
      s = copy_typed(proto.int32_data(), t, what, "int32_data", [&](int i, int32_t v) {
        switch (dtype_size(dtype)) {
          case 1:
            t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
            break;
          case 2:
            t.data<uint16_t>()[i] = static_cast<uint16_t>(v);
            break;
          default:
            t.data<int32_t>()[i] = v;
            break;
        }
      });
      break;
  }
  if (!s.ok()) return s;
  return t;
}

Result<Tensor> read_tensor_pb_from_bytes(const void* data, size_t size, const std::string& name,
                                         const std::string& base_dir) {
  // Protobuf's parser refuses messages over 2 GiB; say so before it tries.
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return invalid_argument(name + " is larger than 2 GiB, the limit of a serialized TensorProto");
  return guard_exceptions(
      [&]() -> Result<Tensor> {
        onnx::TensorProto proto;
        if (!proto.ParseFromArray(data, static_cast<int>(size)))
          return invalid_argument(name + " is not a serialized ONNX TensorProto");
        return tensor_from_proto(proto, base_dir, name);
      },
      name);
}

Result<std::string> read_proto_file(const std::string& path, const std::string& what) {
  OPENGE_RETURN_IF_ERROR(require_regular_file(path, what));
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return io_error("cannot open " + what + " " + path + ": " + ec.message());
  if (size > static_cast<uintmax_t>(std::numeric_limits<int>::max()))
    return invalid_argument(what + " " + path + " is larger than 2 GiB, the limit of a serialized protobuf message");
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open " + what + " " + path);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
    return io_error("reading " + what + " " + path + " failed (it changed while being read?)");
  return bytes;
}

Result<Tensor> read_tensor_pb(const std::string& path) {
  auto bytes = read_proto_file(path, "tensor file");
  if (!bytes.ok()) return bytes.status();
  return read_tensor_pb_from_bytes(bytes->data(), bytes->size(), "tensor file " + path,
                                   fs::path(path).parent_path().string());
}

Status write_tensor_pb(const Tensor& tensor, const std::string& name, const std::string& path) {
  onnx::TensorProto proto;
  tensor_to_proto(tensor, name, proto);
  return write_file_atomically(path, proto.SerializeAsString());
}

}  // namespace openge
