// MatMul (NumPy semantics: 1-D operands promoted and the added dim removed again, batch
// dims broadcast) and Gemm (transA/transB, alpha, beta, optional unidirectionally
// broadcast C). fp16/bf16 accumulate in fp32 and round once, as the cube units do.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ops/math/math_common.h"
#include "ops/math/math_gemm.h"
#include "ops/math/math_ops_internal.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

bool matmul_dtype_ok(DType dt) { return dt != DType::kBool && dtype_supported(dt); }

// ---- MatMul -------------------------------------------------------------------------------

struct MatMulPlan {
  int64_t M = 1, N = 1, K = 1;
  Shape a_batch, b_batch, batch;  // batch dims of A, of B, broadcast
  Shape out;
};

// Broadcasts batch dims where -1 ("unknown", at compile time) may appear.
std::optional<Shape> broadcast_dims(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (da == -1 || db == -1)
      out[i] = da == -1 ? db : da;
    else if (da == db)
      out[i] = da;
    else
      return std::nullopt;
  }
  return out;
}

Result<MatMulPlan> plan_matmul(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    return invalid_argument("MatMul operands must have rank >= 1, got " + shape_to_string(a) + " and " +
                            shape_to_string(b));
  MatMulPlan p;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  p.M = a_vec ? 1 : a[a.size() - 2];
  const int64_t ka = a.back();
  const int64_t kb = b_vec ? b[0] : b[b.size() - 2];
  p.N = b_vec ? 1 : b.back();
  if (ka != kb && ka != -1 && kb != -1)
    return invalid_argument("inner dimensions differ: " + shape_to_string(a) + " x " + shape_to_string(b));
  p.K = ka == -1 ? kb : ka;
  p.a_batch = a_vec ? Shape{} : Shape(a.begin(), a.end() - 2);
  p.b_batch = b_vec ? Shape{} : Shape(b.begin(), b.end() - 2);
  auto batch = broadcast_dims(p.a_batch, p.b_batch);
  if (!batch)
    return invalid_argument("batch dimensions do not broadcast: " + shape_to_string(a) + " x " + shape_to_string(b));
  p.batch = *batch;
  p.out = p.batch;
  if (!a_vec) p.out.push_back(p.M);
  if (!b_vec) p.out.push_back(p.N);
  if (!shape_size_ok(p.out)) return invalid_argument("output shape " + shape_to_string(p.out) + " is too large");
  return p;
}

Status infer_matmul(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!matmul_dtype_ok(dt)) return ctx.error(std::string("inputs must be numeric, got ") + dtype_name(dt));
  if (ctx.input_dtype(1) != dt)
    return ctx.error(std::string("inputs must have one dtype, got ") + dtype_name(dt) + " and " +
                     dtype_name(ctx.input_dtype(1)));
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto plan = plan_matmul(ctx.input_shape(0), ctx.input_shape(1));
  if (!plan.ok()) return ctx.error(plan.status().message());
  ctx.set_output(0, dt, plan->out);
  return Status::Ok();
}

// A view of T data as Acc: the data itself when the types match, else a converted copy.
template <class T, class Acc>
const Acc* as_acc(const T* data, int64_t n, std::vector<Acc>& storage) {
  if constexpr (std::is_same_v<T, Acc>) return data;
  storage.resize(static_cast<size_t>(n));
  parallel_for(n, 2, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) storage[static_cast<size_t>(i)] = to_acc<Acc>(data[i]);
  });
  return storage.data();
}

template <class T, class Acc>
void store_from_acc(const Acc* src, T* dst, int64_t n) {
  parallel_for(n, 2, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = from_acc<T>(src[i]);
  });
}

