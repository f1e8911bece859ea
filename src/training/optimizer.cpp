#include "training/optimizer.h"

#include <cmath>

#include "base/parallel.h"

namespace openge::training {
namespace {

struct OptimizerName {
  const char* name;
  OptimizerKind kind;
};
constexpr OptimizerName kOptimizers[] = {
    {"sgd", OptimizerKind::kSgd},   {"momentum", OptimizerKind::kMomentum}, {"nesterov", OptimizerKind::kNesterov},
    {"adam", OptimizerKind::kAdam}, {"adamw", OptimizerKind::kAdamW},       {"lamb", OptimizerKind::kLamb},
};

constexpr int64_t kCostPerElement = 8;

void sgd(const OptimizerConfig& c, float* w, const float* g, float gs, float* buf, int64_t n, bool first) {
  const float lr = c.lr, wd = c.weight_decay, mu = c.momentum;
  const bool use_momentum = c.kind != OptimizerKind::kSgd, nesterov = c.kind == OptimizerKind::kNesterov;
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
void adam(const OptimizerConfig& c, int64_t t, float* w, const float* g, float gs, float* m, float* v, int64_t n,
          std::vector<float>* direction) {
  const float b1 = c.beta1, b2 = c.beta2, eps = c.epsilon, lr = c.lr, wd = c.weight_decay;
  const float c1 = 1.0f - static_cast<float>(std::pow(static_cast<double>(b1), static_cast<double>(t)));
  const float c2 = 1.0f - static_cast<float>(std::pow(static_cast<double>(b2), static_cast<double>(t)));
  const bool l2 = c.kind == OptimizerKind::kAdam;
  const bool decoupled = c.kind == OptimizerKind::kAdamW;
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

Result<OptimizerKind> parse_optimizer(const std::string& name) {
  std::string all;
  for (const OptimizerName& o : kOptimizers) {
    if (name == o.name) return o.kind;
    all += std::string(all.empty() ? "" : ", ") + o.name;
  }
  return invalid_argument("unknown optimizer '" + name + "'; choose one of " + all);
}

const char* optimizer_name(OptimizerKind kind) {
  for (const OptimizerName& o : kOptimizers)
    if (o.kind == kind) return o.name;
  return "?";
}

size_t Optimizer::state_per_param() const {
  switch (config_.kind) {
    case OptimizerKind::kSgd:
      return 0;
    case OptimizerKind::kMomentum:
    case OptimizerKind::kNesterov:
      return 1;
    default:
      return 2;
  }
}

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
  const bool first = steps_ == 1;
  float* w = p.data<float>();
  const float* gr = g.data<float>();
  const int64_t n = p.numel();
  switch (config_.kind) {
    case OptimizerKind::kSgd:
      sgd(config_, w, gr, grad_scale, nullptr, n, first);
      break;
    case OptimizerKind::kMomentum:
    case OptimizerKind::kNesterov:
      sgd(config_, w, gr, grad_scale, state_[i].data<float>(), n, first);
      break;
    case OptimizerKind::kAdam:
    case OptimizerKind::kAdamW:
      adam(config_, steps_, w, gr, grad_scale, state_[2 * i].data<float>(), state_[2 * i + 1].data<float>(), n,
           nullptr);
      break;
    case OptimizerKind::kLamb: {
      direction_.assign(static_cast<size_t>(n), 0.0f);
      adam(config_, steps_, w, gr, grad_scale, state_[2 * i].data<float>(), state_[2 * i + 1].data<float>(), n,
           &direction_);
      const double wn = norm(w, n), rn = norm(direction_.data(), n);
      const float trust = wn > 0 && rn > 0 ? static_cast<float>(wn / rn) : 1.0f;
      const float scale = config_.lr * trust;
      for (int64_t k = 0; k < n; ++k) w[k] -= scale * direction_[static_cast<size_t>(k)];
      break;
    }
  }
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
