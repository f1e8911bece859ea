// Unary math ops: Sqrt Exp Log Abs Neg Reciprocal Floor Ceil Erf Tanh Not.
#include <cmath>
#include <type_traits>

#include "ops/elementwise_fastmath.h"
#include "ops/elementwise_unary.h"

namespace openge::elementwise {
namespace {

struct SqrtOp { static constexpr int64_t kCost = kMediumCost; template <class C> C operator()(C x) const { return std::sqrt(x); } };
struct ExpOp { static constexpr int64_t kCost = kExpensiveCost; template <class C> C operator()(C x) const { return std::exp(x); } };
struct LogOp { static constexpr int64_t kCost = kExpensiveCost; template <class C> C operator()(C x) const { return std::log(x); } };
// float (and fp16/bf16 through float) uses the vectorisable versions in elementwise_fastmath.h.
struct ErfOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C> C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return fast_erf(x);
    else return std::erf(x);
  }
};
struct TanhOp {
  static constexpr int64_t kCost = kExpensiveCost;
  template <class C> C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return fast_tanh(x);
    else return std::tanh(x);
  }
};
struct FloorOp { static constexpr int64_t kCost = kCheapCost; template <class C> C operator()(C x) const { return std::floor(x); } };
struct CeilOp { static constexpr int64_t kCost = kCheapCost; template <class C> C operator()(C x) const { return std::ceil(x); } };
struct ReciprocalOp { static constexpr int64_t kCost = kMediumCost; template <class C> C operator()(C x) const { return C(1) / x; } };
struct NegOp { static constexpr int64_t kCost = kCheapCost; template <class C> C operator()(C x) const { return wrapping_neg(x); } };
struct AbsOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C> C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) return x;
    else if constexpr (std::is_integral_v<C>) return x < 0 ? wrapping_neg(x) : x;
    else return std::fabs(x);
  }
};
struct NotOp { static constexpr int64_t kCost = kCheapCost; bool operator()(bool x) const { return !x; } };

}  // namespace

void register_unary_ops(std::vector<OpSchema>& table) {
  table.push_back(unary_schema<SqrtOp, kFloatTypes>("Sqrt"));
  table.push_back(unary_schema<ExpOp, kFloatTypes>("Exp"));
  table.push_back(unary_schema<LogOp, kFloatTypes>("Log"));
  table.push_back(unary_schema<ErfOp, kFloatTypes>("Erf"));
  table.push_back(unary_schema<TanhOp, kFloatTypes>("Tanh"));
  table.push_back(unary_schema<FloorOp, kFloatTypes>("Floor"));
  table.push_back(unary_schema<CeilOp, kFloatTypes>("Ceil"));
  table.push_back(unary_schema<ReciprocalOp, kFloatTypes>("Reciprocal"));
  table.push_back(unary_schema<NegOp, kSignedTypes>("Neg"));
  table.push_back(unary_schema<AbsOp, kNumericTypes>("Abs"));
  table.push_back(unary_schema<NotOp, kBoolType>("Not"));
}

}  // namespace openge::elementwise
