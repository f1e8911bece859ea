// Linear quantization on the reference engine: QuantizeLinear and DequantizeLinear (per-tensor,
// and per-axis from opset 13), DynamicQuantizeLinear, and the integer matrix products
// MatMulInteger and QLinearMatMul (through the shared GEMM core in wrapping 64-bit integers).
//   quantize:   y = saturate(round_half_even(x / scale) + zero_point)
//   dequantize: y = (x - zero_point) * scale
// The arithmetic is done in float, as ONNX and ONNX Runtime define it, so results match bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/elementwise_common.h"
#include "ops/math_gemm.h"
#include "ops/shape_util.h"

namespace openge {
namespace {

using elementwise::dtype_bit;
using elementwise::kFloatTypes;

constexpr elementwise::DTypeSet kQuantizedTypes = dtype_bit(DType::kUInt8) | dtype_bit(DType::kInt8);

// round half to even, then clamp to the range of Q (NaN gives 0).
template <class Q>
Q saturate_round(float v) {
  if (!(v == v)) return Q(0);
  const float r = std::nearbyint(v);  // default rounding mode: to nearest, ties to even
  const float lo = static_cast<float>(std::numeric_limits<Q>::min());
  const float hi = static_cast<float>(std::numeric_limits<Q>::max());
  return static_cast<Q>(std::min(hi, std::max(lo, r)));
}

// Scale/zero-point broadcasting: a scalar (or one-element 1-D) applies to every element;
// a 1-D tensor of the axis' length applies along `axis` (opset 13).
struct QuantParams {
  int64_t count = 1;   // elements in scale (1: per-tensor)
  int64_t inner = 1;   // elements after the axis
  int64_t axis_len = 1;
  int64_t index_of(int64_t flat) const { return count == 1 ? 0 : (flat / inner) % axis_len; }
};

template <class Ctx>
Result<QuantParams> plan_params(const Ctx& ctx, const Shape& x, const Shape& scale, const Shape* zero_point) {
  QuantParams p;
  p.count = shape_numel(scale);
  if (zero_point && *zero_point != scale)
    return ctx.error("zero point " + shape_to_string(*zero_point) + " must have the scale's shape " + shape_to_string(scale));
  if (scale.size() > 1) return ctx.error("scale must be a scalar or 1-D, got " + shape_to_string(scale));
  if (p.count == 1 && (scale.empty() || scale[0] == 1)) return p;
  if (ctx.opset() < 13 || scale.empty()) return ctx.error("per-axis scale needs opset 13 and a 1-D scale, got " + shape_to_string(scale));
  const auto axis = normalize_axis(ctx.attrs().get_int("axis", 1), static_cast<int64_t>(x.size()));
  if (!axis) return ctx.error("axis " + std::to_string(ctx.attrs().get_int("axis", 1)) + " is out of range for " + shape_to_string(x));
  p.axis_len = x[static_cast<size_t>(*axis)];
  if (p.axis_len != p.count)
    return ctx.error("scale " + shape_to_string(scale) + " must have the length of axis " + std::to_string(*axis) + " of " + shape_to_string(x));
  for (size_t i = static_cast<size_t>(*axis) + 1; i < x.size(); ++i) p.inner *= x[i];
  return p;
}

template <class Ctx>
Result<QuantParams> plan_params_of(const Ctx& ctx, const Shape& x) {
  if constexpr (std::is_same_v<Ctx, InferContext>) {
    const Shape* zp = ctx.input_shape_known(2) ? &ctx.input_shape(2) : nullptr;
    return plan_params(ctx, x, ctx.input_shape(1), zp);
  } else {
    return plan_params(ctx, x, ctx.input(1).shape(), ctx.has_input(2) ? &ctx.input(2).shape() : nullptr);
  }
}

// True when the first `n` inputs that are present all have fully known shapes.
bool all_dims_known(const InferContext& ctx, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!ctx.has_input(i)) continue;
    if (!ctx.input_shape_known(i)) return false;
    for (int64_t d : ctx.input_shape(i))
      if (d < 0) return false;
  }
  return true;
}

// ---- QuantizeLinear --------------------------------------------------------------------------

