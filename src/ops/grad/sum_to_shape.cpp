// SumToShape: the gradient of broadcasting. An input that broadcasting stretched to the output's
// shape receives the output's gradient summed over the stretched dims (a dim of size 1 in the
// target, or a leading dim the target lacks). Sums run in double, in element order, so the
// result does not depend on the thread count.
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

Status infer_sum_to_shape(InferContext& ctx) {
  const Shape target = ctx.attrs().get_ints("shape");
  for (int64_t d : target)
    if (d < 0) return ctx.error("shape " + shape_to_string(target) + " has a negative dim");
  if (!is_nn_float(ctx.input_dtype(0)))
    return ctx.error(std::string("takes a float tensor, got ") + dtype_name(ctx.input_dtype(0)));
  if (ctx.input_shape_known(0)) {
    const Shape& x = ctx.input_shape(0);
    if (target.size() > x.size())
      return ctx.error("cannot reduce " + shape_to_string(x) + " to the larger rank of " + shape_to_string(target));
    const size_t lead = x.size() - target.size();
    for (size_t i = 0; i < target.size(); ++i)
      if (target[i] != 1 && target[i] != x[lead + i])
        return ctx.error("cannot reduce " + shape_to_string(x) + " to " + shape_to_string(target) + " (dim " +
                         std::to_string(i) + " is neither 1 nor equal)");
  }
  ctx.set_output(0, ctx.input_dtype(0), target);
  return Status::Ok();
}

// The common form: only leading dims are summed away (a bias's gradient, [B, S, H] -> [H]): rows
// of `inner` values added in order, the inner loop vectorised.
template <class T>
bool sum_leading_dims(const Tensor& x, Tensor& y) {
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const size_t lead = xs.size() - ys.size();
  size_t first_kept = lead;  // the reduced dims must be lead's and the target's leading 1s
  while (first_kept < xs.size() && ys[first_kept - lead] == 1 && xs[first_kept] != 1) ++first_kept;
  for (size_t d = first_kept; d < xs.size(); ++d)
    if (ys[d - lead] != xs[d]) return false;
  int64_t inner = 1;
  for (size_t d = first_kept; d < xs.size(); ++d) inner *= xs[d];
  const int64_t outer = inner == 0 ? 0 : x.numel() / inner;
  using F = float_or_self_t<T>;
  const T* xp = x.data<T>();
  std::vector<double> acc(static_cast<size_t>(inner), 0.0);
  parallel_for(inner, outer * 2, [&](int64_t b, int64_t e) {
    for (int64_t r = 0; r < outer; ++r) {
      const T* row = xp + r * inner;
      for (int64_t j = b; j < e; ++j) acc[static_cast<size_t>(j)] += static_cast<double>(static_cast<F>(row[j]));
    }
  });
  T* out = y.data<T>();
  for (int64_t i = 0; i < inner; ++i) out[i] = nn_store<T>(static_cast<nn_acc_t<T>>(acc[static_cast<size_t>(i)]));
  return true;
}

template <class T>
void sum_to_shape_typed(const Tensor& x, Tensor& y) {
  if (sum_leading_dims<T>(x, y)) return;
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const size_t rank = xs.size(), lead = rank - ys.size();
  // Output stride of each input dim: 0 where the dim is summed away.
  std::vector<int64_t> ostride(rank, 0);
  int64_t s = 1;
  for (size_t i = ys.size(); i-- > 0;) {
    if (ys[i] != 1) ostride[lead + i] = s;
    s *= ys[i];
  }
  std::vector<double> acc(static_cast<size_t>(y.numel()), 0.0);
  const AccView<double> xv(x);
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (int64_t e = 0; e < x.numel(); ++e) {
    acc[static_cast<size_t>(off)] += xv[e];
    for (size_t d = rank; d-- > 0;) {  // next multi-index, carrying the output offset along
      off += ostride[d];
      if (++idx[d] < xs[d]) break;
      off -= ostride[d] * xs[d];
      idx[d] = 0;
    }
  }
  T* out = y.data<T>();
  for (int64_t i = 0; i < y.numel(); ++i) out[i] = nn_store<T>(static_cast<nn_acc_t<T>>(acc[static_cast<size_t>(i)]));
}

Status sum_to_shape_kernel(KernelContext& ctx) {
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { sum_to_shape_typed<typename decltype(tag)::type>(ctx.input(0), ctx.output(0)); });
  return Status::Ok();
}

}  // namespace

void register_sum_to_shape_op(std::vector<OpSchema>& table) {
  table.push_back({"SumToShape", 1, 1, 1, 1, infer_sum_to_shape, sum_to_shape_kernel});
}

}  // namespace openge
