// Number classification and integer-aware arithmetic: IsInf IsNaN (float in, bool out), Mod
// (fmod attribute: C's truncated remainder or Python's floored one) and BitShift (unsigned).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "ops/elementwise/elementwise_broadcast.h"
#include "ops/elementwise/elementwise_common.h"

namespace openge {
namespace {

using namespace elementwise;

// ---- IsInf / IsNaN ------------------------------------------------------------------------

Status float_predicate_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kFloatTypes));
  infer_like_input0(ctx, 0, DType::kBool);
  return Status::Ok();
}

// Runs pred(x) on the compute type of every element into the bool output.
template <class Pred>
Status float_predicate_kernel(KernelContext& ctx, Pred pred) {
  const Tensor& x = ctx.input(0);
  bool* y = ctx.output(0).data<bool>();
  const bool ok = visit_dtype_in<kFloatTypes>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    map_unary(x.data<T>(), y, x.numel(), kCheapCost, pred);
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

Status isinf_kernel(KernelContext& ctx) {
  const bool positive = ctx.attrs().get_int("detect_positive", 1) != 0;
  const bool negative = ctx.attrs().get_int("detect_negative", 1) != 0;
  return float_predicate_kernel(
      ctx, [positive, negative](auto v) { return std::isinf(v) && (v > 0 ? positive : negative); });
}

Status isnan_kernel(KernelContext& ctx) {
  return float_predicate_kernel(ctx, [](auto v) { return v != v; });
}

// ---- Mod ------------------------------------------------------------------------------------

// fmod = 1: the remainder has the dividend's sign (C fmod / %). fmod = 0 (integers only): it has
// the divisor's sign (Python's %). ONNX requires fmod = 1 for floating-point inputs.
template <class C>
C mod_value(C a, C b, bool fmod) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmod(a, b);
  } else if constexpr (std::is_unsigned_v<C>) {
    return static_cast<C>(a % b);
  } else {
    if (b == C(-1)) return C(0);  // MIN % -1 traps on x86; the remainder is 0 anyway
    const C r = static_cast<C>(a % b);
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) return static_cast<C>(r + b);
    return r;
  }
}

Status mod_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kNumericTypes));
  OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 0, 1));
  const int64_t fmod = ctx.attrs().get_int("fmod", 0);
  if (fmod != 0 && fmod != 1) return ctx.error("fmod must be 0 or 1, got " + std::to_string(fmod));
  if (fmod == 0 && dtype_is_float(ctx.input_dtype(0)))
    return ctx.error(std::string("fmod must be 1 for floating-point inputs (got ") + dtype_name(ctx.input_dtype(0)) +
                     ")");
  return infer_broadcast(ctx, 0, 2, ctx.input_dtype(0));
}

Status mod_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const bool fmod = ctx.attrs().get_int("fmod", 0) != 0;
  bool divides_by_zero = false;
  const bool ok = visit_dtype_in<kNumericTypes>(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = float_or_self_t<T>;
    if constexpr (std::is_integral_v<T>) {
      const T* pb = b.data<T>();
      if ((divides_by_zero = std::find(pb, pb + b.numel(), T(0)) != pb + b.numel())) return;
    }
    broadcast_binary(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.data<T>(), out.shape(), kMediumCost,
                     [fmod](C x, C y) { return mod_value(x, y, fmod); });
  });
  if (divides_by_zero) return ctx.error("integer modulo by zero");
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(a.dtype()));
}

// ---- BitShift -------------------------------------------------------------------------------

Status bitshift_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kUnsignedIntTypes));
  OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 0, 1));
  const std::string direction = ctx.attrs().get_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.error("direction must be \"LEFT\" or \"RIGHT\", got \"" + direction + "\"");
  return infer_broadcast(ctx, 0, 2, ctx.input_dtype(0));
}

Status bitshift_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const bool left = ctx.attrs().get_string("direction", "") == "LEFT";
  const bool ok = visit_dtype_in<kUnsignedIntTypes>(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr T kBits = static_cast<T>(std::numeric_limits<T>::digits);
    // Shifting by the width or more is undefined in C++; every bit is shifted out, so 0
    // (NumPy's result).
    broadcast_binary(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.data<T>(), out.shape(), kCheapCost,
                     [left](T x, T s) -> T {
                       if (s >= kBits) return T(0);
                       return static_cast<T>(left ? x << s : x >> s);
                     });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(a.dtype()));
}

}  // namespace

void register_numeric_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"IsInf", 1, 1, 1, 1, &float_predicate_infer, &isinf_kernel, false});
  table.push_back(OpSchema{"IsNaN", 1, 1, 1, 1, &float_predicate_infer, &isnan_kernel, false});
  table.push_back(OpSchema{"Mod", 2, 2, 1, 1, &mod_infer, &mod_kernel, false});
  table.push_back(OpSchema{"BitShift", 2, 2, 1, 1, &bitshift_infer, &bitshift_kernel, false});
}

}  // namespace openge