Status quantize_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes | dtype_bit(DType::kInt32)));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, kFloatTypes));
  DType out = DType::kUInt8;
  if (ctx.has_input(2)) {
    OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 2, kQuantizedTypes));
    out = ctx.input_dtype(2);
  }
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, out);
    return Status::Ok();
  }
  if (all_dims_known(ctx, 3))
    if (auto p = plan_params_of(ctx, ctx.input_shape(0)); !p.ok()) return p.status();
  ctx.set_output(0, out, ctx.input_shape(0));
  return Status::Ok();
}

Status quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto plan = plan_params_of(ctx, x.shape());
  if (!plan.ok()) return plan.status();
  const QuantParams p = *plan;
  std::vector<float> scale(static_cast<size_t>(p.count));
  for (int64_t i = 0; i < p.count; ++i) scale[i] = static_cast<float>(ctx.input(1).scalar_as_double(i));
  std::vector<float> zp(static_cast<size_t>(p.count), 0.f);
  if (ctx.has_input(2))
    for (int64_t i = 0; i < p.count; ++i) zp[i] = static_cast<float>(ctx.input(2).scalar_as_int(i));
  Tensor& y = ctx.output(0);
  bool ok = elementwise::visit_dtype_in<kQuantizedTypes>(y.dtype(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    Q* py = y.data<Q>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = p.index_of(i);
      // x / scale rounded, then the zero point added (ONNX: saturate(round(x / y_scale) + y_zero_point)).
      py[i] = saturate_round<Q>(std::nearbyint(static_cast<float>(x.scalar_as_double(i)) / scale[k]) + zp[k]);
    }
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- DequantizeLinear ------------------------------------------------------------------------

Status dequantize_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kQuantizedTypes | dtype_bit(DType::kInt32)));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, kFloatTypes));
  if (ctx.has_input(2)) OPENGE_RETURN_IF_ERROR(elementwise::check_same_dtype(ctx, 0, 2));
  const DType out = ctx.input_dtype(1);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, out);
    return Status::Ok();
  }
  if (all_dims_known(ctx, 3))
    if (auto p = plan_params_of(ctx, ctx.input_shape(0)); !p.ok()) return p.status();
  ctx.set_output(0, out, ctx.input_shape(0));
  return Status::Ok();
}

Status dequantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto plan = plan_params_of(ctx, x.shape());
  if (!plan.ok()) return plan.status();
  const QuantParams p = *plan;
  Tensor& y = ctx.output(0);
  const bool ok = elementwise::visit_dtype_in<kFloatTypes>(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = p.index_of(i);
      const int64_t zp = ctx.has_input(2) ? ctx.input(2).scalar_as_int(k) : 0;
      const float scale = static_cast<float>(ctx.input(1).scalar_as_double(k));
      py[i] = elementwise::to_storage<T>(static_cast<float>(x.scalar_as_int(i) - zp) * scale);
    }
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- DynamicQuantizeLinear -------------------------------------------------------------------
// uint8 with a range that always includes 0: scale = (max(0, max x) - min(0, min x)) / 255,
// zero_point = saturate(round(-min / scale)).

Status dynamic_quantize_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, dtype_bit(DType::kFloat32)));
  if (ctx.input_shape_known(0)) ctx.set_output(0, DType::kUInt8, ctx.input_shape(0));
  else ctx.set_output_dtype(0, DType::kUInt8);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::kFloat32, {});
  if (ctx.num_outputs() > 2) ctx.set_output(2, DType::kUInt8, {});
  return Status::Ok();
}

Status dynamic_quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const float* px = x.data<float>();
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (!(px[i] == px[i])) return ctx.error("input contains NaN; the quantization range is undefined");
    lo = std::min(lo, px[i]);
    hi = std::max(hi, px[i]);
  }
  const float scale = (hi - lo) / 255.f;
  const uint8_t zp = scale == 0.f ? uint8_t{0} : saturate_round<uint8_t>(-lo / scale);
  uint8_t* py = ctx.output(0).data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i)
    py[i] = scale == 0.f ? zp : saturate_round<uint8_t>(std::nearbyint(px[i] / scale) + static_cast<float>(zp));
  if (ctx.has_output(1)) ctx.output(1).data<float>()[0] = scale;
  if (ctx.has_output(2)) ctx.output(2).data<uint8_t>()[0] = zp;
  return Status::Ok();
}

// ---- MatMulInteger and QLinearMatMul ---------------------------------------------------------
// (a - a_zero_point) · (b - b_zero_point) with NumPy MatMul shapes; zero points (and
// QLinearMatMul's scales) are per tensor, or per row of A / per column of B.

