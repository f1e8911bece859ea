// Broadcasting binary ops: Add Sub Mul Div Pow PRelu, the comparisons, And Or Xor, and the
// ternary Where.
#include <cmath>
#include <type_traits>

#include "ops/elementwise/elementwise_broadcast.h"
#include "ops/elementwise/elementwise_common.h"

namespace openge::elementwise {
namespace {

// Each op is a functor on the compute type; kCost feeds parallel_for.
struct AddOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_add(a, b);
  }
};
struct SubOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_sub(a, b);
  }
};
struct MulOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_mul(a, b);
  }
};
struct DivOp {
  static constexpr int64_t kCost = kMediumCost;
  // Integer division truncates toward zero (C, ORT); the kernel rejects zero divisors first,
  // and MIN / -1 wraps instead of trapping.
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C> && std::is_signed_v<C>)
      return b == C(-1) ? wrapping_neg(a) : static_cast<C>(a / b);
    else
      return static_cast<C>(a / b);
  }
};
struct PReluOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  C operator()(C x, C slope) const {
    return x < C(0) ? wrapping_mul(slope, x) : x;
  }
};
struct EqualOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  bool operator()(C a, C b) const {
    return a == b;
  }
};
struct LessOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};
struct GreaterOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};
struct LessOrEqualOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  bool operator()(C a, C b) const {
    return a <= b;
  }
};
struct GreaterOrEqualOp {
  static constexpr int64_t kCost = kCheapCost;
  template <class C>
  bool operator()(C a, C b) const {
    return a >= b;
  }
};
struct AndOp {
  static constexpr int64_t kCost = kCheapCost;
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp {
  static constexpr int64_t kCost = kCheapCost;
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp {
  static constexpr int64_t kCost = kCheapCost;
  bool operator()(bool a, bool b) const { return a != b; }
};

template <DTypeSet Allowed, bool kBoolOut>
Status binary_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, Allowed));
  OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 0, 1));
  return infer_broadcast(ctx, 0, 2, kBoolOut ? DType::kBool : ctx.input_dtype(0));
}

template <class T>
bool has_zero(const Tensor& t) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i)
    if (p[i] == T(0)) return true;
  return false;
}

template <class Op, DTypeSet Allowed, bool kBoolOut>
Status binary_kernel(KernelContext& ctx, const BroadcastPlan& plan) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  bool divides_by_zero = false;
  const bool ok = visit_dtype_in<Allowed>(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = std::conditional_t<kBoolOut, bool, T>;
    if constexpr (std::is_same_v<Op, DivOp> && std::is_integral_v<T>) {
      if ((divides_by_zero = has_zero<T>(b))) return;
    }
    broadcast_binary_planned(plan, a.data<T>(), b.data<T>(), out.data<O>(),
                             is_half_v<T> ? Op::kCost + kMediumCost : Op::kCost, Op{});
  });
  if (divides_by_zero) return ctx.error("integer division by zero");
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(a.dtype()));
}

template <class Op, DTypeSet Allowed, bool kBoolOut = false>
OpSchema binary_schema(std::string_view name) {
  constexpr PlannedKernelFn kernel = &binary_kernel<Op, Allowed, kBoolOut>;
  OpSchema row{name, 2, 2, 1, 1, &binary_infer<Allowed, kBoolOut>, &reference_broadcast<kernel>, false};
  row.prepare = &prepare_broadcast<kernel>;
  return row;
}

// PRelu: slope broadcasts to X's shape (unidirectionally); the output has X's shape.
constexpr DTypeSet kPReluTypes = kFloatTypes | dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64) |
                                 dtype_bit(DType::kUInt32) | dtype_bit(DType::kUInt64);
Status prelu_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kPReluTypes));
  OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 0, 1));
  if (ctx.input_shape_known(0) && ctx.input_shape_known(1)) {
    const Shape& x = ctx.input_shape(0);
    const Shape& slope = ctx.input_shape(1);
    const std::optional<Shape> out = broadcast_all({&x, &slope});
    if (!out || out->size() != x.size())
      return ctx.error("slope shape " + shape_to_string(slope) + " does not broadcast to X shape " +
                       shape_to_string(x));
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] >= 0 && (*out)[i] != x[i])
        return ctx.error("slope shape " + shape_to_string(slope) + " does not broadcast to X shape " +
                         shape_to_string(x));
  }
  infer_like_input0(ctx, 0, ctx.input_dtype(0));
  return Status::Ok();
}

// Pow: the exponent may have another numeric dtype than the base (opset 12); the output has
// the base's. Scalar exponents 1, 2 and 3 (x^2 in LayerNorm decompositions, x^3 in GELU)
// skip pow().
constexpr DTypeSet kPowBaseTypes = kFloatTypes | dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64);

Status pow_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kPowBaseTypes));
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 1, kNumericTypes));
  return infer_broadcast(ctx, 0, 2, ctx.input_dtype(0));
}

// Integer power by squaring (wrapping); a negative exponent truncates 1/x^|e| toward zero.
template <class C, class E>
C int_pow(C x, E e) {
  if constexpr (std::is_signed_v<E>) {
    if (e < 0) return x == C(1) ? C(1) : (x == C(-1) ? ((e & 1) ? C(-1) : C(1)) : C(0));
  }
  C result = 1;
  for (auto n = static_cast<std::make_unsigned_t<E>>(e); n; n >>= 1) {
    if (n & 1) result = wrapping_mul(result, x);
    x = wrapping_mul(x, x);
  }
  return result;
}

