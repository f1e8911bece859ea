// Less common activations: Celu ThresholdedRelu Shrink Softsign. Each is a unary functor on
// the compute type (float for fp16/bf16, rounded once on store) run by the unary op template.
#include <cmath>
#include <string>
#include <type_traits>

#include "ops/elementwise/elementwise_unary.h"

namespace openge {
namespace {

using namespace elementwise;

// Celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0.
struct CeluOp {
  static constexpr int64_t kCost = kExpensiveCost;
  float alpha;
  explicit CeluOp(const Attributes& a) : alpha(a.get_float("alpha", 1.0f)) {}
  template <class C>
  C operator()(C x) const {
    return x > C(0) ? x : C(alpha) * std::expm1(x / C(alpha));  // NaN takes the second branch and stays NaN
  }
};

Status celu_infer(InferContext& ctx) {
  if (ctx.attrs().get_float("alpha", 1.0f) == 0.0f) return ctx.error("alpha must not be 0 (Celu divides by it)");
  return unary_infer<kFloatTypes>(ctx);
}

// ThresholdedRelu(x) = x if x > alpha else 0.
struct ThresholdedReluOp {
  static constexpr int64_t kCost = kCheapCost;
  float alpha;
  explicit ThresholdedReluOp(const Attributes& a) : alpha(a.get_float("alpha", 1.0f)) {}
  template <class C>
  C operator()(C x) const {
    return x > C(alpha) ? x : C(0);
  }
};

// Shrink(x) = x + bias if x < -lambd, x - bias if x > lambd, else 0. ONNX defines it for every
// numeric type; integers are compared and shifted in double, then converted back (saturating,
// like Cast from a float), so a fractional bias or lambd means what it says.
struct ShrinkOp {
  static constexpr int64_t kCost = kCheapCost;
  float lambd, bias;
  explicit ShrinkOp(const Attributes& a) : lambd(a.get_float("lambd", 0.5f)), bias(a.get_float("bias", 0.0f)) {}
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) {
      const double v = static_cast<double>(x);
      if (v < -static_cast<double>(lambd)) return float_to_int<C>(v + bias);
      if (v > static_cast<double>(lambd)) return float_to_int<C>(v - bias);
      return C(0);
    } else {
      if (x < C(-lambd)) return x + C(bias);
      if (x > C(lambd)) return x - C(bias);
      return C(0);  // NaN too, as ONNX's reference (np.where) gives
    }
  }
};

// Softsign(x) = x / (1 + |x|).
struct SoftsignOp {
  static constexpr int64_t kCost = kMediumCost;
  template <class C>
  C operator()(C x) const {
    return x / (C(1) + std::fabs(x));
  }
};

}  // namespace

void register_extended_activation_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Celu", 1, 1, 1, 1, &celu_infer, &unary_kernel<CeluOp, kFloatTypes>, false});
  table.back().prepare = &prepare_unary<CeluOp, kFloatTypes>;
  table.push_back(unary_schema<ThresholdedReluOp, kFloatTypes>("ThresholdedRelu"));
  table.push_back(unary_schema<ShrinkOp, kNumericTypes>("Shrink"));
  table.push_back(unary_schema<SoftsignOp, kFloatTypes>("Softsign"));
}

}  // namespace openge
