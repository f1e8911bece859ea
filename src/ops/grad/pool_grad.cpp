// MaxPoolGrad(dY, X) and AveragePoolGrad(dY, X) -> dX, with the forward node's attributes.
// Both walk the forward kernel's own windows (ops/nn/pool_window.h): MaxPool's gradient goes to the
// first maximum of each window (the tap its forward chose), AveragePool's is spread over the
// window's taps divided by the count the forward divided by (count_include_pad).
#include <algorithm>
#include <limits>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/pool_window.h"

namespace openge {
namespace {

Status infer_pool_grad(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "dY"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "X"));
  if (ctx.input_shape_known(1))
    ctx.set_output(0, ctx.input_dtype(1), ctx.input_shape(1));
  else
    ctx.set_output_dtype(0, ctx.input_dtype(1));
  return Status::Ok();
}

// One output position's gradient `grad` given back to the input: to the window's first maximum
// (MaxPool) or spread over its taps divided by `count` (AveragePool). `for_each_tap(fn)` calls
// fn(offset) for every valid tap of the window, in the forward kernel's order.
template <bool kMax, class T, class Acc, class Taps>
void give_window(const T* xp, Acc* dxp, Acc grad, int64_t count, Taps&& for_each_tap) {
  using V = float_or_self_t<T>;
  if constexpr (kMax) {
    V best = std::numeric_limits<V>::lowest();
    int64_t best_off = -1;
    for_each_tap([&](int64_t off) {
      const V v = static_cast<V>(xp[off]);
      if (best_off < 0 || v > best) {  // the first maximum, as the forward chose it
        best = v;
        best_off = off;
      }
    });
    if (best_off >= 0) dxp[best_off] += grad;
  } else {
    if (count <= 0) return;
    const Acc share = grad / static_cast<Acc>(count);
    for_each_tap([&](int64_t off) { dxp[off] += share; });
  }
}

template <class T, bool kMax>
void pool_grad_typed(KernelContext& ctx, const WindowGeometry& g) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(1);
  const T* x = xt.data<T>();
  const AccView<Acc> dy(ctx.input(0));
  AccOutput<T, Acc> out(ctx.output(0));
  Acc* dx = out.data();  // zeroed by the executor (ops/atomic_outputs.h)
  const bool include_pad = ctx.attrs().get_int("count_include_pad", 0) == 1;
  const int64_t planes = xt.dim(0) * xt.dim(1);
  const int64_t in_plane = shape_numel(g.input), out_plane = g.output_size();
  const WindowTaps taps = window_taps(g);
  const PlaneWalker walk(g, taps);
  const bool two_d = g.rank() == 2;  // the common case: plain loops over the taps the walker visits
  parallel_for(planes, out_plane * std::max<int64_t>(1, g.kernel_size()), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> o(g.rank());
    for (int64_t p = begin; p < end; ++p) {
      const T* xp = x + p * in_plane;
      Acc* dxp = dx + p * in_plane;
      const Acc* dyp = dy.data() + p * out_plane;
      if (two_d) {
        const int64_t ow_n = g.output[1], iw = g.input[1], dh = g.dilations[0], dw = g.dilations[1];
        for (int64_t oh = 0; oh < g.output[0]; ++oh) {
          const size_t uh = static_cast<size_t>(oh);
          const int64_t h0 = taps.first[0][uh], hn = taps.count[0][uh];
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const size_t uw = static_cast<size_t>(ow);
            const int64_t w0 = taps.first[1][uw], wn = taps.count[1][uw];
            const int64_t count = include_pad ? taps.padded_count[0][uh] * taps.padded_count[1][uw] : hn * wn;
            give_window<kMax>(xp, dxp, dyp[oh * ow_n + ow], count, [&](auto&& fn) {
              for (int64_t a = 0; a < hn; ++a)
                for (int64_t b = 0; b < wn; ++b) fn((h0 + a * dh) * iw + w0 + b * dw);
            });
          }
        }
        continue;
      }
      std::fill(o.begin(), o.end(), 0);
      for (int64_t i = 0; i < out_plane; ++i) {
        const int64_t count = include_pad ? walk.padded_taps(o) : walk.valid_taps(o);
        give_window<kMax>(xp, dxp, dyp[i], count, [&](auto&& fn) { walk.for_each_tap(o, fn); });
        odometer_next(o, g.output);
      }
    }
  });
  out.finish();
}

template <bool kMax>
Status pool_grad_kernel(KernelContext& ctx) {
  const Shape& x = ctx.input(1).shape();
  if (x.size() < 3) return ctx.error("X must be N x C x D..., got " + shape_to_string(x));
  auto g = pool_geometry(ctx.attrs(), x);
  if (!g.ok()) return ctx.error(g.status().message());
  if (ctx.input(0).numel() != x[0] * x[1] * g->output_size())
    return ctx.error("dY " + shape_to_string(ctx.input(0).shape()) + " does not match the forward output");
  visit_float_dtype(ctx.input(1).dtype(),
                    [&](auto tag) { pool_grad_typed<typename decltype(tag)::type, kMax>(ctx, *g); });
  return Status::Ok();
}

}  // namespace

void register_pool_grad_ops(std::vector<OpSchema>& table) {
  table.push_back({"MaxPoolGrad", 2, 2, 1, 1, infer_pool_grad, pool_grad_kernel<true>});
  table.push_back({"AveragePoolGrad", 2, 2, 1, 1, infer_pool_grad, pool_grad_kernel<false>});
}

}  // namespace openge
