// One Data Dump file in the layout CANN's tools read (docs/FORMATS.md, "Data Dump: file layout"):
//   [uint64 little-endian header length][DumpData protobuf][input bytes...][output bytes...]
//   [buffer bytes...]
// Each tensor's bytes follow the header in order (inputs, outputs, then the buffers: an exception
// dump's workspace), sized by its `size` field; the protobuf's `data` fields stay empty.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge::dump {

struct DumpRecord {
  std::string op_name;
  uint64_t dump_time_us = 0;
  std::vector<Tensor> inputs;  // an undefined Tensor: an omitted optional input (written empty)
  std::vector<Tensor> outputs;
  // OpBuffers (buffer_type L1): the failing kernel's workspace in an exception dump, as uint8
  // [size] tensors. A Data Dump has none.
  std::vector<Tensor> buffers;
  // Per output slot, the model's node that produced it and that node's output index (CANN's
  // OriginalOp): the op itself, or for a fused op the merged model node that computed it
  // (ir/original_outputs.h). Empty, or a slot without one: the op itself.
  struct OriginalOp {
    std::string name;
    uint32_t output_index = 0;
  };
  std::vector<OriginalOp> original_outputs;
};

// Writes `record` to `path` (atomically: a temporary name, then rename).
Status write_dump_file(const std::string& path, const DumpRecord& record);

// Reads a dump file written by OpenGE or CANN. Untrusted input: the header length, every size
// and shape are checked against the file and the size limit before anything is allocated.
Result<DumpRecord> read_dump_file(const std::string& path);
Result<DumpRecord> read_dump_bytes(const void* data, size_t size, const std::string& name);
// The header only (op name, dump time, original ops), without reading the tensors' bytes.
Result<DumpRecord> read_dump_header(const std::string& path);

// Creates `dir` and its missing parents, each new folder 0700: dumps hold the user's data
// (Data Dump and exception dump alike).
Status make_dump_directories(const std::string& dir);

}  // namespace openge::dump
