// An inference-form BatchNormalization as the per-channel affine map it is:
//   y = x * scale' + shift',  scale' = scale / sqrt(var + eps),  shift' = beta - mean * scale'
// (computed in double). ConvBatchnormFusionPass folds it into a convolution's weights,
// BatchNormBnInferFusionPass writes it as a Mul and an Add.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace openge::passes {

struct BatchNormAffine {
  std::vector<double> scale;
  std::vector<double> shift;
};

// The affine map of `bn` over `channels` channels, or nullopt when it is not a BatchNormalization
// in inference form (training_mode 0, only output 0 used) whose four parameters are constants of
// `channels` elements each.
std::optional<BatchNormAffine> inference_batchnorm_affine(const Graph& g, const Node& bn, int64_t channels);

}  // namespace openge::passes
