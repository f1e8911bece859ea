#include "training/optimizer.h"

namespace openge::training {

Result<OptimizerKind> parse_optimizer(const std::string& name) { return parse_optimizer_rule(name); }
const char* optimizer_name(OptimizerKind kind) { return optimizer_rule_name(kind); }

void Optimizer::begin_step(const std::vector<Tensor>& params) {
  const size_t per = state_per_param();
  if (state_.size() != params.size() * per) {
    state_.clear();
    for (const Tensor& p : params)
      for (size_t k = 0; k < per; ++k) state_.emplace_back(p.dtype(), p.shape());
  }
  ++steps_;
}

Status Optimizer::update(size_t i, Tensor& p, const Tensor& g, float grad_scale) {
  if (p.dtype() != DType::kFloat32 || g.dtype() != DType::kFloat32 || p.numel() != g.numel())
    return invalid_argument("parameter " + std::to_string(i) +
                            ": the optimizer updates float32 parameters from gradients of the same shape");
  if (i * state_per_param() >= state_.size() && state_per_param() > 0)
    return internal_error("optimizer update of parameter " + std::to_string(i) + " before begin_step sized its state");
  const size_t per = state_per_param();
  float* s0 = per > 0 ? state_[per * i].data<float>() : nullptr;
  float* s1 = per > 1 ? state_[per * i + 1].data<float>() : nullptr;
  apply_optimizer_rule(config_, steps_, p.data<float>(), g.data<float>(), grad_scale, s0, s1, p.numel(), direction_);
  return Status::Ok();
}

Status Optimizer::step(std::vector<Tensor>& params, const std::vector<Tensor>& grads, float grad_scale) {
  if (params.size() != grads.size())
    return invalid_argument("the optimizer got " + std::to_string(grads.size()) + " gradients for " +
                            std::to_string(params.size()) + " parameters");
  begin_step(params);
  for (size_t i = 0; i < params.size(); ++i) OPENGE_RETURN_IF_ERROR(update(i, params[i], grads[i], grad_scale));
  return Status::Ok();
}

}  // namespace openge::training
