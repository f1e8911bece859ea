// PyTorch's optimizer update rules (torch.optim 1.13) on one float32 parameter: the math that both
// the Trainer's out-of-graph optimizer (training/optimizer.h) and the in-graph OptimizerUpdate op
// (domain openge) run, so that both give the same bits.
//   sgd       w -= lr · (g + wd·w)
//   momentum  b = μ·b + (g + wd·w) (b = g + wd·w on the first step);  w -= lr · b
//   nesterov  as momentum, then w -= lr · (g + wd·w + μ·b)
//   adam      g += wd·w;  m = β1·m + (1-β1)·g;  v = β2·v + (1-β2)·g²;
//             w -= lr · (m / (1-β1ᵗ)) / (sqrt(v / (1-β2ᵗ)) + ε)
//   adamw     w -= lr·wd·w, then adam without the wd term
//   lamb      r = m̂ / (sqrt(v̂) + ε) + wd·w;  w -= lr · (‖w‖ / ‖r‖) · r  (trust ratio 1 when a norm is 0)
// g is the gradient times grad_scale (1 / the loss scale). Each element is computed the same way
// whatever the thread count.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge {

enum class OptimizerRule { kSgd, kMomentum, kNesterov, kAdam, kAdamW, kLamb };

struct OptimizerRuleConfig {
  OptimizerRule kind = OptimizerRule::kSgd;
  float lr = 0.01f;
  float momentum = 0.9f;  // μ of momentum / nesterov
  float weight_decay = 0.0f;
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
};

// "sgd", "momentum", "nesterov", "adam", "adamw", "lamb"; an error listing them otherwise.
Result<OptimizerRule> parse_optimizer_rule(const std::string& name);
const char* optimizer_rule_name(OptimizerRule kind);
// How many state tensors (the parameter's shape) the rule keeps: 0, 1 (b) or 2 (m, v).
size_t optimizer_rule_states(OptimizerRule kind);

// Updates w (n elements) in place from g for step `step` (1 for the first), with the rule's
// states s0 / s1 (null where the rule keeps fewer). `scratch` holds LAMB's update direction.
void apply_optimizer_rule(const OptimizerRuleConfig& config, int64_t step, float* w, const float* g, float grad_scale,
                          float* s0, float* s1, int64_t n, std::vector<float>& scratch);

}  // namespace openge
