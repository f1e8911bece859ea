#include "passes/batchnorm_affine.h"

#include <algorithm>
#include <cmath>

#include "passes/pass_util.h"

namespace openge::passes {

std::optional<BatchNormAffine> inference_batchnorm_affine(const Graph& g, const Node& bn, int64_t channels) {
  if (!is_op(bn, "BatchNormalization") || bn.domain == "openge" || bn.inputs.size() < 5) return std::nullopt;
  const size_t live_outputs = std::count_if(bn.outputs.begin(), bn.outputs.end(), [](int v) { return v >= 0; });
  if (live_outputs != 1 || bn.outputs[0] < 0 || bn.attrs.get_int("training_mode", 0) != 0) return std::nullopt;
  const Tensor* scale = constant_of(g, bn.inputs[1]);
  const Tensor* beta = constant_of(g, bn.inputs[2]);
  const Tensor* mean = constant_of(g, bn.inputs[3]);
  const Tensor* var = constant_of(g, bn.inputs[4]);
  if (!scale || !beta || !mean || !var) return std::nullopt;
  for (const Tensor* t : {scale, beta, mean, var})
    if (t->numel() != channels || !dtype_is_float(t->dtype())) return std::nullopt;
  const double eps = bn.attrs.get_float("epsilon", 1e-5f);
  BatchNormAffine a;
  a.scale.resize(static_cast<size_t>(channels));
  a.shift.resize(static_cast<size_t>(channels));
  for (int64_t i = 0; i < channels; ++i) {
    const double s = scale->scalar_as_double(i) / std::sqrt(var->scalar_as_double(i) + eps);
    a.scale[static_cast<size_t>(i)] = s;
    a.shift[static_cast<size_t>(i)] = beta->scalar_as_double(i) - mean->scalar_as_double(i) * s;
  }
  return a;
}

}  // namespace openge::passes