struct IntMatMulPlan {
  int64_t M = 1, N = 1, K = 1, batches = 1;
  Shape out;
  std::vector<int64_t> a_offsets, b_offsets;
};

Result<IntMatMulPlan> plan_int_matmul(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    return invalid_argument("operands must have rank >= 1, got " + shape_to_string(a) + " and " + shape_to_string(b));
  IntMatMulPlan p;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  p.M = a_vec ? 1 : a[a.size() - 2];
  p.K = a.back();
  p.N = b_vec ? 1 : b.back();
  if ((b_vec ? b[0] : b[b.size() - 2]) != p.K)
    return invalid_argument("inner dimensions differ: " + shape_to_string(a) + " x " + shape_to_string(b));
  const Shape a_batch = a_vec ? Shape{} : Shape(a.begin(), a.end() - 2);
  const Shape b_batch = b_vec ? Shape{} : Shape(b.begin(), b.end() - 2);
  const auto batch = broadcast_shapes(a_batch, b_batch);
  if (!batch) return invalid_argument("batch dimensions do not broadcast: " + shape_to_string(a) + " x " + shape_to_string(b));
  p.out = *batch;
  p.batches = shape_numel(*batch);
  if (!a_vec) p.out.push_back(p.M);
  if (!b_vec) p.out.push_back(p.N);
  p.a_offsets = broadcast_batch_offsets(a_batch, *batch, p.M * p.K);
  p.b_offsets = broadcast_batch_offsets(b_batch, *batch, p.K * p.N);
  return p;
}

// Elements of `t` minus their zero point, as wrapping 64-bit integers (exact: |value| < 2^9).
// `zp_index(i)` picks the zero point of element i when the zero point has several values.
template <class ZpIndex>
std::vector<uint64_t> centered(const Tensor& t, const Tensor* zp, ZpIndex&& zp_index) {
  std::vector<uint64_t> v(static_cast<size_t>(t.numel()));
  const int64_t zn = zp ? zp->numel() : 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t z = zn == 0 ? 0 : zp->scalar_as_int(zn == 1 ? 0 : zp_index(i));
    v[static_cast<size_t>(i)] = static_cast<uint64_t>(t.scalar_as_int(i) - z);
  }
  return v;
}

// Error unless a per-row (A) / per-column (B) parameter has 1 or `n` values.
Status check_param_count(const KernelContext& ctx, const Tensor* t, int64_t n, const char* what) {
  if (t && t->numel() != 1 && t->numel() != n)
    return ctx.error(std::string(what) + " must have 1 or " + std::to_string(n) + " values, got " + shape_to_string(t->shape()));
  return Status::Ok();
}

// The int32-exact products C[batch, M, N] of (a - a_zp)·(b - b_zp).
Result<std::vector<uint64_t>> integer_product(KernelContext& ctx, const IntMatMulPlan& p, size_t a_in, size_t a_zp_in,
                                              size_t b_in, size_t b_zp_in) {
  const Tensor* azp = ctx.has_input(a_zp_in) ? &ctx.input(a_zp_in) : nullptr;
  const Tensor* bzp = ctx.has_input(b_zp_in) ? &ctx.input(b_zp_in) : nullptr;
  OPENGE_RETURN_IF_ERROR(check_param_count(ctx, azp, p.M, "a_zero_point"));
  OPENGE_RETURN_IF_ERROR(check_param_count(ctx, bzp, p.N, "b_zero_point"));
  const std::vector<uint64_t> a = centered(ctx.input(a_in), azp, [&](int64_t i) { return (i / p.K) % p.M; });
  const std::vector<uint64_t> b = centered(ctx.input(b_in), bzp, [&](int64_t i) { return i % p.N; });
  std::vector<uint64_t> c(static_cast<size_t>(p.batches * p.M * p.N));
  batched_gemm<uint64_t>(p.batches, p.M, p.N, p.K, a.data(), p.a_offsets.data(), p.K, b.data(), p.b_offsets.data(),
                         p.N, false, c.data());
  return c;
}

