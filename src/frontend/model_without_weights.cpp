#include "frontend/model_without_weights.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace openge {

bool ModelWithoutWeights::parse(const void* data, size_t size, const MappedFile* pages, onnx::ModelProto& model) {
  bytes_ = static_cast<const char*>(data);
  pages_ = pages;
  ranges_.clear();
  std::optional<SplitModel> split = split_initializer_bytes(data, size);
  if (!split) return model.ParseFromArray(data, static_cast<int>(size));
  if (!model.ParseFromString(split->model_without_weights)) return false;
  ranges_ = std::move(split->raw_data);
  return true;
}

std::optional<OutsideRawData> ModelWithoutWeights::raw_data(size_t k) const {
  if (k >= ranges_.size() || !ranges_[k]) return std::nullopt;
  const ByteRange& r = *ranges_[k];
  return OutsideRawData{std::string_view(bytes_ + r.offset, r.size), pages_, r.offset};
}

}  // namespace openge
