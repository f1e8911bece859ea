// Linear quantization on the reference engine: QuantizeLinear and DequantizeLinear (per-tensor,
// and per-axis from opset 13), DynamicQuantizeLinear, and the integer matrix products
// MatMulInteger and QLinearMatMul (through the shared GEMM core in wrapping 64-bit integers),
// ConvInteger and QLinearConv (direct loops over the shared window geometry of nn_window.h).
//   quantize:   y = saturate(round_half_even(x / scale) + zero_point)
//   dequantize: y = (x - zero_point) * scale
// The arithmetic is done in float, as ONNX and ONNX Runtime define it, so results match bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/layout/activation_format.h"
#include "ops/math/math_gemm.h"
#include "ops/nn/nn_window.h"
#include "ops/shape/shape_util.h"

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
  int64_t count = 1;  // elements in scale (1: per-tensor)
  int64_t inner = 1;  // elements after the axis
  int64_t axis_len = 1;
  int64_t index_of(int64_t flat) const { return count == 1 ? 0 : (flat / inner) % axis_len; }
};

template <class Ctx>
Result<QuantParams> plan_params(const Ctx& ctx, const Shape& x, const Shape& scale, const Shape* zero_point) {
  QuantParams p;
  p.count = shape_numel(scale);
  if (zero_point && *zero_point != scale)
    return ctx.error("zero point " + shape_to_string(*zero_point) + " must have the scale's shape " +
                     shape_to_string(scale));
  if (scale.size() > 1) return ctx.error("scale must be a scalar or 1-D, got " + shape_to_string(scale));
  if (p.count == 1 && (scale.empty() || scale[0] == 1)) return p;
  if (ctx.opset() < 13 || scale.empty())
    return ctx.error("per-axis scale needs opset 13 and a 1-D scale, got " + shape_to_string(scale));
  const auto axis = normalize_axis(ctx.attrs().get_int("axis", 1), static_cast<int64_t>(x.size()));
  if (!axis)
    return ctx.error("axis " + std::to_string(ctx.attrs().get_int("axis", 1)) + " is out of range for " +
                     shape_to_string(x));
  p.axis_len = x[static_cast<size_t>(*axis)];
  if (p.axis_len != p.count)
    return ctx.error("scale " + shape_to_string(scale) + " must have the length of axis " + std::to_string(*axis) +
                     " of " + shape_to_string(x));
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

// Output 0 has x's shape and dtype `out`; the scale/zero point must fit x (checked once every
// shape is known).
Status set_quantized_output(InferContext& ctx, DType out) {
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, out);
    return Status::Ok();
  }
  if (all_dims_known(ctx, 3))
    if (auto p = plan_params_of(ctx, ctx.input_shape(0)); !p.ok()) return p.status();
  ctx.set_output(0, out, ctx.input_shape(0));
  return Status::Ok();
}

// A kernel's scale and zero point, one float per parameter position.
struct LoadedParams {
  QuantParams plan;
  std::vector<float> scale, zero_point;
};

Result<LoadedParams> load_params(const KernelContext& ctx) {
  auto plan = plan_params_of(ctx, ctx.input(0).shape());
  if (!plan.ok()) return plan.status();
  LoadedParams l{*plan, std::vector<float>(static_cast<size_t>(plan->count)),
                 std::vector<float>(static_cast<size_t>(plan->count), 0.f)};
  for (int64_t i = 0; i < plan->count; ++i) {
    l.scale[i] = static_cast<float>(ctx.input(1).scalar_as_double(i));
    if (ctx.has_input(2)) l.zero_point[i] = static_cast<float>(ctx.input(2).scalar_as_int(i));
  }
  return l;
}

