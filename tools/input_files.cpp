#include "input_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "openge/tensor_files.h"

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

// A raw .bin holds the bytes only: its element type and shape are the model's, which must then
// be fixed, and its size must match them exactly.
Result<Tensor> read_raw_bin(const TensorInfo& info, const std::string& path) {
  if (info.kind != ValueKind::kTensor || info.dtype == DType::kString)
    return invalid_argument("input '" + info.name + "': a .bin file holds raw numbers; give " + path +
                            " as .pb for this input");
  for (int64_t d : info.shape)
    if (d < 0)
      return invalid_argument("input '" + info.name + "' has the open shape " + shape_to_string(info.shape) +
                              ", which a raw .bin cannot fix; give the data as .npy instead of " + path);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return io_error("cannot read " + path + ": " + ec.message());
  Tensor t(info.dtype, info.shape);
  if (size != t.nbytes())
    return invalid_argument(path + " holds " + std::to_string(size) + " bytes but input '" + info.name + "' (" +
                            dtype_name(info.dtype) + " " + shape_to_string(info.shape) + ") needs " +
                            std::to_string(t.nbytes()) + "; give a file of that size or a .npy");
  std::ifstream in(path, std::ios::binary);
  if (!in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(t.nbytes())))
    return io_error("cannot read " + path + ": " + std::strerror(errno));
  return t;
}

Status check_input(const TensorInfo& info, const Tensor& t, const std::string& source) {
  if (t.kind() != info.kind)
    return invalid_argument("input '" + info.name + "' from " + source + " is a " + value_kind_name(t.kind()) +
                            " but the model expects a " + value_kind_name(info.kind));
  if (info.kind != ValueKind::kTensor) return Status::Ok();  // read with the model's element type
  if (t.dtype() != info.dtype)
    return invalid_argument("input '" + info.name + "' from " + source + " is " + dtype_name(t.dtype()) +
                            " but the model expects " + dtype_name(info.dtype) + "; convert the file to " +
                            dtype_name(info.dtype));
  bool ok = info.shape.empty() || info.shape.size() == t.shape().size();
  for (size_t d = 0; ok && d < info.shape.size(); ++d) ok = info.shape[d] < 0 || info.shape[d] == t.shape()[d];
  if (!ok)
    return invalid_argument("input '" + info.name + "' from " + source + " has shape " + shape_to_string(t.shape()) +
                            " but the model expects " + shape_to_string(info.shape) + "; reshape the data to " +
                            shape_to_string(info.shape));
  return Status::Ok();
}

}  // namespace

Result<Tensor> read_input_file(const TensorInfo& info, const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return io_error("input file " + path + " does not exist; check the path given for input '" + info.name + "'");
  const std::string ext = fs::path(path).extension().string();
  Result<Tensor> t = invalid_argument("input file " + path + " must be .npy, .pb or .bin (raw bytes)");
  if (ext == ".npy")
    t = read_npy(path);
  else if (ext == ".pb")
    t = info.kind == ValueKind::kTensor ? read_tensor_pb(path) : read_value_pb(path, info.kind, info.dtype);
  else if (ext == ".bin")
    t = read_raw_bin(info, path);
  if (!t.ok()) return t.status();
  OPENGE_RETURN_IF_ERROR(check_input(info, *t, path));
  return t;
}

}  // namespace openge::cli
