// The optimizers: each step updates the parameters in place from their gradients and keeps its
// per-parameter state (momentum buffers, moment estimates) between steps. The update rules are
// PyTorch's (torch.optim 1.13, listed in ops/training/optimizer_rules.h, which the in-graph
// OptimizerUpdate op shares), so that a run from the same weights and data follows the same curve.
// Parameters are float32; updates run per parameter in parallel chunks, each element computed the
// same way whatever the thread count.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"
#include "ops/training/optimizer_rules.h"
#include "openge/tensor.h"

namespace openge::training {

using OptimizerKind = OptimizerRule;
using OptimizerConfig = OptimizerRuleConfig;

// "sgd", "momentum", "nesterov", "adam", "adamw", "lamb"; an error listing them otherwise.
Result<OptimizerKind> parse_optimizer(const std::string& name);
const char* optimizer_name(OptimizerKind kind);

class Optimizer {
 public:
  explicit Optimizer(OptimizerConfig config) : config_(config) {}

  // One update of every parameter from its gradient (same order and shapes), each gradient
  // multiplied by `grad_scale` first (1 / the loss scale of fp16 training). The first call sizes
  // the state.
  Status step(std::vector<Tensor>& params, const std::vector<Tensor>& grads, float grad_scale = 1.0f);
  // The same in parts, for updates that start before every gradient is known (data-parallel
  // training updates each gradient bucket as soon as its all-reduce ends): begin_step counts the
  // step and sizes the state; update(i, …) updates parameter i. step() is begin_step then update
  // of every parameter in order.
  void begin_step(const std::vector<Tensor>& params);
  Status update(size_t i, Tensor& param, const Tensor& grad, float grad_scale);

  const OptimizerConfig& config() const { return config_; }
  void set_learning_rate(float lr) { config_.lr = lr; }
  int64_t steps() const { return steps_; }
  // The per-parameter state tensors (checkpoints): per parameter, the kind's buffers in order.
  std::vector<Tensor>& state() { return state_; }
  void restore(int64_t steps, std::vector<Tensor> state) {
    steps_ = steps;
    state_ = std::move(state);
  }
  // How many state tensors each parameter has.
  size_t state_per_param() const { return optimizer_rule_states(config_.kind); }

 private:
  OptimizerConfig config_;
  int64_t steps_ = 0;
  std::vector<Tensor> state_;
  std::vector<float> direction_;  // LAMB's update direction of one parameter
};

}  // namespace openge::training