// Per-tensor QuantizeLinear of float32 data, the same function as saturate_round(nearbyint(x /
// scale) + zero_point) written so that the compiler vectorises it: clamping before rounding to
// the integer bounds [qmin - zp, qmax - zp] gives the same result (rounding is monotone and
// keeps integers), and within them adding 1.5 * 2^23 rounds to nearest even exactly. NaN gives
// 0, as saturate_round does.
template <class Q>
void quantize_per_tensor(const float* x, Q* y, int64_t n, float scale, float zero_point) {
  const float lo = static_cast<float>(std::numeric_limits<Q>::min()) - zero_point;
  const float hi = static_cast<float>(std::numeric_limits<Q>::max()) - zero_point;
  constexpr float kShift = 12582912.0f;
  parallel_for(n, 1, [&](int64_t begin, int64_t end) {
    // Locals, not the closure's members: the uint8/int8 stores may alias anything, which would
    // make the compiler reload every captured value per element and not vectorise.
    const float* __restrict in = x;
    Q* __restrict out = y;
    const float s = scale, z = zero_point, low = lo, high = hi;
    for (int64_t i = begin; i < end; ++i) {
      float v = in[i] / s;
      v = v == v ? v : -z;  // NaN -> stored 0
      v = v < low ? low : (v > high ? high : v);
      out[i] = static_cast<Q>(static_cast<int32_t>(((v + kShift) - kShift) + z));
    }
  });
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
  return set_quantized_output(ctx, out);
}

Status quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto params = load_params(ctx);
  if (!params.ok()) return params.status();
  const QuantParams& p = params->plan;
  const std::vector<float>& scale = params->scale;
  const std::vector<float>& zp = params->zero_point;
  Tensor& y = ctx.output(0);
  bool ok = elementwise::visit_dtype_in<kQuantizedTypes>(y.dtype(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    Q* py = y.data<Q>();
    // x / scale rounded, then the zero point added (ONNX: saturate(round(x / y_scale) + y_zero_point)).
    auto quantize = [&](float v, int64_t k) { return saturate_round<Q>(std::nearbyint(v / scale[k]) + zp[k]); };
    if (x.dtype() == DType::kFloat32 && p.count == 1) {
      // The common case (a QDQ model's activations): per tensor, in parallel, vectorised.
      quantize_per_tensor(x.data<float>(), py, x.numel(), scale[0], zp[0]);
      return;
    }
    for (int64_t i = 0; i < x.numel(); ++i) py[i] = quantize(static_cast<float>(x.scalar_as_double(i)), p.index_of(i));
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- DequantizeLinear ------------------------------------------------------------------------

Status dequantize_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kQuantizedTypes | dtype_bit(DType::kInt32)));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, kFloatTypes));
  if (ctx.has_input(2)) OPENGE_RETURN_IF_ERROR(elementwise::check_same_dtype(ctx, 0, 2));
  const DType out = ctx.input_dtype(1);
  return set_quantized_output(ctx, out);
}

Status dequantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto params = load_params(ctx);
  if (!params.ok()) return params.status();
  const QuantParams& p = params->plan;
  Tensor& y = ctx.output(0);
  if (y.dtype() == DType::kFloat32 && (x.dtype() == DType::kUInt8 || x.dtype() == DType::kInt8)) {
    // The common case (a QDQ model's activations): typed and in parallel, the same arithmetic
    // (the centred value is exact in int32, then one float multiply).
    float* py = y.data<float>();
    elementwise::visit_dtype_in<kQuantizedTypes>(x.dtype(), [&](auto tag) {
      using Q = typename decltype(tag)::type;
      const Q* px = x.data<Q>();
      const float* scale = params->scale.data();
      const float* zp = params->zero_point.data();
      parallel_for(x.numel(), 1, [&](int64_t begin, int64_t end) {
        if (p.count == 1) {  // per tensor: a loop the compiler vectorises
          const int32_t z = static_cast<int32_t>(zp[0]);
          const float s = scale[0];
          for (int64_t i = begin; i < end; ++i) py[i] = static_cast<float>(static_cast<int32_t>(px[i]) - z) * s;
          return;
        }
        for (int64_t i = begin; i < end; ++i) {
          const int64_t k = p.index_of(i);
          py[i] = static_cast<float>(static_cast<int32_t>(px[i]) - static_cast<int32_t>(zp[k])) * scale[k];
        }
      });
    });
    return Status::Ok();
  }
  const bool ok = elementwise::visit_dtype_in<kFloatTypes>(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = p.index_of(i);
      // x - zero_point is exact in int64 (int32 x), then one float multiply as ONNX defines it.
      const float centered_x = static_cast<float>(x.scalar_as_int(i) - static_cast<int64_t>(params->zero_point[k]));
      py[i] = elementwise::to_storage<T>(centered_x * params->scale[k]);
    }
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- DynamicQuantizeLinear -------------------------------------------------------------------
// uint8 with a range that always includes 0: scale = (max(0, max x) - min(0, min x)) / 255,
// zero_point = saturate(round(-min / scale)).

