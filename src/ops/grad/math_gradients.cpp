// Gradient rules of the arithmetic ops, MatMul, Gemm and the sum/mean reductions.
#include <algorithm>
#include <numeric>
#include <string>

#include "ops/grad/gradient_rules.h"
#include "ops/reduce/reduce_axes.h"

namespace openge {
namespace {

// Contribution `grad` (before broadcasting is undone) to input i.
Status give(GradientBuilder& gb, size_t i, int grad) {
  auto g = sum_to_input(gb, grad, i);
  if (!g.ok()) return g.status();
  gb.set_grad_of_input(i, *g);
  return Status::Ok();
}

Status add_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  for (size_t i = 0; i < 2; ++i)
    if (gb.wants_grad_of_input(i)) OPENGE_RETURN_IF_ERROR(give(gb, i, dy));
  return Status::Ok();
}

Status sub_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  if (gb.wants_grad_of_input(0)) OPENGE_RETURN_IF_ERROR(give(gb, 0, dy));
  if (gb.wants_grad_of_input(1)) {
    TRY_EMIT(neg, gb.emit1("Neg", {dy}));
    OPENGE_RETURN_IF_ERROR(give(gb, 1, neg));
  }
  return Status::Ok();
}

Status mul_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  for (size_t i = 0; i < 2; ++i) {
    if (!gb.wants_grad_of_input(i)) continue;
    TRY_EMIT(prod, gb.emit1("Mul", {dy, gb.input(1 - i)}));
    OPENGE_RETURN_IF_ERROR(give(gb, i, prod));
  }
  return Status::Ok();
}

Status div_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  TRY_EMIT(q, gb.emit1("Div", {dy, gb.input(1)}));  // dA = dY / B
  if (gb.wants_grad_of_input(0)) OPENGE_RETURN_IF_ERROR(give(gb, 0, q));
  if (gb.wants_grad_of_input(1)) {  // dB = -dY / B * Y
    TRY_EMIT(t, gb.emit1("Mul", {q, gb.output(0)}));
    TRY_EMIT(neg, gb.emit1("Neg", {t}));
    OPENGE_RETURN_IF_ERROR(give(gb, 1, neg));
  }
  return Status::Ok();
}

Status neg_grad(GradientBuilder& gb) {
  TRY_EMIT(neg, gb.emit1("Neg", {gb.grad_of_output(0)}));
  gb.set_grad_of_input(0, neg);
  return Status::Ok();
}