template <class T>
void run_matmul(const Tensor& a, const Tensor& b, Tensor& y, const MatMulPlan& p) {
  using Acc = gemm_acc_t<T>;
  std::vector<Acc> a_store, b_store, y_store;
  const Acc* A = as_acc<T, Acc>(a.data<T>(), a.numel(), a_store);
  const Acc* B = as_acc<T, Acc>(b.data<T>(), b.numel(), b_store);
  const std::vector<int64_t> a_off = broadcast_batch_offsets(p.a_batch, p.batch, p.M * p.K);
  const std::vector<int64_t> b_off = broadcast_batch_offsets(p.b_batch, p.batch, p.K * p.N);
  const int64_t batches = shape_numel(p.batch);
  Acc* Y;
  if constexpr (std::is_same_v<T, Acc>)
    Y = y.data<T>();
  else {
    y_store.resize(static_cast<size_t>(y.numel()));
    Y = y_store.data();
  }
  batched_gemm<Acc>(batches, p.M, p.N, p.K, A, a_off.data(), p.K, B, b_off.data(), p.N, false, Y);
  if constexpr (!std::is_same_v<T, Acc>) store_from_acc(Y, y.data<T>(), y.numel());
}

Status matmul_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != b.dtype()) return ctx.error("inputs must have one dtype");
  auto plan = plan_matmul(a.shape(), b.shape());
  if (!plan.ok()) return ctx.error(plan.status().message());
  Tensor& y = ctx.output(0);
  if (y.shape() != plan->out)
    return ctx.error("output shape " + shape_to_string(y.shape()) + " does not match " + shape_to_string(plan->out));
  if (y.numel() == 0) return Status::Ok();
  const bool ok = visit_numeric_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_matmul<T>(a, b, y, *plan);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(a.dtype()));
  return Status::Ok();
}

// ---- Gemm ---------------------------------------------------------------------------------

struct GemmPlan {
  int64_t M = 0, N = 0, K = 0;
  bool trans_a = false, trans_b = false;
  bool has_c = false;
  Shape c_shape;
};

Result<GemmPlan> plan_gemm(const Attributes& attrs, const Shape& a, const Shape& b, const Shape* c) {
  if (a.size() != 2 || b.size() != 2)
    return invalid_argument("A and B must be 2-D, got " + shape_to_string(a) + " and " + shape_to_string(b));
  GemmPlan p;
  p.trans_a = attrs.get_int("transA", 0) != 0;
  p.trans_b = attrs.get_int("transB", 0) != 0;
  p.M = p.trans_a ? a[1] : a[0];
  const int64_t ka = p.trans_a ? a[0] : a[1];
  const int64_t kb = p.trans_b ? b[1] : b[0];
  p.N = p.trans_b ? b[0] : b[1];
  if (ka != kb && ka != -1 && kb != -1)
    return invalid_argument("inner dimensions differ: A " + shape_to_string(a) + (p.trans_a ? " (transposed)" : "") +
                            " x B " + shape_to_string(b) + (p.trans_b ? " (transposed)" : ""));
  p.K = ka == -1 ? kb : ka;
  if (c) {
    p.has_c = true;
    p.c_shape = *c;
    if (c->size() > 2) return invalid_argument("C must have rank <= 2, got " + shape_to_string(*c));
    const Shape mn{p.M, p.N};
    for (size_t i = 0; i < c->size(); ++i) {
      const int64_t d = (*c)[i], want = mn[2 - c->size() + i];
      if (d != 1 && d != want && d != -1 && want != -1)
        return invalid_argument("C " + shape_to_string(*c) + " does not broadcast to " + shape_to_string(mn));
    }
  }
  if (!shape_size_ok(Shape{p.M, p.N})) return invalid_argument("output shape is too large");
  return p;
}

Status infer_gemm(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!matmul_dtype_ok(dt)) return ctx.error(std::string("inputs must be numeric, got ") + dtype_name(dt));
  for (size_t i = 1; i < 3; ++i)
    if (ctx.has_input(i) && ctx.input_dtype(i) != dt)
      return ctx.error("input " + std::to_string(i) + " is " + dtype_name(ctx.input_dtype(i)) + ", expected " +
                       dtype_name(dt));
  const bool c_known = !ctx.has_input(2) || ctx.input_shape_known(2);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1) || !c_known) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto plan =
      plan_gemm(ctx.attrs(), ctx.input_shape(0), ctx.input_shape(1), ctx.has_input(2) ? &ctx.input_shape(2) : nullptr);
  if (!plan.ok()) return ctx.error(plan.status().message());
  ctx.set_output(0, dt, Shape{plan->M, plan->N});
  return Status::Ok();
}