Status dynamic_quantize_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, dtype_bit(DType::kFloat32)));
  if (ctx.input_shape_known(0))
    ctx.set_output(0, DType::kUInt8, ctx.input_shape(0));
  else
    ctx.set_output_dtype(0, DType::kUInt8);
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
  if (!batch)
    return invalid_argument("batch dimensions do not broadcast: " + shape_to_string(a) + " x " + shape_to_string(b));
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
    return ctx.error(std::string(what) + " must have 1 or " + std::to_string(n) + " values, got " +
                     shape_to_string(t->shape()));
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
  batched_gemm<uint64_t>(p.batches, p.M, p.N, p.K, a.data(), p.a_offsets.data(), p.K, b.data(), p.b_offsets.data(), p.N,
                         false, c.data());
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
  if (ctx.input(6).numel() != 1 || ctx.input(7).numel() != 1)
    return ctx.error("y_scale and y_zero_point must be scalars");
  auto c = integer_product(ctx, p, 0, 2, 3, 5);
  if (!c.ok()) return c.status();
  const float y_scale = static_cast<float>(ctx.input(6).scalar_as_double());
  const float y_zp = static_cast<float>(ctx.input(7).scalar_as_int());
  auto param = [](const Tensor& t, int64_t i) {
    return static_cast<float>(t.scalar_as_double(t.numel() == 1 ? 0 : i));
  };
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

// ---- ConvInteger and QLinearConv -------------------------------------------------------------
// sum over (x - x_zero_point)·(w - w_zero_point[m]) on the Conv window geometry; padding reads
// the zero point (contributes 0). w_zero_point / w_scale are per tensor or per output channel.

struct IntConvPlan {
  int64_t N = 0, C = 0, M = 0, group = 1;
  WindowGeometry geom;
  Shape out;
};

template <class Ctx>
Result<IntConvPlan> plan_int_conv(const Ctx& ctx, const Shape& x, const Shape& w) {
  if (x.size() < 3 || w.size() != x.size())
    return ctx.error("x must be [N, C, spatial...] and w [M, C/group, kernel...] of the same rank, got " +
                     shape_to_string(x) + " and " + shape_to_string(w));
  IntConvPlan p;
  p.N = x[0], p.C = x[1], p.M = w[0];
  p.group = ctx.attrs().get_int("group", 1);
  if (p.group < 1 || p.C % p.group != 0 || p.M % p.group != 0 || w[1] * p.group != p.C)
    return ctx.error("group " + std::to_string(p.group) + " does not fit x " + shape_to_string(x) + " and w " +
                     shape_to_string(w));
  const std::vector<int64_t> kernel(w.begin() + 2, w.end()), spatial(x.begin() + 2, x.end());
  auto params = read_window_params(ctx.attrs(), spatial.size(), &kernel, false);
  if (!params.ok()) return ctx.error(params.status().message());
  auto geom = resolve_window(*params, spatial);
  if (!geom.ok()) return ctx.error(geom.status().message());
  p.geom = *geom;
  p.out = {p.N, p.M};
  p.out.insert(p.out.end(), p.geom.output.begin(), p.geom.output.end());
  if (Status s = check_output_elements(p.out); !s.ok()) return ctx.error(s.message());
  return p;
}