Status pow_kernel(KernelContext& ctx, const BroadcastPlan& plan) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  bool ok_exp = false;
  const bool ok = visit_dtype_in<kPowBaseTypes>(a.dtype(), [&](auto base_tag) {
    using T = typename decltype(base_tag)::type;
    using C = float_or_self_t<T>;
    ok_exp = visit_dtype_in<kNumericTypes>(b.dtype(), [&](auto exp_tag) {
      using E = typename decltype(exp_tag)::type;
      using CE = float_or_self_t<E>;
      if constexpr (std::is_floating_point_v<C>) {
        if (b.numel() == 1 && shape_numel(out.shape()) == a.numel()) {
          const CE e = static_cast<CE>(b.data<E>()[0]);
          if (e == CE(1) || e == CE(2) || e == CE(3)) {
            const int n = static_cast<int>(e);
            map_unary(a.data<T>(), out.data<T>(), a.numel(), kCheapCost,
                      [n](C x) { return n == 1 ? x : (n == 2 ? x * x : x * x * x); });
            return;
          }
        }
        broadcast_binary_planned(plan, a.data<T>(), b.data<E>(), out.data<T>(), kExpensiveCost,
                                 [](C x, CE y) { return std::pow(x, static_cast<C>(y)); });
      } else if constexpr (std::is_integral_v<CE>) {
        broadcast_binary_planned(plan, a.data<T>(), b.data<E>(), out.data<T>(), kMediumCost,
                                 [](C x, CE y) { return int_pow(x, y); });
      } else {
        broadcast_binary_planned(plan, a.data<T>(), b.data<E>(), out.data<T>(), kExpensiveCost, [](C x, CE y) {
          return float_to_int<C>(std::pow(static_cast<double>(x), static_cast<double>(y)));
        });
      }
    });
  });
  if (!ok || !ok_exp)
    return ctx.error(std::string("unsupported dtypes ") + dtype_name(a.dtype()) + ", " + dtype_name(b.dtype()));
  return Status::Ok();
}

// Where(condition, X, Y): X where condition else Y, all three broadcast together.
Status where_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kBoolType));
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 1, kAllTypes));
  OPENGE_RETURN_IF_ERROR(check_same_dtype(ctx, 1, 2));
  return infer_broadcast(ctx, 0, 3, ctx.input_dtype(1));
}

Status where_kernel(KernelContext& ctx, const BroadcastPlan& plan) {
  const Tensor& cond = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  Tensor& out = ctx.output(0);
  const bool ok = visit_dtype_in<kAllTypes>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t sc = plan.strides[0].back(), sx = plan.strides[1].back(), sy = plan.strides[2].back();
    const bool* pc = cond.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    for_each_broadcast_run(plan, kCheapCost, [&](const int64_t* off, int64_t pos, int64_t len) {
      const bool* c = pc + off[0];
      const T* xs = px + off[1];
      const T* ys = py + off[2];
      T* o = po + pos;
      if (sc && sx && sy) {
        for (int64_t i = 0; i < len; ++i) o[i] = c[i] ? xs[i] : ys[i];
      } else {
        for (int64_t i = 0; i < len; ++i) o[i] = c[i * sc] ? xs[i * sx] : ys[i * sy];
      }
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

}  // namespace

void register_binary_ops(std::vector<OpSchema>& table) {
  table.push_back(binary_schema<AddOp, kNumericTypes>("Add"));
  table.push_back(binary_schema<SubOp, kNumericTypes>("Sub"));
  table.push_back(binary_schema<MulOp, kNumericTypes>("Mul"));
  table.push_back(binary_schema<DivOp, kNumericTypes>("Div"));
  table.push_back(binary_schema<EqualOp, kAllTypes, true>("Equal"));
  table.push_back(binary_schema<LessOp, kNumericTypes, true>("Less"));
  table.push_back(binary_schema<GreaterOp, kNumericTypes, true>("Greater"));
  table.push_back(binary_schema<LessOrEqualOp, kNumericTypes, true>("LessOrEqual"));
  table.push_back(binary_schema<GreaterOrEqualOp, kNumericTypes, true>("GreaterOrEqual"));
  table.push_back(binary_schema<AndOp, kBoolType, true>("And"));
  table.push_back(binary_schema<OrOp, kBoolType, true>("Or"));
  table.push_back(binary_schema<XorOp, kBoolType, true>("Xor"));
  constexpr PlannedKernelFn prelu = &binary_kernel<PReluOp, kPReluTypes, false>;
  table.push_back(OpSchema{"PRelu", 2, 2, 1, 1, &prelu_infer, &reference_broadcast<prelu>, false});
  table.back().prepare = &prepare_broadcast<prelu>;
  table.push_back(OpSchema{"Pow", 2, 2, 1, 1, &pow_infer, &reference_broadcast<&pow_kernel>, false});
  table.back().prepare = &prepare_broadcast<&pow_kernel>;
  table.push_back(OpSchema{"Where", 3, 3, 1, 1, &where_infer, &reference_broadcast<&where_kernel>, false});
  table.back().prepare = &prepare_broadcast<&where_kernel>;
}

}  // namespace openge::elementwise
