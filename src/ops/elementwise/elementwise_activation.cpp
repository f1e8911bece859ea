// Activations: Relu LeakyRelu Elu Selu Sigmoid Softplus HardSigmoid HardSwish Clip.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/elementwise/elementwise_fastmath.h"
#include "ops/elementwise/elementwise_unary.h"

namespace openge::elementwise {
namespace {

struct ReluOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    return x < C(0) ? C(0) : x;
  }  // NaN stays NaN
};
struct SigmoidOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>)
      return fast_sigmoid(x);
    else
      return C(1) / (C(1) + std::exp(-x));
  }
};
// Sigmoid's high_precision implementation (impl modes): libm's exp on the compute type.
struct SigmoidExactOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    return C(1) / (C(1) + std::exp(-x));
  }
};
struct LeakyReluOp {
  static constexpr int64_t kCost = kCheapCost;
  float alpha;
  explicit LeakyReluOp(const Attributes& a) : alpha(a.get_float("alpha", 0.01f)) {}
  template <class C>
  C operator()(C x) const {
    return x < C(0) ? C(alpha) * x : x;
  }
};
struct EluOp {
  static constexpr int64_t kCost = kExpensiveCost;
  float alpha;
  explicit EluOp(const Attributes& a) : alpha(a.get_float("alpha", 1.0f)) {}
  template <class C>
  C operator()(C x) const {
    return x < C(0) ? C(alpha) * std::expm1(x) : x;
  }
};
struct SeluOp {
  static constexpr int64_t kCost = kExpensiveCost;
  float alpha, gamma;
  explicit SeluOp(const Attributes& a)
      : alpha(a.get_float("alpha", 1.67326319217681884765625f)),
        gamma(a.get_float("gamma", 1.05070102214813232421875f)) {}
  template <class C>
  C operator()(C x) const {
    return x > C(0) ? C(gamma) * x : C(gamma) * (C(alpha) * std::exp(x) - C(alpha));
  }
};
struct SoftplusOp {
  static constexpr int64_t kCost = kExpensiveCost;
  // log(1 + e^x) written so that e^x never overflows.
  template <class C>
  C operator()(C x) const {
    return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
template <class C>
C clamp01(C v) {
  return v < C(0) ? C(0) : (v > C(1) ? C(1) : v);
}
struct HardSigmoidOp {
  static constexpr int64_t kCost = kCheapCost;
  float alpha, beta;
  explicit HardSigmoidOp(const Attributes& a) : alpha(a.get_float("alpha", 0.2f)), beta(a.get_float("beta", 0.5f)) {}
  template <class C>
  C operator()(C x) const {
    return clamp01(C(alpha) * x + C(beta));
  }
};
struct HardSwishOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    return x * clamp01(x * C(1.0 / 6.0) + C(0.5));
  }
};

// Clip: bounds are attributes `min`/`max` before opset 11 and optional scalar inputs 1 and 2
// from opset 11 (integer types from opset 12). An absent bound does not clip.
Status clip_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, ctx.opset() >= 11 ? kNumericTypes : kFloatTypes));
  if (ctx.opset() >= 11) {
    for (size_t i = 1; i < 3; ++i) {
      OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 0, i));
      if (ctx.input_shape_known(i) && shape_numel(ctx.input_shape(i)) != 1)
        return ctx.error(std::string(i == 1 ? "min" : "max") + " must be a scalar, got shape " +
                         shape_to_string(ctx.input_shape(i)));
    }
  } else if (ctx.num_inputs() > 1) {
    return ctx.error("before opset 11 Clip takes one input (min/max are attributes)");
  }
  infer_like_input0(ctx, 0, ctx.input_dtype(0));
  return Status::Ok();
}

Status clip_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const bool ok = visit_dtype_in<kNumericTypes>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = float_or_self_t<T>;
    C lo =
        std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
    C hi = std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max();
    if (ctx.opset() < 11) {
      if (const Attribute* a = ctx.attrs().find("min")) lo = static_cast<C>(a->f);
      if (const Attribute* a = ctx.attrs().find("max")) hi = static_cast<C>(a->f);
    } else {
      if (ctx.has_input(1) && ctx.input(1).numel() > 0) lo = static_cast<C>(ctx.input(1).data<T>()[0]);
      if (ctx.has_input(2) && ctx.input(2).numel() > 0) hi = static_cast<C>(ctx.input(2).data<T>()[0]);
    }
    // max-then-min: when min > max every element becomes max, as ONNX specifies; NaN passes.
    map_unary(x.data<T>(), y.data<T>(), x.numel(), kCheapCost, [lo, hi](C v) {
      const C r = v < lo ? lo : v;
      return r > hi ? hi : r;
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

}  // namespace

void register_activation_ops(std::vector<OpSchema>& table) {
  table.push_back(unary_schema<ReluOp, kSignedTypes>("Relu"));
  table.push_back(impl_mode_unary_schema<SigmoidOp, SigmoidExactOp, kFloatTypes>("Sigmoid"));
  table.push_back(unary_schema<LeakyReluOp, kFloatTypes>("LeakyRelu"));
  table.push_back(unary_schema<EluOp, kFloatTypes>("Elu"));
  table.push_back(unary_schema<SeluOp, kFloatTypes>("Selu"));
  table.push_back(unary_schema<SoftplusOp, kFloatTypes>("Softplus"));
  table.push_back(unary_schema<HardSigmoidOp, kFloatTypes>("HardSigmoid"));
  table.push_back(unary_schema<HardSwishOp, kFloatTypes>("HardSwish"));
  table.push_back(OpSchema{"Clip", 1, 3, 1, 1, &clip_infer, &clip_kernel, false});
}

}  // namespace openge::elementwise