// int32 accumulators [N, M, out spatial] (wrapping, as int32 arithmetic does).
Result<std::vector<int32_t>> integer_conv(KernelContext& ctx, const IntConvPlan& p, const Tensor& x, size_t x_zp_in,
                                          size_t w_in, size_t w_zp_in) {
  const Tensor& w = ctx.input(w_in);
  const Tensor* xzp = ctx.has_input(x_zp_in) ? &ctx.input(x_zp_in) : nullptr;
  const Tensor* wzp = ctx.has_input(w_zp_in) ? &ctx.input(w_zp_in) : nullptr;
  if (xzp && xzp->numel() != 1) return ctx.error("x_zero_point must be a scalar, got " + shape_to_string(xzp->shape()));
  OPENGE_RETURN_IF_ERROR(check_param_count(ctx, wzp, p.M, "w_zero_point"));
  const std::vector<uint64_t> xc = centered(x, xzp, [](int64_t) { return int64_t{0}; });
  const int64_t ksize = p.geom.kernel_size(), cg = p.C / p.group, mg = p.M / p.group;
  const std::vector<uint64_t> wc = centered(w, wzp, [&](int64_t i) { return i / (cg * ksize); });
  const size_t rank = p.geom.rank();
  const int64_t in_size = shape_numel(p.geom.input), out_size = p.geom.output_size();
  std::vector<int32_t> acc(static_cast<size_t>(p.N * p.M * out_size));
  std::vector<int64_t> o_idx(rank), k_idx(rank);
  for (int64_t o = 0; o < out_size; ++o) {
    for (int64_t rem = o, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      o_idx[d] = rem % p.geom.output[d];
      rem /= p.geom.output[d];
    }
    for (int64_t k = 0; k < ksize; ++k) {
      // The input position of kernel tap k for output o, or -1 when it falls in the padding.
      int64_t in_pos = 0;
      for (int64_t rem = k, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
        k_idx[d] = rem % p.geom.kernel[d];
        rem /= p.geom.kernel[d];
      }
      for (size_t d = 0; d < rank && in_pos >= 0; ++d) {
        const int64_t i = o_idx[d] * p.geom.strides[d] - p.geom.pad_begin[d] + k_idx[d] * p.geom.dilations[d];
        in_pos = i < 0 || i >= p.geom.input[d] ? -1 : in_pos * p.geom.input[d] + i;
      }
      if (in_pos < 0) continue;
      for (int64_t n = 0; n < p.N; ++n)
        for (int64_t m = 0; m < p.M; ++m) {
          const int64_t g = m / mg;
          uint64_t sum = 0;
          for (int64_t c = 0; c < cg; ++c)
            sum += xc[static_cast<size_t>((n * p.C + g * cg + c) * in_size + in_pos)] *
                   wc[static_cast<size_t>((m * cg + c) * ksize + k)];
          int32_t& a = acc[static_cast<size_t>((n * p.M + m) * out_size + o)];
          a = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(sum));
        }
    }
  }
  return acc;
}

Status int_conv_infer(InferContext& ctx, size_t x_in, size_t w_in, DType out) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, x_in, kQuantizedTypes));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, w_in, kQuantizedTypes));
  if (!all_dims_known(ctx, ctx.num_inputs())) {
    ctx.set_output_dtype(0, out);
    return Status::Ok();
  }
  auto plan = plan_int_conv(ctx, ctx.input_shape(x_in), ctx.input_shape(w_in));
  if (!plan.ok()) return plan.status();
  ctx.set_output(0, out, plan->out);
  return Status::Ok();
}

// ConvInteger(x, w, x_zero_point?, w_zero_point?) -> int32
Status conv_integer_infer(InferContext& ctx) { return int_conv_infer(ctx, 0, 1, DType::kInt32); }

