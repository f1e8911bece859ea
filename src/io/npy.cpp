#include "io/npy.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>

#include "base/path_util.h"
#include "base/size_limit.h"
#include "io/atomic_file.h"
#include "openge/half.h"

namespace openge {
namespace {

struct Descr {
  const char* code;
  DType dtype;
};
// NumPy's type codes for the dtypes OpenGE holds.
constexpr Descr kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f2", DType::kFloat16}, {"<f8", DType::kFloat64}, {"|i1", DType::kInt8},
    {"<i2", DType::kInt16},   {"<i4", DType::kInt32},   {"<i8", DType::kInt64},   {"|u1", DType::kUInt8},
    {"<u2", DType::kUInt16},  {"<u4", DType::kUInt32},  {"<u8", DType::kUInt64},  {"|b1", DType::kBool},
};

// Single-byte types are written with '|' by NumPy; '<' and '=' mean the same for them.
constexpr std::pair<const char*, const char*> kDescrAliases[] = {
    {"<b1", "|b1"}, {"b1", "|b1"}, {"?", "|b1"}, {"|?", "|b1"}, {"<i1", "|i1"}, {"<u1", "|u1"},
};

constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
constexpr size_t kMaxRank = 64;  // far beyond any real array; keeps the shape text bounded

// A recursive-descent reader for the header dict NumPy writes:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Keys and strings in single or double quotes; the shape a tuple of non-negative integers.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  Result<NpyHeader> parse() {
    NpyHeader h;
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<Shape> shape;
    skip_space();
    if (!eat('{')) return fail("the header is not a dict");
    for (;;) {
      skip_space();
      if (eat('}')) break;
      auto key = string_literal();
      if (!key.ok()) return key.status();
      skip_space();
      if (!eat(':')) return fail("expected ':' after key '" + *key + "'");
      skip_space();
      if (*key == "descr") {
        if (descr) return fail("key 'descr' appears twice");
        auto v = string_literal();
        if (!v.ok()) return v.status();
        descr = *v;
      } else if (*key == "fortran_order") {
        if (fortran) return fail("key 'fortran_order' appears twice");
        if (eat_word("True"))
          fortran = true;
        else if (eat_word("False"))
          fortran = false;
        else
          return fail("'fortran_order' must be True or False");
      } else if (*key == "shape") {
        if (shape) return fail("key 'shape' appears twice");
        auto v = shape_tuple();
        if (!v.ok()) return v.status();
        shape = std::move(v.value());
      } else {
        return fail("unexpected key '" + *key + "' (a .npy header has descr, fortran_order and shape)");
      }
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat('}')) break;
      return fail("expected ',' or '}' in the header dict");
    }
    if (!descr) return fail("the header has no 'descr'");
    if (!fortran) return fail("the header has no 'fortran_order'");
    if (!shape) return fail("the header has no 'shape'");
    std::string code = *descr;
    for (const auto& [alias, canonical] : kDescrAliases)
      if (code == alias) code = canonical;
    for (const auto& d : kDescrs)
      if (code == d.code) h.dtype = d.dtype;
    if (h.dtype == DType::kUndefined)
      return unsupported(name_ + ": .npy element type '" + *descr + "' is not supported");
    if (*fortran)
      return unsupported(name_ + ": Fortran-ordered .npy files are not supported (save with np.ascontiguousarray)");
    h.shape = std::move(*shape);
    return h;
  }

 private:
  Status fail(const std::string& what) const {
    return invalid_argument(name_ + ": bad .npy header at byte " + std::to_string(pos_) + ": " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eat_word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  Result<std::string> string_literal() {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return fail("expected a quoted string");
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    if (end == std::string_view::npos) return fail("unterminated string");
    std::string v(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return v;
  }
  // (), (5,), (2, 3) — every element a non-negative decimal integer that fits in int64.
  Result<Shape> shape_tuple() {
    if (!eat('(')) return fail("'shape' must be a tuple");
    Shape shape;
    for (;;) {
      skip_space();
      if (eat(')')) return shape;
      if (shape.size() >= kMaxRank) return fail("'shape' has more than " + std::to_string(kMaxRank) + " dimensions");
      const size_t start = pos_;
      if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      const std::string_view token = s_.substr(start, pos_ - start);
      if (token.empty() || token == "-" || token == "+") return fail("'shape' holds something that is not an integer");
      if (token[0] == '-')
        return invalid_argument(name_ + ": .npy shape has a negative dimension " + std::string(token));
      uint64_t v = 0;
      for (char c : token.substr(token[0] == '+' ? 1 : 0)) {
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10)
          return invalid_argument(name_ + ": .npy dimension " + std::string(token) + " is out of range");
        v = v * 10 + digit;
      }
      shape.push_back(static_cast<int64_t>(v));
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat(')')) return shape;
      return fail("expected ',' or ')' in 'shape'");
    }
  }

  std::string_view s_;
  const std::string& name_;
  size_t pos_ = 0;
};

