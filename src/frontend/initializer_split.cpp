#include "frontend/initializer_split.h"

#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <cstdint>

namespace openge {
namespace {

namespace pbio = google::protobuf::io;

// Protobuf wire types (encoding guide) and the three fields the walk looks into.
constexpr uint32_t kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;
constexpr uint32_t tag_of(uint32_t field, uint32_t wire_type) { return field << 3 | wire_type; }
constexpr uint32_t kModelGraph = tag_of(7, kLengthDelimited);        // ModelProto.graph
constexpr uint32_t kGraphInitializer = tag_of(5, kLengthDelimited);  // GraphProto.initializer
constexpr uint32_t kTensorRawData = tag_of(9, kLengthDelimited);     // TensorProto.raw_data

void append_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void append_message(std::string& out, uint32_t tag, const std::string& body) {
  append_varint(out, tag);
  append_varint(out, body.size());
  out += body;
}

// Skips the value of the field whose tag was just read; false on a malformed value or a group
// (deprecated, and never in ONNX).
bool skip_value(pbio::CodedInputStream& in, uint32_t tag) {
  switch (tag & 7) {
    case kVarint: {
      uint64_t v;
      return in.ReadVarint64(&v);
    }
    case kFixed64: {
      uint64_t v;
      return in.ReadLittleEndian64(&v);
    }
    case kFixed32: {
      uint32_t v;
      return in.ReadLittleEndian32(&v);
    }
    case kLengthDelimited: {
      uint32_t n;
      return in.ReadVarint32(&n) && n <= INT_MAX && in.Skip(static_cast<int>(n));
    }
    default:
      return false;
  }
}

class Splitter {
 public:
  Splitter(const uint8_t* bytes, int size) : bytes_(bytes), size_(size), in_(bytes, size) {}

  // Copies the fields of the message (or of the rest of the buffer) to `out`, handing those
  // with tag `special` to `take`; false when anything does not parse.
  template <class Take>
  bool copy_fields(std::string& out, uint32_t special, Take take) {
    for (;;) {
      const int start = in_.CurrentPosition();
      const uint32_t tag = in_.ReadTag();
      // 0: the end of the message, or a malformed tag (a zero or overlong one), which protobuf
      // refuses; only the first is a success.
      if (tag == 0) return in_.ConsumedEntireMessage();
      if (tag == special) {
        if (!take()) return false;
        continue;
      }
      if (!skip_value(in_, tag)) return false;
      out.append(reinterpret_cast<const char*>(bytes_ + start), static_cast<size_t>(in_.CurrentPosition() - start));
    }
  }

  // A length-delimited message whose tag was just read: its fields go through copy_fields.
  template <class Take>
  bool nested(std::string& body, uint32_t special, Take take) {
    uint32_t n;
    if (!in_.ReadVarint32(&n) || n > remaining()) return false;
    const auto limit = in_.PushLimit(static_cast<int>(n));
    const bool ok = copy_fields(body, special, take) && remaining() == 0;
    in_.PopLimit(limit);
    return ok;
  }

  bool split(SplitModel& split) {
    bool graph_seen = false;
    auto take_graph = [&] {
      if (graph_seen) return false;  // repeated: protobuf would merge the two; left to it
      graph_seen = true;
      std::string graph;
      if (!nested(graph, kGraphInitializer, [&] { return take_initializer(graph, split); })) return false;
      append_message(split.model_without_weights, kModelGraph, graph);
      return true;
    };
    return copy_fields(split.model_without_weights, kModelGraph, take_graph) && remaining() == 0;
  }

 private:
  // Bytes left in the innermost message being read (the whole buffer at the top).
  uint32_t remaining() const {
    const int until_limit = in_.BytesUntilLimit();
    return static_cast<uint32_t>(until_limit >= 0 ? until_limit : size_ - in_.CurrentPosition());
  }

  bool take_initializer(std::string& graph, SplitModel& split) {
    std::optional<ByteRange> raw;
    auto take_raw = [&] {
      uint32_t n;
      if (raw || !in_.ReadVarint32(&n) || n > remaining()) return false;
      raw = ByteRange{static_cast<size_t>(in_.CurrentPosition()), n};
      return in_.Skip(static_cast<int>(n));
    };
    std::string tensor;
    if (!nested(tensor, kTensorRawData, take_raw)) return false;
    append_message(graph, kGraphInitializer, tensor);
    split.raw_data.push_back(raw);
    return true;
  }

  const uint8_t* bytes_;
  int size_;
  pbio::CodedInputStream in_;
};

}  // namespace

std::optional<SplitModel> split_initializer_bytes(const void* data, size_t size) {
  if (size == 0 || size > static_cast<size_t>(INT_MAX)) return std::nullopt;
  SplitModel split;
  Splitter splitter(static_cast<const uint8_t*>(data), static_cast<int>(size));
  if (!splitter.split(split)) return std::nullopt;
  return split;
}

}  // namespace openge