Status conv_integer_kernel(KernelContext& ctx) {
  auto plan = plan_int_conv(ctx, ctx.input(0).shape(), ctx.input(1).shape());
  if (!plan.ok()) return plan.status();
  auto acc = integer_conv(ctx, *plan, ctx.input(0), 2, 1, 3);
  if (!acc.ok()) return acc.status();
  std::copy(acc->begin(), acc->end(), ctx.output(0).data<int32_t>());
  return Status::Ok();
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?): the int32 sum plus the
// int32 bias, scaled by x_scale·w_scale[m] / y_scale (in float) and requantized.
// With channels_last 1 (openge, ChannelsLastLayoutPass: an int8 region in NHWC) x, the output
// and QLinearConvAdd's residual are N x H x W x C; the arithmetic is the same.
bool channels_last(const Attributes& attrs) { return attrs.get_int("channels_last", 0) != 0; }

Status qlinear_conv_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 7, kQuantizedTypes));
  if (ctx.has_input(8)) OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 8, dtype_bit(DType::kInt32)));
  if (!channels_last(ctx.attrs())) return int_conv_infer(ctx, 0, 3, ctx.input_dtype(7));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kQuantizedTypes));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 3, kQuantizedTypes));
  if (!all_dims_known(ctx, ctx.num_inputs())) {
    ctx.set_output_dtype(0, ctx.input_dtype(7));
    return Status::Ok();
  }
  const auto x = nchw_shape(ctx.input_shape(0), ActivationFormat::kNhwc);
  if (!x) return ctx.error("channels_last needs x as [N, H, W, C], got " + shape_to_string(ctx.input_shape(0)));
  auto plan = plan_int_conv(ctx, *x, ctx.input_shape(3));
  if (!plan.ok()) return plan.status();
  ctx.set_output(0, ctx.input_dtype(7), stored_shape(plan->out, ActivationFormat::kNhwc));
  return Status::Ok();
}

// `t` (N x H x W x C) copied into N x C x H x W.
Tensor nchw_copy(const Tensor& t) {
  Tensor out(t.dtype(), *nchw_shape(t.shape(), ActivationFormat::kNhwc));
  copy_to_nchw(t, out, ActivationFormat::kNhwc);
  return out;
}

