#include "io/npy.h"

#include <cstring>
#include <fstream>
#include <regex>

#include "frontend/tensor_proto.h"
#include "io/atomic_file.h"
#include "openge/half.h"

namespace openge {
namespace {

struct Descr { const char* code; DType dtype; };
// NumPy's type codes for the dtypes OpenGE holds.
constexpr Descr kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f2", DType::kFloat16}, {"<f8", DType::kFloat64}, {"|i1", DType::kInt8},
    {"<i2", DType::kInt16},   {"<i4", DType::kInt32},   {"<i8", DType::kInt64},   {"|u1", DType::kUInt8},
    {"<u2", DType::kUInt16},  {"<u4", DType::kUInt32},  {"<u8", DType::kUInt64},  {"|b1", DType::kBool},
};

}  // namespace

Result<Tensor> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open " + path);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return invalid_argument(path + " is not a .npy file (bad magic)");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) return invalid_argument(path + ": truncated .npy header");
    header_len = b[0] | (b[1] << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) return invalid_argument(path + ": truncated .npy header");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  } else {
    return invalid_argument(path + ": unsupported .npy version " + std::to_string(magic[6]));
  }
  if (header_len > (1u << 20)) return invalid_argument(path + ": .npy header too large");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) return invalid_argument(path + ": truncated .npy header");

  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    return invalid_argument(path + ": .npy header has no descr");
  std::string code = m[1];
  if (code == "<b1" || code == "b1") code = "|b1";
  if (code == "<i1") code = "|i1";
  if (code == "<u1") code = "|u1";
  DType dtype = DType::kUndefined;
  for (const auto& d : kDescrs)
    if (code == d.code) dtype = d.dtype;
  if (dtype == DType::kUndefined) return unsupported(path + ": .npy element type '" + code + "' is not supported");
  if (std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*True")))
    return unsupported(path + ": Fortran-ordered .npy files are not supported (save with np.ascontiguousarray)");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    return invalid_argument(path + ": .npy header has no shape");
  Shape shape;
  const std::string dims = m[1];
  static const std::regex kDigits("\\d+");
  for (std::sregex_iterator it(dims.begin(), dims.end(), kDigits), end; it != end; ++it) {
    try {
      shape.push_back(std::stoll(it->str()));
    } catch (const std::exception&) {
      return invalid_argument(path + ": .npy dimension '" + it->str() + "' is out of range");
    }
  }
  OPENGE_RETURN_IF_ERROR(check_dims(shape, dtype, path));
  // Compare with what the file holds before allocating what the header claims.
  const std::streampos data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const uint64_t available = static_cast<uint64_t>(in.tellg() - data_start);
  in.seekg(data_start);
  const uint64_t needed = static_cast<uint64_t>(shape_numel(shape)) * dtype_size(dtype);
  if (available < needed)
    return invalid_argument(path + ": the file holds " + std::to_string(available) + " data bytes but its shape " +
                            shape_to_string(shape) + " needs " + std::to_string(needed));
  Tensor t(dtype, shape);
  if (!in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(t.nbytes())))
    return invalid_argument(path + ": the file holds fewer bytes than its shape " + shape_to_string(shape) + " needs");
  return t;
}

Status write_npy(const Tensor& tensor, const std::string& path) {
  Tensor t = tensor;
  if (t.dtype() == DType::kBFloat16) {
    Tensor f(DType::kFloat32, t.shape());
    for (int64_t i = 0; i < t.numel(); ++i) f.data<float>()[i] = bf16_bits_to_float(t.data<uint16_t>()[i]);
    t = f;
  }
  const char* code = nullptr;
  for (const auto& d : kDescrs)
    if (d.dtype == t.dtype()) code = d.code;
  if (!code) return unsupported(std::string("cannot write ") + dtype_name(t.dtype()) + " as .npy");
  std::string shape = "(";
  for (int64_t d : t.shape()) shape += std::to_string(d) + ",";
  if (t.rank() > 1) shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + code + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(t.raw()), t.nbytes());
  return write_file_atomically(path, out);
}

}  // namespace openge
