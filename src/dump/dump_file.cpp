#include "dump/dump_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/file_modes.h"
#include "base/path_util.h"
#include "base/size_limit.h"
#include "src/dump/dump_data.pb.h"
#include "io/atomic_file.h"

namespace openge::dump {
namespace pb = toolkit::dumpdata;

namespace {

// OpenGE dtypes and CANN's OutputDataType (docs/FORMATS.md, "Data Dump: dump_data.proto header").
struct DTypeRow {
  DType dtype;
  pb::OutputDataType cann;
};
constexpr DTypeRow kDTypes[] = {
    {DType::kFloat32, pb::DT_FLOAT}, {DType::kFloat16, pb::DT_FLOAT16}, {DType::kInt8, pb::DT_INT8},
    {DType::kUInt8, pb::DT_UINT8},   {DType::kInt16, pb::DT_INT16},     {DType::kUInt16, pb::DT_UINT16},
    {DType::kInt32, pb::DT_INT32},   {DType::kInt64, pb::DT_INT64},     {DType::kUInt32, pb::DT_UINT32},
    {DType::kUInt64, pb::DT_UINT64}, {DType::kBool, pb::DT_BOOL},       {DType::kFloat64, pb::DT_DOUBLE},
    {DType::kBFloat16, pb::DT_BF16},
};

pb::OutputDataType to_cann(DType t) {
  for (const auto& row : kDTypes)
    if (row.dtype == t) return row.cann;
  return pb::DT_UNDEFINED;
}

DType from_cann(int t) {
  for (const auto& row : kDTypes)
    if (row.cann == t) return row.dtype;
  return DType::kUndefined;
}

// ONNX tensors are row-major: 4-D ones are NCHW, the rest ND.
pb::OutputFormat format_of(const Tensor& t) { return t.rank() == 4 ? pb::FORMAT_NCHW : pb::FORMAT_ND; }

template <class Message>
void describe(const Tensor& t, Message* m) {
  if (!t.defined()) return;  // an omitted optional input: DT_UNDEFINED, size 0
  m->set_data_type(to_cann(t.dtype()));
  m->set_format(format_of(t));
  for (int64_t d : t.shape()) {
    m->mutable_shape()->add_dim(static_cast<uint64_t>(d));
    m->mutable_original_shape()->add_dim(static_cast<uint64_t>(d));
  }
  m->set_size(t.nbytes());
}

// One input or output of a file being read: its dtype and shape, checked against its size.
template <class Message>
Result<Tensor> tensor_from(const Message& m, const char* what, int index, const std::string& name,
                           const uint8_t*& cursor, const uint8_t* end) {
  const std::string label = name + ": " + what + " " + std::to_string(index);
  if (m.data_type() == pb::DT_UNDEFINED && m.size() == 0) return Tensor();
  const DType dtype = from_cann(m.data_type());
  if (dtype == DType::kUndefined)
    return invalid_argument(label + " has data type " + std::to_string(m.data_type()) + ", which OpenGE cannot hold");
  Shape shape;
  for (uint64_t d : m.shape().dim()) {
    if (d > static_cast<uint64_t>(INT64_MAX))
      return invalid_argument(label + ": dimension " + std::to_string(d) + " is too large");
    shape.push_back(static_cast<int64_t>(d));
  }
  OPENGE_RETURN_IF_ERROR(check_tensor_size(shape, dtype_size(dtype), label));
  const uint64_t bytes = static_cast<uint64_t>(shape_numel(shape)) * dtype_size(dtype);
  if (m.size() != bytes)
    return invalid_argument(label + ": size " + std::to_string(m.size()) + " does not match its shape " +
                            shape_to_string(shape) + " (" + std::to_string(bytes) + " bytes)");
  if (static_cast<uint64_t>(end - cursor) < bytes)
    return invalid_argument(label + ": the file ends " + std::to_string(bytes - static_cast<uint64_t>(end - cursor)) +
                            " bytes before its data does (truncated?)");
  Tensor t(dtype, shape);
  if (bytes) std::memcpy(t.raw(), cursor, bytes);
  cursor += bytes;
  return t;
}

}  // namespace

Status write_dump_file(const std::string& path, const DumpRecord& record) {
  pb::DumpData data;
  data.set_version("2.0");
  data.set_dump_time(record.dump_time_us);
  data.set_op_name(record.op_name);
  for (const Tensor& t : record.inputs) describe(t, data.add_input());
  for (size_t o = 0; o < record.outputs.size(); ++o) {
    pb::OpOutput* out = data.add_output();
    describe(record.outputs[o], out);
    const bool known = o < record.original_outputs.size() && !record.original_outputs[o].name.empty();
    out->mutable_original_op()->set_name(known ? record.original_outputs[o].name : record.op_name);
    out->mutable_original_op()->set_output_index(known ? record.original_outputs[o].output_index
                                                       : static_cast<uint32_t>(o));
    out->mutable_original_op()->set_data_type(out->data_type());
    out->mutable_original_op()->set_format(out->format());
  }
  for (const Tensor& b : record.buffers) {
    pb::OpBuffer* buffer = data.add_buffer();
    buffer->set_buffer_type(pb::L1);
    buffer->set_size(b.nbytes());
  }
  const std::string header = data.SerializeAsString();
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  std::vector<std::string_view> pieces = {{reinterpret_cast<const char*>(length), 8}, header};
  for (const auto* list : {&record.inputs, &record.outputs, &record.buffers})
    for (const Tensor& t : *list)
      if (t.defined() && t.nbytes()) pieces.emplace_back(static_cast<const char*>(t.raw()), t.nbytes());
  return write_file_atomically(path, pieces, kPrivateFileMode);
}

namespace {

// The 8-byte header length of a file of `size` bytes starting with `begin`, checked against it.
Result<uint64_t> header_length(const uint8_t* begin, uint64_t size, const std::string& name) {
  if (size < 8) return invalid_argument(name + ": not a dump file: shorter than its 8-byte header length");
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= static_cast<uint64_t>(begin[i]) << (8 * i);
  if (header_len > size - 8)
    return invalid_argument(name + ": not a dump file: header length " + std::to_string(header_len) +
                            " exceeds the file (" + std::to_string(size) + " bytes)");
  if (header_len > static_cast<uint64_t>(INT32_MAX))
    return invalid_argument(name + ": not a dump file: header length " + std::to_string(header_len) + " is too large");
  return header_len;
}

DumpRecord record_of_header(const pb::DumpData& data) {
  DumpRecord record;
  record.op_name = data.op_name();
  record.dump_time_us = data.dump_time();
  for (const pb::OpOutput& out : data.output())
    record.original_outputs.push_back({out.original_op().name(), out.original_op().output_index()});
  return record;
}

}  // namespace

Result<DumpRecord> read_dump_bytes(const void* bytes, size_t size, const std::string& name) {
  const auto* begin = static_cast<const uint8_t*>(bytes);
  const uint8_t* end = begin + size;
  auto header_len = header_length(begin, size, name);
  if (!header_len.ok()) return header_len.status();
  pb::DumpData data;
  if (!data.ParseFromArray(begin + 8, static_cast<int>(*header_len)))
    return invalid_argument(name + ": not a dump file: its header is not a DumpData protobuf");
  DumpRecord record = record_of_header(data);
  const uint8_t* cursor = begin + 8 + *header_len;
  for (int i = 0; i < data.input_size(); ++i) {
    auto t = tensor_from(data.input(i), "input", i, name, cursor, end);
    if (!t.ok()) return t.status();
    record.inputs.push_back(std::move(t.value()));
  }
  for (int i = 0; i < data.output_size(); ++i) {
    auto t = tensor_from(data.output(i), "output", i, name, cursor, end);
    if (!t.ok()) return t.status();
    record.outputs.push_back(std::move(t.value()));
  }
  for (int i = 0; i < data.buffer_size(); ++i) {
    const uint64_t bytes = data.buffer(i).size();
    const std::string label = name + ": buffer " + std::to_string(i);
    if (bytes > static_cast<uint64_t>(INT64_MAX))
      return invalid_argument(label + ": size " + std::to_string(bytes) + " is too large");
    OPENGE_RETURN_IF_ERROR(check_tensor_size({static_cast<int64_t>(bytes)}, 1, label));
    if (static_cast<uint64_t>(end - cursor) < bytes)
      return invalid_argument(label + ": the file ends " + std::to_string(bytes - static_cast<uint64_t>(end - cursor)) +
                              " bytes before its data does (truncated?)");
    Tensor b(DType::kUInt8, {static_cast<int64_t>(bytes)});
    if (bytes) std::memcpy(b.raw(), cursor, bytes);
    cursor += bytes;
    record.buffers.push_back(std::move(b));
  }
  return record;
}

Result<DumpRecord> read_dump_file(const std::string& path) {
  OPENGE_RETURN_IF_ERROR(require_regular_file(path, "dump file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open dump file " + path);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return io_error("cannot read dump file " + path);
  return read_dump_bytes(contents.data(), contents.size(), path);
}

Result<DumpRecord> read_dump_header(const std::string& path) {
  OPENGE_RETURN_IF_ERROR(require_regular_file(path, "dump file"));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return io_error("cannot open dump file " + path);
  const auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  uint8_t length[8] = {};
  in.read(reinterpret_cast<char*>(length), std::min<uint64_t>(size, 8));
  auto header_len = header_length(length, size, path);
  if (!header_len.ok()) return header_len.status();
  std::string header(static_cast<size_t>(*header_len), '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header.size())))
    return io_error("cannot read dump file " + path);
  pb::DumpData data;
  if (!data.ParseFromString(header))
    return invalid_argument(path + ": not a dump file: its header is not a DumpData protobuf");
  return record_of_header(data);
}

Status make_dump_directories(const std::string& dir) {
  return make_directories(dir, kPrivateFolderMode).with_context("dump folder");
}

}  // namespace openge::dump