// QLinearConv, and QLinearConvAdd (openge: a QDQ convolution whose float output a residual Add,
// an optional Relu and a QuantizeLinear followed, RequantFusionPass): inputs 9..11 are the
// residual r_q, r_scale and r_zero_point; the value requantized is the convolution's scaled sum
// plus (r_q - r_zero_point) * r_scale / y_scale, through Relu when the attribute relu is 1.
// Channels-last operands are copied to N x C x H x W and the result back (a reference kernel).
Status qlinear_conv_kernel(KernelContext& ctx) {
  const bool nhwc = channels_last(ctx.attrs());
  if (nhwc && ctx.input(0).rank() != 4) return ctx.error("channels_last needs a 4-D x");
  const std::optional<Tensor> x_nchw = nhwc ? std::optional<Tensor>(nchw_copy(ctx.input(0))) : std::nullopt;
  const Tensor& x = nhwc ? *x_nchw : ctx.input(0);
  auto plan = plan_int_conv(ctx, x.shape(), ctx.input(3).shape());
  if (!plan.ok()) return plan.status();
  const IntConvPlan& p = *plan;
  OPENGE_RETURN_IF_ERROR(check_param_count(ctx, &ctx.input(4), p.M, "w_scale"));
  if (ctx.input(1).numel() != 1 || ctx.input(6).numel() != 1 || ctx.input(7).numel() != 1)
    return ctx.error("x_scale, y_scale and y_zero_point must be scalars");
  const Tensor* bias = ctx.has_input(8) ? &ctx.input(8) : nullptr;
  if (bias && bias->numel() != p.M)
    return ctx.error("B must have " + std::to_string(p.M) + " values, got " + shape_to_string(bias->shape()));
  const bool residual = ctx.node().op_type == "QLinearConvAdd";
  const Shape out_shape = nhwc ? stored_shape(p.out, ActivationFormat::kNhwc) : p.out;
  if (residual && (ctx.input(9).shape() != out_shape || ctx.input(10).numel() != 1 || ctx.input(11).numel() != 1))
    return ctx.error("the residual must have the output's shape " + shape_to_string(out_shape) +
                     " and scalar r_scale and r_zero_point");
  const std::optional<Tensor> r_nchw = residual && nhwc ? std::optional<Tensor>(nchw_copy(ctx.input(9))) : std::nullopt;
  const Tensor* r = residual ? (nhwc ? &*r_nchw : &ctx.input(9)) : nullptr;
  const bool relu = residual && ctx.node().attrs.get_int("relu", 0) != 0;
  auto acc = integer_conv(ctx, p, x, 2, 3, 5);
  if (!acc.ok()) return acc.status();
  const float x_scale = static_cast<float>(ctx.input(1).scalar_as_double());
  const float y_scale = static_cast<float>(ctx.input(6).scalar_as_double());
  const float y_zp = static_cast<float>(ctx.input(7).scalar_as_int());
  const float r_multiplier = r ? static_cast<float>(ctx.input(10).scalar_as_double()) / y_scale : 0.0f;
  const float r_zp = r ? static_cast<float>(ctx.input(11).scalar_as_int()) : 0.0f;
  const Tensor& w_scale = ctx.input(4);
  const int64_t out_size = p.geom.output_size();
  std::optional<Tensor> y_nchw;
  if (nhwc) y_nchw.emplace(ctx.output(0).dtype(), p.out);
  Tensor& y = nhwc ? *y_nchw : ctx.output(0);
  elementwise::visit_dtype_in<kQuantizedTypes>(y.dtype(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    Q* py = y.data<Q>();
    for (int64_t i = 0; i < static_cast<int64_t>(acc->size()); ++i) {
      const int64_t m = (i / out_size) % p.M;
      const int32_t b = bias ? bias->data<int32_t>()[m] : 0;
      const int32_t sum =
          static_cast<int32_t>(static_cast<uint32_t>((*acc)[static_cast<size_t>(i)]) + static_cast<uint32_t>(b));
      const float multiplier =
          x_scale * static_cast<float>(w_scale.scalar_as_double(w_scale.numel() == 1 ? 0 : m)) / y_scale;
      float v = static_cast<float>(sum) * multiplier;
      if (r) v += (static_cast<float>(r->scalar_as_int(i)) - r_zp) * r_multiplier;
      if (relu) v = std::max(v, 0.0f);
      py[i] = saturate_round<Q>(std::nearbyint(v) + y_zp);
    }
  });
  if (nhwc) copy_from_nchw(*y_nchw, ctx.output(0), ActivationFormat::kNhwc);
  return Status::Ok();
}

// QLinearConvAdd: QLinearConv's checks, and a quantized residual of the output's type.
Status qlinear_conv_add_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 9, kQuantizedTypes));
  return qlinear_conv_infer(ctx);
}

}  // namespace

void register_quantize_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"QuantizeLinear", 2, 3, 1, 1, &quantize_infer, &quantize_kernel, false});
  table.push_back(OpSchema{"DequantizeLinear", 2, 3, 1, 1, &dequantize_infer, &dequantize_kernel, false});
  table.push_back(
      OpSchema{"DynamicQuantizeLinear", 1, 1, 1, 3, &dynamic_quantize_infer, &dynamic_quantize_kernel, false});
  table.push_back(OpSchema{"MatMulInteger", 2, 4, 1, 1, &matmul_integer_infer, &matmul_integer_kernel, false});
  table.push_back(OpSchema{"QLinearMatMul", 8, 8, 1, 1, &qlinear_matmul_infer, &qlinear_matmul_kernel, false});
  table.push_back(OpSchema{"ConvInteger", 2, 4, 1, 1, &conv_integer_infer, &conv_integer_kernel, false});
  table.push_back(OpSchema{"QLinearConv", 8, 9, 1, 1, &qlinear_conv_infer, &qlinear_conv_kernel, false});
  table.push_back(OpSchema{"QLinearConvAdd", 12, 12, 1, 1, &qlinear_conv_add_infer, &qlinear_conv_kernel, false});
}

}  // namespace openge