Status int_matmul_infer(InferContext& ctx, size_t a_in, size_t b_in, DType out) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, a_in, kQuantizedTypes));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, b_in, kQuantizedTypes));
  if (!all_dims_known(ctx, ctx.num_inputs())) {
    ctx.set_output_dtype(0, out);
    return Status::Ok();
  }
  auto plan = plan_int_matmul(ctx.input_shape(a_in), ctx.input_shape(b_in));
  if (!plan.ok()) return ctx.error(plan.status().message());
  ctx.set_output(0, out, plan->out);
  return Status::Ok();
}

// MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> int32
Status matmul_integer_infer(InferContext& ctx) {
  for (size_t zp : {size_t{2}, size_t{3}})
    if (ctx.has_input(zp)) OPENGE_RETURN_IF_ERROR(elementwise::check_same_dtype(ctx, zp - 2, zp));
  return int_matmul_infer(ctx, 0, 1, DType::kInt32);
}

Status matmul_integer_kernel(KernelContext& ctx) {
  auto plan = plan_int_matmul(ctx.input(0).shape(), ctx.input(1).shape());
  if (!plan.ok()) return ctx.error(plan.status().message());
  auto c = integer_product(ctx, *plan, 0, 2, 1, 3);
  if (!c.ok()) return c.status();
  int32_t* y = ctx.output(0).data<int32_t>();
  for (size_t i = 0; i < c->size(); ++i) y[i] = static_cast<int32_t>(static_cast<uint32_t>((*c)[i]));  // int32 wraps
  return Status::Ok();
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the int32 product scaled by
// a_scale·b_scale / y_scale (in float, as ONNX Runtime does) and requantized.
Status qlinear_matmul_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_same_dtype(ctx, 0, 2));
  OPENGE_RETURN_IF_ERROR(elementwise::check_same_dtype(ctx, 3, 5));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 7, kQuantizedTypes));
  return int_matmul_infer(ctx, 0, 3, ctx.input_dtype(7));
}

Status qlinear_matmul_kernel(KernelContext& ctx) {
  auto plan = plan_int_matmul(ctx.input(0).shape(), ctx.input(3).shape());
  if (!plan.ok()) return ctx.error(plan.status().message());
  const IntMatMulPlan& p = *plan;
  OPENGE_RETURN_IF_ERROR(check_param_count(ctx, &ctx.input(1), p.M, "a_scale"));
  OPENGE_RETURN_IF_ERROR(check_param_count(ctx, &ctx.input(4), p.N, "b_scale"));
  if (ctx.input(6).numel() != 1 || ctx.input(7).numel() != 1) return ctx.error("y_scale and y_zero_point must be scalars");
  auto c = integer_product(ctx, p, 0, 2, 3, 5);
  if (!c.ok()) return c.status();
  const float y_scale = static_cast<float>(ctx.input(6).scalar_as_double());
  const float y_zp = static_cast<float>(ctx.input(7).scalar_as_int());
  auto param = [](const Tensor& t, int64_t i) { return static_cast<float>(t.scalar_as_double(t.numel() == 1 ? 0 : i)); };
  Tensor& y = ctx.output(0);
  elementwise::visit_dtype_in<kQuantizedTypes>(y.dtype(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    Q* py = y.data<Q>();
    for (int64_t i = 0; i < static_cast<int64_t>(c->size()); ++i) {
      const int64_t m = (i / p.N) % p.M, n = i % p.N;
      const float multiplier = param(ctx.input(1), m) * param(ctx.input(4), n) / y_scale;
      const float acc = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>((*c)[static_cast<size_t>(i)])));
      py[i] = saturate_round<Q>(std::nearbyint(acc * multiplier) + y_zp);
    }
  });
  return Status::Ok();
}

}  // namespace

void register_quantize_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"QuantizeLinear", 2, 3, 1, 1, &quantize_infer, &quantize_kernel, false});
  table.push_back(OpSchema{"DequantizeLinear", 2, 3, 1, 1, &dequantize_infer, &dequantize_kernel, false});
  table.push_back(OpSchema{"DynamicQuantizeLinear", 1, 1, 1, 3, &dynamic_quantize_infer, &dynamic_quantize_kernel, false});
  table.push_back(OpSchema{"MatMulInteger", 2, 4, 1, 1, &matmul_integer_infer, &matmul_integer_kernel, false});
  table.push_back(OpSchema{"QLinearMatMul", 8, 8, 1, 1, &qlinear_matmul_infer, &qlinear_matmul_kernel, false});
}

}  // namespace openge
