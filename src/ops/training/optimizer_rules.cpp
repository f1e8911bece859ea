#include "ops/training/optimizer_rules.h"

#include <cmath>

#include "base/parallel.h"

namespace openge {
namespace {

struct RuleName {
  const char* name;
  OptimizerRule kind;
};
constexpr RuleName kRules[] = {
    {"sgd", OptimizerRule::kSgd},   {"momentum", OptimizerRule::kMomentum}, {"nesterov", OptimizerRule::kNesterov},
    {"adam", OptimizerRule::kAdam}, {"adamw", OptimizerRule::kAdamW},       {"lamb", OptimizerRule::kLamb},
};

constexpr int64_t kCostPerElement = 8;

void sgd(const OptimizerRuleConfig& c, float* w, const float* g, float gs, float* buf, int64_t n, bool first) {
  const float lr = c.lr, wd = c.weight_decay, mu = c.momentum;
  const bool use_momentum = c.kind != OptimizerRule::kSgd, nesterov = c.kind == OptimizerRule::kNesterov;
  parallel_for(n, kCostPerElement, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float d = g[i] * gs + wd * w[i];
      if (use_momentum) {
        buf[i] = first ? d : mu * buf[i] + d;
        d = nesterov ? d + mu * buf[i] : buf[i];
      }
      w[i] -= lr * d;
    }
  });
}

// Adam's moments for one parameter; with `direction` set (LAMB) the update direction is stored
// instead of applied.
void adam(const OptimizerRuleConfig& c, int64_t t, float* w, const float* g, float gs, float* m, float* v, int64_t n,
          std::vector<float>* direction) {
  const float b1 = c.beta1, b2 = c.beta2, eps = c.epsilon, lr = c.lr, wd = c.weight_decay;
  const float c1 = 1.0f - static_cast<float>(std::pow(static_cast<double>(b1), static_cast<double>(t)));
  const float c2 = 1.0f - static_cast<float>(std::pow(static_cast<double>(b2), static_cast<double>(t)));
  const bool l2 = c.kind == OptimizerRule::kAdam;
  const bool decoupled = c.kind == OptimizerRule::kAdamW;
  parallel_for(n, kCostPerElement * 2, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const float gi = l2 ? g[i] * gs + wd * w[i] : g[i] * gs;
      m[i] = b1 * m[i] + (1 - b1) * gi;
      v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      const float step = (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
      if (direction) {
        (*direction)[static_cast<size_t>(i)] = step + wd * w[i];
        continue;
      }
      if (decoupled) w[i] -= lr * wd * w[i];
      w[i] -= lr * step;
    }
  });
}

double norm(const float* x, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  return std::sqrt(s);
}

}  // namespace

Result<OptimizerRule> parse_optimizer_rule(const std::string& name) {
  std::string all;
  for (const RuleName& o : kRules) {
    if (name == o.name) return o.kind;
    all += std::string(all.empty() ? "" : ", ") + o.name;
  }
  return invalid_argument("unknown optimizer '" + name + "'; choose one of " + all);
}

const char* optimizer_rule_name(OptimizerRule kind) {
  for (const RuleName& o : kRules)
    if (o.kind == kind) return o.name;
  return "?";
}

size_t optimizer_rule_states(OptimizerRule kind) {
  switch (kind) {
    case OptimizerRule::kSgd:
      return 0;
    case OptimizerRule::kMomentum:
    case OptimizerRule::kNesterov:
      return 1;
    default:
      return 2;
  }
}

void apply_optimizer_rule(const OptimizerRuleConfig& config, int64_t step, float* w, const float* g, float grad_scale,
                          float* s0, float* s1, int64_t n, std::vector<float>& scratch) {
  switch (config.kind) {
    case OptimizerRule::kSgd:
    case OptimizerRule::kMomentum:
    case OptimizerRule::kNesterov:
      sgd(config, w, g, grad_scale, s0, n, step == 1);
      break;
    case OptimizerRule::kAdam:
    case OptimizerRule::kAdamW:
      adam(config, step, w, g, grad_scale, s0, s1, n, nullptr);
      break;
    case OptimizerRule::kLamb: {
      scratch.assign(static_cast<size_t>(n), 0.0f);
      adam(config, step, w, g, grad_scale, s0, s1, n, &scratch);
      const double wn = norm(w, n), rn = norm(scratch.data(), n);
      const float trust = wn > 0 && rn > 0 ? static_cast<float>(wn / rn) : 1.0f;
      const float scale = config.lr * trust;
      for (int64_t k = 0; k < n; ++k) w[k] -= scale * scratch[static_cast<size_t>(k)];
      break;
    }
  }
}

}  // namespace openge
