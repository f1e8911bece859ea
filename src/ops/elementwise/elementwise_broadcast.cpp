#include "ops/elementwise/elementwise_broadcast.h"

#include "ops/shape/shape_util.h"

namespace openge::elementwise {

BroadcastPlan make_broadcast_plan(const std::vector<Shape>& inputs, const Shape& out) {
  BroadcastPlan plan;
  plan.numel = shape_numel(out);
  const size_t k_inputs = inputs.size();
  std::vector<std::vector<int64_t>> full(k_inputs);
  for (size_t k = 0; k < k_inputs; ++k) full[k] = broadcast_strides(inputs[k], out);
  plan.strides.resize(k_inputs);
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;  // contributes nothing to any offset
    bool mergeable = !plan.dims.empty();
    for (size_t k = 0; k < k_inputs && mergeable; ++k) mergeable = plan.strides[k].back() == full[k][d] * out[d];
    if (mergeable) {
      plan.dims.back() *= out[d];
      for (size_t k = 0; k < k_inputs; ++k) plan.strides[k].back() = full[k][d];
    } else {
      plan.dims.push_back(out[d]);
      for (size_t k = 0; k < k_inputs; ++k) plan.strides[k].push_back(full[k][d]);
    }
  }
  if (plan.dims.empty()) {  // a scalar output
    plan.dims.push_back(1);
    for (auto& s : plan.strides) s.push_back(0);
  }
  return plan;
}

}  // namespace openge::elementwise
