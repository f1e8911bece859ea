// Gradient rules of the ops that move data without arithmetic: views (Reshape and its kin),
// Transpose, Concat / Split, Gather, Expand, Where and Cast.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ops/grad/grad_ops.h"
#include "ops/grad/gradient_rules.h"

namespace openge {
namespace {

// Reshape, Flatten, Squeeze, Unsqueeze: the gradient takes the input's shape back.
Status view_grad(GradientBuilder& gb) {
  TRY_EMIT(g, gb.emit1("Reshape", {gb.grad_of_output(0), gb.int64s(gb.shape_of(gb.input(0)))}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Status identity_grad(GradientBuilder& gb) {
  gb.set_grad_of_input(0, gb.grad_of_output(0));
  return Status::Ok();
}

Status transpose_grad(GradientBuilder& gb) {
  const size_t rank = gb.shape_of(gb.input(0)).size();
  std::vector<int64_t> perm = gb.node().attrs.get_ints("perm");
  if (perm.empty())
    for (size_t d = 0; d < rank; ++d) perm.push_back(static_cast<int64_t>(rank - 1 - d));
  std::vector<int64_t> inverse(rank);
  for (size_t d = 0; d < rank; ++d)
    inverse[static_cast<size_t>(perm[d] < 0 ? perm[d] + static_cast<int64_t>(rank) : perm[d])] =
        static_cast<int64_t>(d);
  Attributes a;
  a.set("perm", ints_attr(inverse));
  TRY_EMIT(g, gb.emit1("Transpose", {gb.grad_of_output(0)}, std::move(a)));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

// Concat: each input's gradient is its slice of dY along the axis.
Status concat_grad(GradientBuilder& gb) {
  const int64_t rank = static_cast<int64_t>(gb.shape_of(gb.output(0)).size());
  int64_t axis = gb.node().attrs.get_int("axis", 0);
  if (axis < 0) axis += rank;
  int64_t offset = 0;
  for (size_t i = 0; i < gb.node().inputs.size(); ++i) {
    const int64_t len = gb.shape_of(gb.input(i))[static_cast<size_t>(axis)];
    if (gb.wants_grad_of_input(i)) {
      TRY_EMIT(s, gb.emit1("Slice",
                           {gb.grad_of_output(0), gb.int64s({offset}), gb.int64s({offset + len}), gb.int64s({axis})}));
      gb.set_grad_of_input(i, s);
    }
    offset += len;
  }
  return Status::Ok();
}

// Split: the outputs' gradients concatenated back (zeros for an output no gradient reaches).
Status split_grad(GradientBuilder& gb) {
  const int64_t rank = static_cast<int64_t>(gb.shape_of(gb.input(0)).size());
  int64_t axis = gb.node().attrs.get_int("axis", 0);
  if (axis < 0) axis += rank;
  std::vector<int> parts;
  for (size_t o = 0; o < gb.node().outputs.size(); ++o) {
    int g = gb.grad_of_output(o);
    if (g < 0) {
      Tensor zeros(gb.dtype_of(gb.output(o)), gb.shape_of(gb.output(o)));
      g = gb.constant(std::move(zeros));
    }
    parts.push_back(g);
  }
  Attributes a;
  a.set("axis", int_attr(axis));
  TRY_EMIT(g, gb.emit1("Concat", std::move(parts), std::move(a)));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

// Slice with constant starts, ends, axes and unit steps: the gradient is dY padded with zeros
// back to the input's shape (Pad's begin pads are the clamped starts).
Status slice_grad(GradientBuilder& gb) {
  const Shape x = gb.shape_of(gb.input(0));
  const int64_t rank = static_cast<int64_t>(x.size());
  auto constant_ints = [&](size_t i) -> std::optional<std::vector<int64_t>> {
    if (gb.input(i) < 0) return std::vector<int64_t>{};
    const Value& v = gb.value(gb.input(i));
    if (!v.constant) return std::nullopt;
    return v.constant->to_int64_vector();
  };
  const auto starts = constant_ints(1), ends = constant_ints(2), axes_in = constant_ints(3), steps = constant_ints(4);
  if (!starts || !ends || !axes_in || !steps)
    return gb.error("starts, ends, axes and steps must be constants to differentiate");
  std::vector<int64_t> axes = *axes_in;
  if (axes.empty())
    for (size_t i = 0; i < starts->size(); ++i) axes.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  const Shape y = gb.shape_of(gb.output(0));
  for (size_t i = 0; i < axes.size(); ++i) {
    if (!steps->empty() && (*steps)[i] != 1) return gb.error("only unit steps have a gradient rule");
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    const int64_t dim = x[static_cast<size_t>(a)];
    int64_t s = (*starts)[i];
    if (s < 0) s += dim;
    s = std::clamp<int64_t>(s, 0, dim);
    pads[static_cast<size_t>(a)] = s;
    pads[static_cast<size_t>(a + rank)] = dim - s - y[static_cast<size_t>(a)];
  }
  TRY_EMIT(g, gb.emit1("Pad", {gb.grad_of_output(0), gb.int64s(pads)}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Status gather_grad(GradientBuilder& gb) {
  if (gb.wants_grad_of_input(1)) return gb.error("indices have no gradient");
  Attributes a;
  a.set("axis", int_attr(gb.node().attrs.get_int("axis", 0)));
  a.set("shape", ints_attr(gb.shape_of(gb.input(0))));
  TRY_EMIT(g, gb.emit1("GatherGrad", {gb.grad_of_output(0), gb.input(1)}, std::move(a), kGradDomain));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Status expand_grad(GradientBuilder& gb) {
  auto g = sum_to_input(gb, gb.grad_of_output(0), 0);
  if (!g.ok()) return g.status();
  gb.set_grad_of_input(0, *g);
  return Status::Ok();
}

// Where(cond, A, B): dA = where(cond, dY, 0), dB = where(cond, 0, dY), each summed back.
Status where_grad(GradientBuilder& gb) {
  const int dy = gb.grad_of_output(0);
  const int zero = gb.scalar(gb.dtype_of(dy), 0.0);
  for (size_t i = 1; i < 3; ++i) {
    if (!gb.wants_grad_of_input(i)) continue;
    TRY_EMIT(w, gb.emit1("Where", {gb.input(0), i == 1 ? dy : zero, i == 1 ? zero : dy}));
    auto g = sum_to_input(gb, w, i);
    if (!g.ok()) return g.status();
    gb.set_grad_of_input(i, *g);
  }
  return Status::Ok();
}

// Cast between float types: the gradient is cast back.
Status cast_grad(GradientBuilder& gb) {
  Attributes a;
  a.set("to", int_attr(static_cast<int64_t>(gb.dtype_of(gb.input(0)))));
  TRY_EMIT(g, gb.emit1("Cast", {gb.grad_of_output(0)}, std::move(a)));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

}  // namespace

void add_shape_gradient_rules(std::vector<GradientRule>& rules) {
  rules.insert(rules.end(), {
                                {"Reshape", view_grad},
                                {"Flatten", view_grad},
                                {"Squeeze", view_grad},
                                {"Unsqueeze", view_grad},
                                {"Identity", identity_grad},
                                {"Transpose", transpose_grad},
                                {"Concat", concat_grad},
                                {"Split", split_grad},
                                {"Slice", slice_grad},
                                {"Gather", gather_grad},
                                {"Expand", expand_grad},
                                {"Where", where_grad},
                                {"Cast", cast_grad},
                            });
}

}  // namespace openge
