// ConvGrad(dY, X, W) -> dX, dW, dB for Conv with the forward node's attributes (any spatial
// rank, groups, strides, dilations, pads, auto_pad). Per sample and group, with the column
// matrix col[c·K + k, p] = X at the input position that kernel tap k reads for output p:
//   dW_g += dY_g · colᵀ        dcol = W_gᵀ · dY_g, scattered back into dX (col2im)
//   dB[o] = Σ dY[n, o, ·]
// The products run on the reference engine's GEMM (ops/math/math_gemm.h). dW and dB add the samples
// up in order, and each sample's dX is its own, so results do not depend on the thread count.
#include <algorithm>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/math/math_gemm.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"

namespace openge {
namespace {

Result<WindowGeometry> conv_grad_geometry(const Attributes& attrs, const Shape& x, const Shape& w) {
  const std::vector<int64_t> kernel = spatial_dims(w);
  auto params = read_window_params(attrs, x.size() - 2, &kernel, false);
  if (!params.ok()) return params.status();
  return resolve_window(*params, spatial_dims(x));
}

Status infer_conv_grad(InferContext& ctx) {
  for (size_t i = 0; i < 3; ++i) OPENGE_RETURN_IF_ERROR(check_float_input(ctx, i, i == 0 ? "dY" : i == 1 ? "X" : "W"));
  const DType dt = ctx.input_dtype(1);
  const bool known = ctx.input_shape_known(1) && ctx.input_shape_known(2);
  if (known && (ctx.input_shape(1).size() < 3 || ctx.input_shape(2).size() != ctx.input_shape(1).size()))
    return ctx.error("X " + shape_to_string(ctx.input_shape(1)) + " and W " + shape_to_string(ctx.input_shape(2)) +
                     " are not N x C x D... and M x C/group x k...");
  auto set = [&](size_t o, const Shape* s) {
    if (o >= ctx.num_outputs() || ctx.node().outputs[o] < 0) return;
    if (s)
      ctx.set_output(o, dt, *s);
    else
      ctx.set_output_dtype(o, dt);
  };
  if (!known) {
    for (size_t o = 0; o < 3; ++o) set(o, nullptr);
    return Status::Ok();
  }
  const Shape& w = ctx.input_shape(2);
  const Shape bias{w[0]};
  set(0, &ctx.input_shape(1));
  set(1, &w);
  set(2, &bias);
  return Status::Ok();
}

// Geometry padded to three spatial dims, so one loop nest serves Conv1D, 2D and 3D.
struct Geometry3 {
  int64_t in[3], out[3], k[3], s[3], d[3], pad[3];
};

Geometry3 pad_to_3(const WindowGeometry& g) {
  Geometry3 r{};
  const size_t off = 3 - g.rank();
  for (size_t i = 0; i < 3; ++i) {
    const bool real = i >= off;
    const size_t j = i - off;
    r.in[i] = real ? g.input[j] : 1;
    r.out[i] = real ? g.output[j] : 1;
    r.k[i] = real ? g.kernel[j] : 1;
    r.s[i] = real ? g.strides[j] : 1;
    r.d[i] = real ? g.dilations[j] : 1;
    r.pad[i] = real ? g.pad_begin[j] : 0;
  }
  return r;
}

// Calls fn(row, p, input_offset or -1 for padding) for every (channel·tap, output position).
template <class Fn>
void for_each_tap(const Geometry3& g, int64_t channels, Fn&& fn) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < g.k[2]; ++k2, ++row) {
          int64_t p = 0;
          for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
            const int64_t i0 = o0 * g.s[0] - g.pad[0] + k0 * g.d[0];
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
              const int64_t i1 = o1 * g.s[1] - g.pad[1] + k1 * g.d[1];
              for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++p) {
                const int64_t i2 = o2 * g.s[2] - g.pad[2] + k2 * g.d[2];
                const bool inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
                fn(row, p, inside ? c * in_plane + (i0 * g.in[1] + i1) * g.in[2] + i2 : -1);
              }
            }
          }
        }
}