// Row-major Acc copy of a 2-D operand, transposed when asked.
template <class T, class Acc>
const Acc* gemm_operand(const Tensor& t, bool transpose, std::vector<Acc>& storage) {
  if (!transpose) return as_acc<T, Acc>(t.data<T>(), t.numel(), storage);
  const int64_t rows = t.dim(0), cols = t.dim(1);
  storage.resize(static_cast<size_t>(t.numel()));
  const T* src = t.data<T>();
  constexpr int64_t kTile = 32;  // transpose in tiles so both sides stay in cache
  for (int64_t c0 = 0; c0 < cols; c0 += kTile)
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c)
        for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
          storage[static_cast<size_t>(c * rows + r)] = to_acc<Acc>(src[r * cols + c]);
  return storage.data();
}

// alpha/beta are floats; integer Gemm uses their integer part (via int64: a negative float
// converted straight to uint64_t would be undefined).
template <class Acc>
Acc scalar_as_acc(float v) {
  if constexpr (std::is_integral_v<Acc>)
    return static_cast<Acc>(static_cast<int64_t>(std::max(-9.2e18f, std::min(9.2e18f, v))));
  else
    return static_cast<Acc>(v);
}

template <class T>
void run_gemm(KernelContext& ctx, const GemmPlan& p, Tensor& y) {
  using Acc = gemm_acc_t<T>;
  std::vector<Acc> a_store, b_store, y_store;
  const Acc* A = gemm_operand<T, Acc>(ctx.input(0), p.trans_a, a_store);
  // transB needs no copy: the GEMM core transposes B panel by panel as it packs them.
  const Acc* B = as_acc<T, Acc>(ctx.input(1).data<T>(), ctx.input(1).numel(), b_store);
  Acc* Y;
  if constexpr (std::is_same_v<T, Acc>)
    Y = y.data<T>();
  else {
    y_store.resize(static_cast<size_t>(y.numel()));
    Y = y_store.data();
  }
  const int64_t zero = 0;
  batched_gemm<Acc>(1, p.M, p.N, p.K, A, &zero, p.K, B, &zero, p.trans_b ? p.K : p.N, p.trans_b, Y);
  // Epilogue in the accumulator type, one rounding to T: y = alpha * AB + beta * C.
  const Acc alpha = scalar_as_acc<Acc>(ctx.attrs().get_float("alpha", 1.0f));
  const Acc beta = scalar_as_acc<Acc>(ctx.attrs().get_float("beta", 1.0f));
  const T* c = p.has_c ? ctx.input(2).data<T>() : nullptr;
  const std::vector<int64_t> cs = p.has_c ? broadcast_strides(p.c_shape, Shape{p.M, p.N}) : std::vector<int64_t>{0, 0};
  T* out = y.data<T>();
  parallel_for(p.M, 4 * p.N, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      for (int64_t j = 0; j < p.N; ++j) {
        Acc v = wrap_mul(alpha, Y[i * p.N + j]);
        if (c) v = wrap_add(v, wrap_mul(beta, to_acc<Acc>(c[i * cs[0] + j * cs[1]])));
        out[i * p.N + j] = from_acc<T>(v);
      }
  });
}

Status gemm_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  for (size_t i = 1; i < 3; ++i)
    if (ctx.has_input(i) && ctx.input(i).dtype() != a.dtype()) return ctx.error("inputs must have one dtype");
  auto plan = plan_gemm(ctx.attrs(), a.shape(), ctx.input(1).shape(), c ? &c->shape() : nullptr);
  if (!plan.ok()) return ctx.error(plan.status().message());
  Tensor& y = ctx.output(0);
  if (y.shape() != Shape{plan->M, plan->N})
    return ctx.error("output shape " + shape_to_string(y.shape()) + " does not match A·B");
  if (y.numel() == 0) return Status::Ok();
  const bool ok = visit_numeric_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_gemm<T>(ctx, *plan, y);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(a.dtype()));
  return Status::Ok();
}

}  // namespace

void register_math_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"MatMul", 2, 2, 1, 1, infer_matmul, matmul_kernel});
  table.push_back(OpSchema{"Gemm", 2, 3, 1, 1, infer_gemm, gemm_kernel});
  register_math_einsum_ops(table);
}

}  // namespace openge