Status exp_grad(GradientBuilder& gb) {  // dX = dY * Y
  TRY_EMIT(g, gb.emit1("Mul", {gb.grad_of_output(0), gb.output(0)}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Status log_grad(GradientBuilder& gb) {  // dX = dY / X
  TRY_EMIT(g, gb.emit1("Div", {gb.grad_of_output(0), gb.input(0)}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Status sqrt_grad(GradientBuilder& gb) {  // dX = dY * 0.5 / Y
  const int half = gb.scalar(gb.dtype_of(gb.input(0)), 0.5);
  TRY_EMIT(t, gb.emit1("Div", {gb.grad_of_output(0), gb.output(0)}));
  TRY_EMIT(g, gb.emit1("Mul", {t, half}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

// Pow with a constant scalar exponent b: dX = dY * b * X^(b-1).
Status pow_grad(GradientBuilder& gb) {
  if (gb.wants_grad_of_input(1)) return gb.error("no gradient for the exponent (only the base is differentiated)");
  const Value& e = gb.value(gb.input(1));
  if (!e.constant || e.constant->numel() != 1)
    return gb.error("the exponent must be a constant scalar to differentiate");
  const double b = e.constant->scalar_as_double();
  const DType dt = gb.dtype_of(gb.input(0));
  TRY_EMIT(p, gb.emit1("Pow", {gb.input(0), gb.scalar(dt, b - 1)}));
  TRY_EMIT(s, gb.emit1("Mul", {p, gb.scalar(dt, b)}));
  TRY_EMIT(g, gb.emit1("Mul", {gb.grad_of_output(0), s}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Attributes gemm_attrs(bool trans_a, bool trans_b, float alpha) {
  Attributes a;
  a.set("transA", int_attr(trans_a ? 1 : 0));
  a.set("transB", int_attr(trans_b ? 1 : 0));
  a.set("alpha", float_attr(alpha));
  return a;
}

// Y = alpha · A' · B' + beta · C with A' = transA ? Aᵀ : A, B' likewise. Each gradient is one
// Gemm whose transpose flags absorb the transposes:
//   dA = alpha · dY · B'ᵀ (transA: alpha · B' · dYᵀ)   dB = alpha · A'ᵀ · dY (transB: alpha · dYᵀ · A')
Status gemm_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  const bool ta = gb.node().attrs.get_int("transA", 0) != 0, tb = gb.node().attrs.get_int("transB", 0) != 0;
  const float alpha = gb.node().attrs.get_float("alpha", 1.0f), beta = gb.node().attrs.get_float("beta", 1.0f);
  const int a = gb.input(0), b = gb.input(1);
  if (gb.wants_grad_of_input(0)) {
    auto g = ta ? gb.emit1("Gemm", {b, dy}, gemm_attrs(tb, true, alpha))
                : gb.emit1("Gemm", {dy, b}, gemm_attrs(false, !tb, alpha));
    if (!g.ok()) return g.status();
    gb.set_grad_of_input(0, *g);
  }
  if (gb.wants_grad_of_input(1)) {
    auto g = tb ? gb.emit1("Gemm", {dy, a}, gemm_attrs(true, ta, alpha))
                : gb.emit1("Gemm", {a, dy}, gemm_attrs(!ta, false, alpha));
    if (!g.ok()) return g.status();
    gb.set_grad_of_input(1, *g);
  }
  if (gb.input(2) >= 0 && gb.wants_grad_of_input(2)) {
    int g = dy;
    if (beta != 1.0f) {
      TRY_EMIT(scaled, gb.emit1("Mul", {dy, gb.scalar(gb.dtype_of(dy), beta)}));
      g = scaled;
    }
    OPENGE_RETURN_IF_ERROR(give(gb, 2, g));
  }
  return Status::Ok();
}

// The last two dims swapped.
Result<int> transpose_last2(GradientBuilder& gb, int v) {
  const size_t r = gb.shape_of(v).size();
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[r - 1], perm[r - 2]);
  Attributes a;
  a.set("perm", ints_attr(perm));
  return gb.emit1("Transpose", {v}, std::move(a));
}

// MatMul with a 1-D operand: ONNX makes a vector A a row [1, K] and a vector B a column [K, 1]
// and drops that dim from Y. The gradients are those of the matrix product, reshaped back.
Status matmul_vector_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  const int a = gb.input(0), b = gb.input(1);
  const Shape as = gb.shape_of(a), bs = gb.shape_of(b);
  Shape as2 = as, bs2 = bs, ys2 = gb.shape_of(gb.output(0));
  if (as.size() == 1) as2 = {1, as[0]};
  if (bs.size() == 1) bs2 = {bs[0], 1};
  if (as.size() == 1) ys2.insert(ys2.end() - (bs.size() == 1 ? 0 : 1), 1);
  if (bs.size() == 1) ys2.push_back(1);
  TRY_EMIT(a2, gb.emit1("Reshape", {a, gb.int64s(as2)}));
  TRY_EMIT(b2, gb.emit1("Reshape", {b, gb.int64s(bs2)}));
  TRY_EMIT(dy2, gb.emit1("Reshape", {dy, gb.int64s(ys2)}));
  if (gb.wants_grad_of_input(0)) {
    TRY_EMIT(bt, transpose_last2(gb, b2));
    TRY_EMIT(p, gb.emit1("MatMul", {dy2, bt}));
    TRY_EMIT(s, sum_to_shape(gb, p, as2));
    TRY_EMIT(g, gb.emit1("Reshape", {s, gb.int64s(as)}));
    gb.set_grad_of_input(0, g);
  }
  if (gb.wants_grad_of_input(1)) {
    TRY_EMIT(at, transpose_last2(gb, a2));
    TRY_EMIT(p, gb.emit1("MatMul", {at, dy2}));
    TRY_EMIT(s, sum_to_shape(gb, p, bs2));
    TRY_EMIT(g, gb.emit1("Reshape", {s, gb.int64s(bs)}));
    gb.set_grad_of_input(1, g);
  }
  return Status::Ok();
}

// Y = A · B over batches: dA = dY · Bᵀ, dB = Aᵀ · dY, each summed back over the batch dims it
// was broadcast along. Two 2-D operands use Gemm's transpose flags instead of Transpose nodes.
Status matmul_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  const int a = gb.input(0), b = gb.input(1);
  const size_t ra = gb.shape_of(a).size(), rb = gb.shape_of(b).size();
  if (ra < 2 || rb < 2) return matmul_vector_grad(gb);
  if (ra == 2 && rb == 2) {
    if (gb.wants_grad_of_input(0)) {
      TRY_EMIT(g, gb.emit1("Gemm", {dy, b}, gemm_attrs(false, true, 1.0f)));
      gb.set_grad_of_input(0, g);
    }
    if (gb.wants_grad_of_input(1)) {
      TRY_EMIT(g, gb.emit1("Gemm", {a, dy}, gemm_attrs(true, false, 1.0f)));
      gb.set_grad_of_input(1, g);
    }
    return Status::Ok();
  }
  if (rb == 2) {
    // Activations [..., M, K] times a weight matrix [K, N] (a Linear layer): the batch dims fold
    // into the rows, so each gradient is one Gemm and no batched product is summed afterwards.
    const Shape as = gb.shape_of(a);
    const int64_t k = as.back(), n = gb.shape_of(b)[1];
    TRY_EMIT(dy2, gb.emit1("Reshape", {dy, gb.int64s({-1, n})}));
    if (gb.wants_grad_of_input(0)) {
      TRY_EMIT(g2, gb.emit1("Gemm", {dy2, b}, gemm_attrs(false, true, 1.0f)));
      TRY_EMIT(g, gb.emit1("Reshape", {g2, gb.int64s(as)}));
      gb.set_grad_of_input(0, g);
    }
    if (gb.wants_grad_of_input(1)) {
      TRY_EMIT(a2, gb.emit1("Reshape", {a, gb.int64s({-1, k})}));
      TRY_EMIT(g, gb.emit1("Gemm", {a2, dy2}, gemm_attrs(true, false, 1.0f)));
      gb.set_grad_of_input(1, g);
    }
    return Status::Ok();
  }
  if (gb.wants_grad_of_input(0)) {
    TRY_EMIT(bt, transpose_last2(gb, b));
    TRY_EMIT(g, gb.emit1("MatMul", {dy, bt}));
    OPENGE_RETURN_IF_ERROR(give(gb, 0, g));
  }
  if (gb.wants_grad_of_input(1)) {
    TRY_EMIT(at, transpose_last2(gb, a));
    TRY_EMIT(g, gb.emit1("MatMul", {at, dy}));
    OPENGE_RETURN_IF_ERROR(give(gb, 1, g));
  }
  return Status::Ok();
}

// ReduceSum / ReduceMean: dY reshaped to the input's rank (reduced dims kept as 1), scaled by
// 1/count for the mean, and expanded back to the input's shape.
template <bool kMean>
Status reduce_grad(GradientBuilder& gb) {
  const Node& n = gb.node();
  const Shape& x = gb.shape_of(gb.input(0));
  const int64_t rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = n.attrs.get_ints("axes");
  if (gb.input(1) >= 0) {
    const Value& av = gb.value(gb.input(1));
    if (!av.constant) return gb.error("axes must be a constant to differentiate");
    axes = av.constant->to_int64_vector();
  }
  if (axes.empty() && n.attrs.get_int("noop_with_empty_axes", 0) != 0) {
    gb.set_grad_of_input(0, gb.grad_of_output(0));
    return Status::Ok();
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  auto norm = normalize_axes(axes, rank);
  if (!norm.ok()) return gb.error(norm.status().message());
  Shape kept = x;
  int64_t count = 1;
  for (int64_t d : *norm) {
    count *= x[static_cast<size_t>(d)];
    kept[static_cast<size_t>(d)] = 1;
  }
  TRY_EMIT(r, gb.emit1("Reshape", {gb.grad_of_output(0), gb.int64s(kept)}));
  int g = r;
  if (kMean) {
    TRY_EMIT(s, gb.emit1("Mul", {r, gb.scalar(gb.dtype_of(r), count > 0 ? 1.0 / static_cast<double>(count) : 0.0)}));
    g = s;
  }
  TRY_EMIT(e, gb.emit1("Expand", {g, gb.int64s(x)}));
  gb.set_grad_of_input(0, e);
  return Status::Ok();
}

}  // namespace

void add_math_gradient_rules(std::vector<GradientRule>& rules) {
  rules.insert(rules.end(), {
                                {"Add", add_grad},
                                {"Sub", sub_grad},
                                {"Mul", mul_grad},
                                {"Div", div_grad},
                                {"Neg", neg_grad},
                                {"Exp", exp_grad},
                                {"Log", log_grad},
                                {"Sqrt", sqrt_grad},
                                {"Pow", pow_grad},
                                {"Gemm", gemm_grad},
                                {"MatMul", matmul_grad},
                                {"ReduceSum", reduce_grad<false>},
                                {"ReduceMean", reduce_grad<true>},
                            });
}

}  // namespace openge