// Bytes before the header dict (magic, version, length field) for a version, 0 if unknown.
size_t prefix_bytes(unsigned char major) { return major == 1 ? 10 : (major == 2 || major == 3) ? 12 : 0; }

}  // namespace

Result<NpyHeader> parse_npy_header(const void* data, size_t size, const std::string& name) {
  const auto* b = static_cast<const unsigned char*>(data);
  if (size < 8 || std::memcmp(b, "\x93NUMPY", 6) != 0)
    return invalid_argument(name + " is not a .npy file (bad magic)");
  const size_t prefix = prefix_bytes(b[6]);
  if (!prefix) return invalid_argument(name + ": unsupported .npy version " + std::to_string(b[6]));
  if (size < prefix) return invalid_argument(name + ": truncated .npy header");
  size_t header_len = b[8] | (b[9] << 8);
  if (prefix == 12) header_len |= (static_cast<size_t>(b[10]) << 16) | (static_cast<size_t>(b[11]) << 24);
  if (header_len > kMaxHeaderBytes) return invalid_argument(name + ": .npy header too large");
  if (size - prefix < header_len) return invalid_argument(name + ": truncated .npy header");
  const std::string_view text(reinterpret_cast<const char*>(b + prefix), header_len);
  auto header = HeaderParser(text, name).parse();
  if (!header.ok()) return header.status();
  header->data_offset = prefix + header_len;
  OPENGE_RETURN_IF_ERROR(check_tensor_size(header->shape, dtype_size(header->dtype), name + ": the array"));
  return header;
}

namespace {

// Checks that `available` data bytes hold the array, then allocates it and lets `read` fill it.
template <class ReadFn>
Result<Tensor> read_array(const NpyHeader& h, uint64_t available, const std::string& name, ReadFn read) {
  const uint64_t needed = static_cast<uint64_t>(shape_numel(h.shape)) * dtype_size(h.dtype);
  if (available < needed)
    return invalid_argument(name + ": the file holds " + std::to_string(available) + " data bytes but its shape " +
                            shape_to_string(h.shape) + " needs " + std::to_string(needed));
  Tensor t(h.dtype, h.shape);
  if (needed && !read(t.raw(), needed))
    return invalid_argument(name + ": the file holds fewer bytes than its shape " + shape_to_string(h.shape) +
                            " needs");
  return t;
}

}  // namespace

Result<Tensor> read_npy_from_bytes(const void* data, size_t size, const std::string& name) {
  auto h = parse_npy_header(data, size, name);
  if (!h.ok()) return h.status();
  const char* start = static_cast<const char*>(data) + h->data_offset;
  return read_array(*h, size - h->data_offset, name, [&](void* dst, uint64_t n) {
    std::memcpy(dst, start, n);
    return true;
  });
}

Result<Tensor> read_npy(const std::string& path) {
  OPENGE_RETURN_IF_ERROR(require_regular_file(path, ".npy file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open " + path);
  // The fixed prefix first, then exactly the header it announces.
  std::string head(12, '\0');
  in.read(head.data(), 12);
  head.resize(static_cast<size_t>(in.gcount()));
  in.clear();
  if (head.size() >= 8 && std::memcmp(head.data(), "\x93NUMPY", 6) == 0) {
    const size_t prefix = prefix_bytes(static_cast<unsigned char>(head[6]));
    if (prefix && head.size() >= prefix) {
      size_t header_len = static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8);
      if (prefix == 12)
        header_len |= (static_cast<size_t>(static_cast<unsigned char>(head[10])) << 16) |
                      (static_cast<size_t>(static_cast<unsigned char>(head[11])) << 24);
      if (header_len <= kMaxHeaderBytes) {
        head.resize(prefix + header_len);
        in.seekg(static_cast<std::streamoff>(prefix));
        in.read(head.data() + prefix, static_cast<std::streamsize>(header_len));
        head.resize(prefix + static_cast<size_t>(in.gcount()));
        in.clear();
      }
    }
  }
  auto h = parse_npy_header(head.data(), head.size(), path);
  if (!h.ok()) return h.status();
  in.seekg(0, std::ios::end);
  const std::streamoff file_size = in.tellg();
  if (file_size < 0) return io_error("cannot read " + path);
  const uint64_t available = static_cast<uint64_t>(file_size) - std::min<uint64_t>(file_size, h->data_offset);
  in.seekg(static_cast<std::streamoff>(h->data_offset));
  return read_array(*h, available, path, [&](void* dst, uint64_t n) {
    return static_cast<bool>(in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n)));
  });
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
