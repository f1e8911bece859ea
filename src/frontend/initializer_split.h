// Splits a serialized ONNX model into the model without its weights and the places of the weights.
//
// A model's initializers are most of its bytes (BERT-base: 340 of its 340 MB). Parsed whole,
// protobuf copies every raw_data into a string of its own while the file's pages are still
// mapped, so a load peaks at twice the file before a single tensor exists. Instead the loader
// walks the protobuf wire format of the ModelProto and of its main graph, copies every field
// except the main graph initializers' raw_data into a new (small) message, and notes where each
// raw_data lies; it then copies each initializer's bytes straight from the file into its tensor
// and gives those pages of the file back.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace openge {

struct ByteRange {
  size_t offset = 0;
  size_t size = 0;
};

struct SplitModel {
  std::string model_without_weights;  // a serialized ModelProto
  // Per initializer of the main graph, in file order (= GraphProto.initializer order): where its
  // raw_data lies in the original bytes; nullopt for one without raw_data.
  std::vector<std::optional<ByteRange>> raw_data;
};

// nullopt when the bytes use a form the walk does not take apart (the graph field repeated, a
// raw_data repeated, a group, or bytes protobuf would refuse anyway): the caller then parses the
// whole message, which gives the same graph (and the same error) as before.
std::optional<SplitModel> split_initializer_bytes(const void* data, size_t size);

}  // namespace openge