template <class T>
Status conv_grad_typed(KernelContext& ctx, const WindowGeometry& wg) {
  using Acc = nn_acc_t<T>;
  const Tensor& dyt = ctx.input(0);
  const Tensor& xt = ctx.input(1);
  const Tensor& wt = ctx.input(2);
  const Geometry3 g = pad_to_3(wg);
  const int64_t batch = xt.dim(0), channels = xt.dim(1), m_total = wt.dim(0);
  const int64_t group = ctx.attrs().get_int("group", 1);
  if (group < 1 || channels % group != 0 || m_total % group != 0)
    return ctx.error("group does not divide the channels");
  const int64_t cg = channels / group, mg = m_total / group;
  const int64_t taps = g.k[0] * g.k[1] * g.k[2];
  const int64_t kc = cg * taps;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t positions = g.out[0] * g.out[1] * g.out[2];
  if (dyt.numel() != batch * m_total * positions)
    return ctx.error("dY " + shape_to_string(dyt.shape()) + " does not match the forward output");
  const AccView<Acc> dy(dyt), x(xt), w(wt);
  const int64_t zero_offset = 0;

  if (ctx.has_output(0)) {  // dX: one sample and group per item, in parallel
    AccOutput<T, Acc> dx_out(ctx.output(0));
    Acc* dx = dx_out.data();  // zeroed by the executor (ops/atomic_outputs.h)
    // W_gᵀ: kc x mg per group, so dcol = W_gᵀ · dY_g is a plain product.
    std::vector<Acc> wtr(static_cast<size_t>(group * kc * mg));
    for (int64_t gi = 0; gi < group; ++gi)
      for (int64_t m = 0; m < mg; ++m)
        for (int64_t r = 0; r < kc; ++r) wtr[static_cast<size_t>((gi * kc + r) * mg + m)] = w[(gi * mg + m) * kc + r];
    parallel_for(batch * group, mg * kc * positions + kc * positions, [&](int64_t b, int64_t e) {
      std::vector<Acc> dcol(static_cast<size_t>(kc * positions));
      for (int64_t item = b; item < e; ++item) {
        const int64_t n = item / group, gi = item % group;
        const Acc* dyg = dy.data() + (n * m_total + gi * mg) * positions;
        batched_gemm<Acc>(1, kc, positions, mg, wtr.data() + gi * kc * mg, &zero_offset, mg, dyg, &zero_offset,
                          positions, false, dcol.data());
        Acc* dxg = dx + (n * channels + gi * cg) * in_plane;
        for_each_tap(g, cg, [&](int64_t row, int64_t p, int64_t at) {
          if (at >= 0) dxg[at] += dcol[static_cast<size_t>(row * positions + p)];
        });
      }
    });
    dx_out.finish();
  }
  if (ctx.has_output(1)) {  // dW: samples in order, each product parallel inside
    AccOutput<T, Acc> dw_out(ctx.output(1));
    Acc* dw = dw_out.data();  // zeroed by the executor (ops/atomic_outputs.h)
    std::vector<Acc> col(static_cast<size_t>(kc * positions)), part(static_cast<size_t>(mg * kc));
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t gi = 0; gi < group; ++gi) {
        const Acc* xg = x.data() + (n * channels + gi * cg) * in_plane;
        for_each_tap(g, cg, [&](int64_t row, int64_t p, int64_t at) {
          col[static_cast<size_t>(row * positions + p)] = at >= 0 ? xg[at] : Acc(0);
        });
        const Acc* dyg = dy.data() + (n * m_total + gi * mg) * positions;
        batched_gemm<Acc>(1, mg, kc, positions, dyg, &zero_offset, positions, col.data(), &zero_offset, positions, true,
                          part.data());
        Acc* dwg = dw + gi * mg * kc;
        for (int64_t i = 0; i < mg * kc; ++i) dwg[i] += part[static_cast<size_t>(i)];
      }
    dw_out.finish();
  }
  if (ctx.has_output(2)) {  // dB
    T* db = ctx.output(2).data<T>();
    for (int64_t m = 0; m < m_total; ++m) {
      double s = 0;
      for (int64_t n = 0; n < batch; ++n) {
        const Acc* row = dy.data() + (n * m_total + m) * positions;
        for (int64_t p = 0; p < positions; ++p) s += row[p];
      }
      db[m] = nn_store<T>(static_cast<Acc>(s));
    }
  }
  return Status::Ok();
}

Status conv_grad_kernel(KernelContext& ctx) {
  // Weights a trainer holds in a oneDNN layout (variable_format_optimize) are read by oneDNN only.
  if (ctx.attrs().has("weight_format"))
    return ctx.error("the weights are in a oneDNN layout (weight_format), which this reference kernel cannot read");
  const Shape& x = ctx.input(1).shape();
  if (x.size() < 3 || x.size() > 5) return ctx.error("ConvGrad takes 1 to 3 spatial dims, got X " + shape_to_string(x));
  auto g = conv_grad_geometry(ctx.attrs(), x, ctx.input(2).shape());
  if (!g.ok()) return ctx.error(g.status().message());
  Status status = Status::Ok();
  visit_float_dtype(x.empty() ? DType::kFloat32 : ctx.input(1).dtype(),
                    [&](auto tag) { status = conv_grad_typed<typename decltype(tag)::type>(ctx, *g); });
  return status;
}

}  // namespace

void register_conv_grad_op(std::vector<OpSchema>& table) {
  table.push_back({"ConvGrad", 3, 3, 1, 3, infer_conv_grad, conv_grad_kernel});
}

}  // namespace openge
