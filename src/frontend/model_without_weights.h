// One parse step shared by the .onnx loader and the .oge reader: the ModelProto without its main
// graph's weights where initializer_split.h can take the bytes apart (whole otherwise), plus
// where each left-out raw_data lies, so that each weight is copied once, from the file into its
// tensor (and the file's pages given back as it goes).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "frontend/initializer_split.h"
#include "frontend/tensor_proto.h"

namespace onnx {
class ModelProto;
}

namespace openge {

class MappedFile;

class ModelWithoutWeights {
 public:
  // Parses `data` into `model`. False when protobuf refuses the bytes (corrupt or truncated).
  // `pages`, when the bytes are a mapped file, gets each initializer's pages back once copied.
  // `data` must outlive this object: the left-out weights are read from it.
  bool parse(const void* data, size_t size, const MappedFile* pages, onnx::ModelProto& model);

  // Initializer k's raw_data of the main graph when the parse left it out; nullopt when the
  // message itself holds it (a whole parse, or an initializer without raw_data).
  std::optional<OutsideRawData> raw_data(size_t k) const;

 private:
  const char* bytes_ = nullptr;
  const MappedFile* pages_ = nullptr;
  std::vector<std::optional<ByteRange>> ranges_;  // empty after a whole parse
};

}  // namespace openge
