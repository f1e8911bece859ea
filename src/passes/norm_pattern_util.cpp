#include "passes/norm_pattern_util.h"

#include <algorithm>

#include "ir/dispatch.h"
#include "passes/pass_util.h"

namespace openge::passes {

std::optional<std::vector<int64_t>> mean_axes(const Node& rm, int64_t rank) {
  if (!is_op(rm, "ReduceMean") || !rm.domain.empty() || rm.attrs.get_int("keepdims", 1) == 0) return std::nullopt;
  std::vector<int64_t> axes = rm.attrs.get_ints("axes");
  if (axes.empty() || rm.inputs.size() != 1) return std::nullopt;
  for (auto& a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return std::nullopt;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
  return axes;
}

std::optional<int64_t> trailing_axis(const Node& rm, int64_t rank) {
  const auto axes = mean_axes(rm, rank);
  if (!axes) return std::nullopt;
  for (size_t i = 0; i < axes->size(); ++i)
    if ((*axes)[i] != rank - static_cast<int64_t>(axes->size()) + static_cast<int64_t>(i)) return std::nullopt;
  return axes->front();
}

int affine_input(Graph& g, int c, DType dtype, const Shape& x, int64_t axis) {
  const Tensor* t = constant_of(g, c);
  if (!t || t->dtype() != dtype) return -1;
  Shape s = t->shape();
  const size_t k = x.size() - static_cast<size_t>(axis);
  while (s.size() > k && s.front() == 1) s.erase(s.begin());
  if (s.size() > k) return -1;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1 && s[i] != x[x.size() - s.size() + i]) return -1;
  if (s == t->shape()) return c;
  return add_constant(g, g.values[static_cast<size_t>(c)].name + "_normalized_dims", t->reshaped(s).clone());
}

Tensor one_of(DType dtype) {
  Tensor t(dtype, {1});
  visit_float_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    t.data<T>()[0] = T(static_cast<float_or_self_t<T>>(1));
  });
  return t;
}

}  // namespace openge::passes
