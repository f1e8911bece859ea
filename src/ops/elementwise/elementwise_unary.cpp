// Unary math ops: Sqrt Exp Log Abs Neg Reciprocal Floor Ceil Erf Tanh Not, the trigonometric
// and hyperbolic functions (Sin … Atanh), Sign and Round.
#include <cmath>
#include <type_traits>

#include "ops/elementwise/elementwise_fastmath.h"
#include "ops/elementwise/elementwise_unary.h"

namespace openge::elementwise {
namespace {

struct SqrtOp {
  static constexpr int64_t kCost = kMediumCost;
  template <class C>
  C operator()(C x) const {
    return std::sqrt(x);
  }
};
struct ExpOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    return std::exp(x);
  }
};
struct LogOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    return std::log(x);
  }
};
// float (and fp16/bf16 through float) uses the vectorisable versions in elementwise_fastmath.h.
struct ErfOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>)
      return fast_erf(x);
    else
      return std::erf(x);
  }
};
struct TanhOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>)
      return fast_tanh(x);
    else
      return std::tanh(x);
  }
};
struct FloorOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    return std::floor(x);
  }
};
struct CeilOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    return std::ceil(x);
  }
};
struct ReciprocalOp {
  static constexpr int64_t kCost = kMediumCost;
  template <class C>
  C operator()(C x) const {
    return C(1) / x;
  }
};
struct NegOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    return wrapping_neg(x);
  }
};
struct AbsOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < 0 ? wrapping_neg(x) : x;
    else
      return std::fabs(x);
  }
};
struct NotOp {
  static constexpr int64_t kCost = kCheapCost;
  bool operator()(bool x) const { return !x; }
};

// An op that is one libm call on the compute type (float for fp32/fp16/bf16, double for fp64):
// kFn is a capture-less lambda, so each op is its own type and the call inlines.
template <auto kFn>
struct LibmOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C>
  C operator()(C x) const {
    return kFn(x);
  }
};
using SinOp = LibmOp<[](auto x) { return std::sin(x); }>;
using CosOp = LibmOp<[](auto x) { return std::cos(x); }>;
using TanOp = LibmOp<[](auto x) { return std::tan(x); }>;
using AsinOp = LibmOp<[](auto x) { return std::asin(x); }>;
using AcosOp = LibmOp<[](auto x) { return std::acos(x); }>;
using AtanOp = LibmOp<[](auto x) { return std::atan(x); }>;
using SinhOp = LibmOp<[](auto x) { return std::sinh(x); }>;
using CoshOp = LibmOp<[](auto x) { return std::cosh(x); }>;
using AsinhOp = LibmOp<[](auto x) { return std::asinh(x); }>;
using AcoshOp = LibmOp<[](auto x) { return std::acosh(x); }>;
using AtanhOp = LibmOp<[](auto x) { return std::atanh(x); }>;
// The high_precision implementations of Erf and Tanh (impl modes): libm on the compute type.
using ErfExactOp = LibmOp<[](auto x) { return std::erf(x); }>;
using TanhExactOp = LibmOp<[](auto x) { return std::tanh(x); }>;

// Sign: -1, 0 or 1 in the input's type (NaN stays NaN; unsigned never gives -1).
struct SignOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x > C(0) ? C(1) : C(0);
    } else {
      if (x != x) return x;
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
    }
  }
};
// Round: half to even (NumPy's round, ONNX's spec); nearbyint does that in the default
// rounding mode, which OpenGE never changes.
struct RoundOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x) const {
    return std::nearbyint(x);
  }
};

}  // namespace

void register_unary_ops(std::vector<OpSchema>& table) {
  table.push_back(unary_schema<SqrtOp, kFloatTypes>("Sqrt"));
  table.push_back(unary_schema<ExpOp, kFloatTypes>("Exp"));
  table.push_back(unary_schema<LogOp, kFloatTypes>("Log"));
  table.push_back(impl_mode_unary_schema<ErfOp, ErfExactOp, kFloatTypes>("Erf"));
  table.push_back(impl_mode_unary_schema<TanhOp, TanhExactOp, kFloatTypes>("Tanh"));
  table.push_back(unary_schema<FloorOp, kFloatTypes>("Floor"));
  table.push_back(unary_schema<CeilOp, kFloatTypes>("Ceil"));
  table.push_back(unary_schema<ReciprocalOp, kFloatTypes>("Reciprocal"));
  table.push_back(unary_schema<NegOp, kSignedTypes>("Neg"));
  table.push_back(unary_schema<AbsOp, kNumericTypes>("Abs"));
  table.push_back(unary_schema<NotOp, kBoolType>("Not"));
  table.push_back(unary_schema<SinOp, kFloatTypes>("Sin"));
  table.push_back(unary_schema<CosOp, kFloatTypes>("Cos"));
  table.push_back(unary_schema<TanOp, kFloatTypes>("Tan"));
  table.push_back(unary_schema<AsinOp, kFloatTypes>("Asin"));
  table.push_back(unary_schema<AcosOp, kFloatTypes>("Acos"));
  table.push_back(unary_schema<AtanOp, kFloatTypes>("Atan"));
  table.push_back(unary_schema<SinhOp, kFloatTypes>("Sinh"));
  table.push_back(unary_schema<CoshOp, kFloatTypes>("Cosh"));
  table.push_back(unary_schema<AsinhOp, kFloatTypes>("Asinh"));
  table.push_back(unary_schema<AcoshOp, kFloatTypes>("Acosh"));
  table.push_back(unary_schema<AtanhOp, kFloatTypes>("Atanh"));
  table.push_back(unary_schema<SignOp, kNumericTypes>("Sign"));
  table.push_back(unary_schema<RoundOp, kFloatTypes>("Round"));
}

}  // namespace openge::elementwise
