// Conv and ConvTranspose reference kernels (N-D, grouped, dilated, strided, padded).
// Conv: im2col on chunks of output positions + the shared GEMM core (ops/math/math_gemm.h). ConvTranspose: a direct
// scatter per output channel plane, parallel over (batch, output channel), so no two threads write the same output
// element. Both accumulate in float (double for fp64) and round once.
#include <algorithm>
#include <cstring>

#include "ops/math/math_gemm.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"
#include "base/parallel.h"

namespace openge {
namespace {

// ---------------------------------------------------------------------------------------------
// Shared validation.

struct ConvShapes {
  int64_t batch = -1, in_channels = -1, out_channels = -1, group = 1;
  std::vector<int64_t> input_spatial, kernel_spatial;
};

// Checks X/W/B shapes common to Conv (transposed = false) and ConvTranspose.
Status check_conv_shapes(const InferContext& ctx, bool transposed, ConvShapes* s) {
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  if (x.size() < 3)
    return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ... (rank >= 3)");
  if (w.size() != x.size())
    return ctx.error("weight W has shape " + shape_to_string(w) + "; expected rank " + std::to_string(x.size()) +
                     " like X " + shape_to_string(x));
  const int64_t group = ctx.attrs().get_int("group", 1);
  if (group < 1 || group > kMaxWindowAttr) return ctx.error("group must be >= 1, got " + std::to_string(group));
  s->group = group;
  s->batch = x[0];
  s->in_channels = x[1];
  s->input_spatial = spatial_dims(x);
  s->kernel_spatial = spatial_dims(w);
  if (s->in_channels >= 0 && s->in_channels % group != 0)
    return ctx.error("input channels " + std::to_string(s->in_channels) + " are not divisible by group " +
                     std::to_string(group));
  if (!transposed) {
    if (w[1] >= 0 && s->in_channels >= 0 && w[1] * group != s->in_channels)
      return ctx.error("weight W " + shape_to_string(w) + " has " + std::to_string(w[1]) +
                       " input channels per group; X " + shape_to_string(x) + " with group " + std::to_string(group) +
                       " needs " + std::to_string(s->in_channels / group));
    s->out_channels = w[0];
    if (w[0] >= 0 && w[0] % group != 0)
      return ctx.error("weight W " + shape_to_string(w) + ": output channels " + std::to_string(w[0]) +
                       " are not divisible by group " + std::to_string(group));
  } else {
    if (w[0] >= 0 && s->in_channels >= 0 && w[0] != s->in_channels)
      return ctx.error("weight W " + shape_to_string(w) + " must have X's " + std::to_string(s->in_channels) +
                       " channels as its first dim");
    s->out_channels = w[1] >= 0 ? w[1] * group : -1;
  }
  if (ctx.input_shape_known(2)) {
    const Shape& b = ctx.input_shape(2);
    if (b.size() != 1 || (s->out_channels >= 0 && b[0] >= 0 && b[0] != s->out_channels))
      return ctx.error("bias B has shape " + shape_to_string(b) + "; expected [" + std::to_string(s->out_channels) +
                       "]");
  }
  return Status::Ok();
}

Status check_conv_dtypes(const InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "weight W"));
  return check_float_input(ctx, 2, "bias B");
}

// ---------------------------------------------------------------------------------------------
// Conv.

Result<WindowGeometry> conv_geometry(const Attributes& attrs, const Shape& x, const Shape& w) {
  const std::vector<int64_t> kernel = spatial_dims(w);
  auto params = read_window_params(attrs, x.size() - 2, &kernel, false);
  if (!params.ok()) return params.status();
  return resolve_window(*params, spatial_dims(x));
}

Status infer_conv(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_conv_dtypes(ctx));
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  ConvShapes s;
  OPENGE_RETURN_IF_ERROR(check_conv_shapes(ctx, false, &s));
  auto geom = conv_geometry(ctx.attrs(), ctx.input_shape(0), ctx.input_shape(1));
  if (!geom.ok()) return ctx.error(geom.status().message());
  Shape out{s.batch, s.out_channels};
  out.insert(out.end(), geom->output.begin(), geom->output.end());
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// im2col works on tiles of kTile output positions; a chunk of positions is im2col'ed and
// multiplied at once, its column matrix kept under kMaxColElements.
constexpr int64_t kTile = 256;
constexpr int64_t kMaxColElements = int64_t{1} << 22;

// Fills col[r * ldcol + t] = x[c][input position of (r, t)] (0 in the padding), where row
// r = c * kernel_size + kernel offset and t indexes output positions [p0, p0 + tile_len).
template <class Acc>
void im2col_tile(const Acc* x, const WindowGeometry& g, int64_t channels, int64_t p0, int64_t tile_len,
                 std::vector<int64_t>& base, Acc* col, int64_t ldcol) {
  const size_t r = g.rank();
  // Per position and dim: the input coordinate of kernel offset 0.
  base.resize(r * static_cast<size_t>(tile_len));
  {
    std::vector<int64_t> o(r);
    int64_t rem = p0;
    for (size_t d = r; d-- > 0;) {
      o[d] = rem % g.output[d];
      rem /= g.output[d];
    }
    for (int64_t t = 0; t < tile_len; ++t) {
      for (size_t d = 0; d < r; ++d)
        base[d * static_cast<size_t>(tile_len) + static_cast<size_t>(t)] = o[d] * g.strides[d] - g.pad_begin[d];
      for (size_t d = r; d-- > 0;) {  // odometer step
        if (++o[d] < g.output[d]) break;
        o[d] = 0;
      }
    }
  }
  std::vector<int64_t> in_stride(r);
  int64_t plane = 1;
  for (size_t d = r; d-- > 0;) {
    in_stride[d] = plane;
    plane *= g.input[d];
  }
  const int64_t ksize = g.kernel_size();
  std::vector<int64_t> k(r, 0);
  for (int64_t row = 0; row < channels * ksize; ++row) {
    const int64_t c = row / ksize;
    int64_t kr = row % ksize;
    for (size_t d = r; d-- > 0;) {
      k[d] = kr % g.kernel[d];
      kr /= g.kernel[d];
    }
    const Acc* xc = x + c * plane;
    Acc* dst = col + row * ldcol;
    if (r == 2) {  // the common case, without the per-dim loop
      const int64_t* b0 = base.data();
      const int64_t* b1 = base.data() + tile_len;
      const int64_t k0 = k[0] * g.dilations[0], k1 = k[1] * g.dilations[1];
      const uint64_t h = static_cast<uint64_t>(g.input[0]), w = static_cast<uint64_t>(g.input[1]);
      for (int64_t t = 0; t < tile_len; ++t) {
        const int64_t i0 = b0[t] + k0, i1 = b1[t] + k1;
        dst[t] = (static_cast<uint64_t>(i0) < h && static_cast<uint64_t>(i1) < w) ? xc[i0 * g.input[1] + i1] : Acc(0);
      }
      continue;
    }
    for (int64_t t = 0; t < tile_len; ++t) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < r; ++d) {
        const int64_t i = base[d * static_cast<size_t>(tile_len) + static_cast<size_t>(t)] + k[d] * g.dilations[d];
        inside = inside && static_cast<uint64_t>(i) < static_cast<uint64_t>(g.input[d]);
        off += i * in_stride[d];
      }
      dst[t] = inside ? xc[off] : Acc(0);
    }
  }
}

// C (m x n, contiguous) = A (m x k, rows k apart) · B (k x n, rows ldb apart) on the shared GEMM
// core. Its signature is gaining a b_transposed flag; accept either form so this file builds
// before and after that change.
template <class Acc>
void gemm_rows(int64_t m, int64_t n, int64_t k, const Acc* a, const Acc* b, int64_t ldb, Acc* c) {
  const int64_t zero = 0;
  if constexpr (requires { batched_gemm<Acc>(1, m, n, k, a, &zero, k, b, &zero, ldb, false, c); })
    batched_gemm<Acc>(1, m, n, k, a, &zero, k, b, &zero, ldb, false, c);
  else
    batched_gemm<Acc>(1, m, n, k, a, &zero, k, b, &zero, ldb, c);
}

// Depthwise 2-D convolution (one input channel per group): a direct loop per output plane,
// since its GEMM would be a single row of depth kernel_size, all im2col and no reuse.
template <class Acc>
void depthwise_conv2d(const Acc* x, const Acc* w, const std::vector<Acc>& bias, Acc* y, const WindowGeometry& g,
                      int64_t batch, int64_t channels, int64_t mg) {
  const int64_t H = g.input[0], W = g.input[1], OH = g.output[0], OW = g.output[1];
  const int64_t KH = g.kernel[0], KW = g.kernel[1], s0 = g.strides[0], s1 = g.strides[1];
  const int64_t m_total = channels * mg;
  parallel_for(batch * m_total, OH * OW * KH * KW, [&](int64_t begin, int64_t end) {
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / m_total, m = nm % m_total, c = m / mg;
      const Acc* xc = x + (n * channels + c) * H * W;
      const Acc* wm = w + m * KH * KW;
      Acc* yp = y + nm * OH * OW;
      const Acc b = bias.empty() ? Acc(0) : bias[static_cast<size_t>(m)];
      for (int64_t i = 0; i < OH * OW; ++i) yp[i] = b;
      for (int64_t kw = 0; kw < KW; ++kw) {
        // output columns whose tap kw lands inside the row: 0 <= ow*s1 + delta < W
        const int64_t delta = kw * g.dilations[1] - g.pad_begin[1];
        const int64_t ow_lo = delta >= 0 ? 0 : (-delta + s1 - 1) / s1;
        const int64_t ow_hi = std::min(OW - 1, W - 1 - delta < 0 ? -1 : (W - 1 - delta) / s1);
        if (ow_lo > ow_hi) continue;
        for (int64_t oh = 0; oh < OH; ++oh) {
          Acc* yr = yp + oh * OW;
          for (int64_t kh = 0; kh < KH; ++kh) {
            const int64_t ih = oh * s0 - g.pad_begin[0] + kh * g.dilations[0];
            if (ih < 0 || ih >= H) continue;
            const Acc wv = wm[kh * KW + kw];
            const Acc* xr = xc + ih * W + delta;
            if (s1 == 1) {
              for (int64_t ow = ow_lo; ow <= ow_hi; ++ow) yr[ow] += wv * xr[ow];
            } else {
              for (int64_t ow = ow_lo; ow <= ow_hi; ++ow) yr[ow] += wv * xr[ow * s1];
            }
          }
        }
      }
    }
  });
}

// Y[n, group g] (mg x positions) = W_g (mg x kc) · im2col(X[n, group g]) (kc x positions) + B,
// on the shared GEMM core. Many (batch, group) items (depthwise, batches) run in parallel one
// item per thread; few items run one after another with the im2col and the GEMM parallel inside.
template <class T>
Status conv_kernel_typed(KernelContext& ctx, const WindowGeometry& g) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const Tensor& wt = ctx.input(1);
  const int64_t batch = xt.dim(0), channels = xt.dim(1), m_total = wt.dim(0);
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t cg = channels / group, mg = m_total / group;
  const int64_t kc = cg * g.kernel_size();  // GEMM depth
  const int64_t in_plane = shape_numel(g.input);
  const int64_t positions = g.output_size();
  AccView<Acc> x(xt), w(wt);
  std::vector<Acc> bias;
  if (ctx.has_input(2)) {
    AccView<Acc> b(ctx.input(2));
    bias.assign(b.data(), b.data() + m_total);
  }
  AccOutput<T, Acc> out(ctx.output(0));
  Acc* y = out.data();
  if (positions == 0 || m_total == 0 || batch == 0) {
    out.finish();
    return Status::Ok();
  }
  if (cg == 1 && g.rank() == 2) {
    depthwise_conv2d(x.data(), w.data(), bias, y, g, batch, channels, mg);
    out.finish();
    return Status::Ok();
  }
  // A 1x1 kernel with stride 1 and no padding reads X as it is: no im2col.
  bool pointwise = true;
  for (size_t d = 0; d < g.rank(); ++d)
    pointwise = pointwise && g.kernel[d] == 1 && g.strides[d] == 1 && g.pad_begin[d] == 0 && g.pad_end[d] == 0;
  const int64_t chunk =
      pointwise ? positions
                : std::min(positions, std::max(kTile, kMaxColElements / std::max<int64_t>(kc, 1) / kTile * kTile));
  const int64_t items = batch * group;

  auto run_item = [&](int64_t item) {
    const int64_t n = item / group, gi = item % group;
    const Acc* xg = x.data() + (n * channels + gi * cg) * in_plane;
    const Acc* wg = w.data() + gi * mg * kc;
    Acc* yg = y + (n * m_total + gi * mg) * positions;
    std::vector<Acc> col(pointwise ? 0 : static_cast<size_t>(kc * chunk));
    std::vector<Acc> part(chunk < positions ? static_cast<size_t>(mg * chunk) : 0);
    for (int64_t p0 = 0; p0 < positions; p0 += chunk) {
      const int64_t len = std::min(chunk, positions - p0);
      const Acc* b = xg + p0;
      int64_t ldb = in_plane;
      if (!pointwise) {
        const int64_t tiles = (len + kTile - 1) / kTile;
        parallel_for(tiles, kc * kTile, [&](int64_t t0, int64_t t1) {
          std::vector<int64_t> base;
          for (int64_t t = t0; t < t1; ++t)
            im2col_tile(xg, g, cg, p0 + t * kTile, std::min(kTile, len - t * kTile), base, col.data() + t * kTile, len);
        });
        b = col.data();
        ldb = len;
      }
      // The GEMM writes a contiguous mg x len block: straight into Y when the chunk is whole rows.
      Acc* c = chunk == positions ? yg : part.data();
      if (kc == 0)
        std::fill(c, c + mg * len, Acc(0));
      else
        gemm_rows<Acc>(mg, len, kc, wg, b, ldb, c);
      for (int64_t m = 0; m < mg; ++m) {
        Acc* dst = yg + m * positions + p0;
        const Acc* src = c + m * len;
        const Acc bv = bias.empty() ? Acc(0) : bias[static_cast<size_t>(gi * mg + m)];
        for (int64_t t = 0; t < len; ++t) dst[t] = src[t] + bv;
      }
    }
  };
  if (items >= 2 * num_threads()) {
    parallel_for(items, mg * kc * positions + kc * positions, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) run_item(item);
    });
  } else {
    for (int64_t item = 0; item < items; ++item) run_item(item);
  }
  out.finish();
  return Status::Ok();
}

Status conv_kernel(KernelContext& ctx) {
  // Weights a trainer holds in a oneDNN layout (variable_format_optimize) are read by oneDNN only.
  if (ctx.attrs().has("weight_format"))
    return ctx.error("the weights are in a oneDNN layout (weight_format), which this reference kernel cannot read");
  auto g = conv_geometry(ctx.attrs(), ctx.input(0).shape(), ctx.input(1).shape());
  if (!g.ok()) return ctx.error(g.status().message());
  // Inference checked these; a kernel must still never read out of bounds.
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const int64_t group = ctx.attrs().get_int("group", 1);
  if (group < 1 || x.dim(1) % group != 0 || w.dim(1) * group != x.dim(1) || w.dim(0) % group != 0 ||
      (ctx.has_input(2) && ctx.input(2).numel() != w.dim(0)))
    return ctx.error("X " + shape_to_string(x.shape()) + ", W " + shape_to_string(w.shape()) + " and group " +
                     std::to_string(group) + " do not fit together");
  Status st;
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { st = conv_kernel_typed<typename decltype(tag)::type>(ctx, *g); });
  return st;
}

// ---------------------------------------------------------------------------------------------
// ConvTranspose.

Result<WindowGeometry> conv_transpose_geometry(const Attributes& attrs, const Shape& x, const Shape& w) {
  const size_t r = x.size() - 2;
  const std::vector<int64_t> kernel = spatial_dims(w);
  auto params = read_window_params(attrs, r, &kernel, false);
  if (!params.ok()) return params.status();
  std::vector<int64_t> output_shape = attrs.get_ints("output_shape");
  // Exporters write either the spatial dims or the full N x C x ... shape.
  if (output_shape.size() == r + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  return resolve_transposed_window(*params, spatial_dims(x), attrs.get_ints("output_padding"), output_shape);
}

Status infer_conv_transpose(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_conv_dtypes(ctx));
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  ConvShapes s;
  OPENGE_RETURN_IF_ERROR(check_conv_shapes(ctx, true, &s));
  auto geom = conv_transpose_geometry(ctx.attrs(), ctx.input_shape(0), ctx.input_shape(1));
  if (!geom.ok()) return ctx.error(geom.status().message());
  Shape out{s.batch, s.out_channels};
  out.insert(out.end(), geom->output.begin(), geom->output.end());
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

template <class T>
Status conv_transpose_kernel_typed(KernelContext& ctx, const WindowGeometry& g) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const Tensor& wt = ctx.input(1);
  const int64_t batch = xt.dim(0), channels = xt.dim(1);
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t cg = channels / group, mg = wt.dim(1), m_total = mg * group;
  const size_t r = g.rank();
  const int64_t ksize = g.kernel_size();
  const int64_t in_plane = shape_numel(g.input), out_plane = g.output_size();
  AccView<Acc> x(xt), w(wt);
  std::vector<Acc> bias;
  if (ctx.has_input(2)) {
    AccView<Acc> b(ctx.input(2));
    bias.assign(b.data(), b.data() + m_total);
  }
  AccOutput<T, Acc> out(ctx.output(0));
  std::vector<int64_t> in_stride(r), out_stride(r);
  for (int64_t d = static_cast<int64_t>(r) - 1, pi = 1, po = 1; d >= 0; --d) {
    in_stride[static_cast<size_t>(d)] = pi;
    out_stride[static_cast<size_t>(d)] = po;
    pi *= g.input[static_cast<size_t>(d)];
    po *= g.output[static_cast<size_t>(d)];
  }
  // For each kernel offset, the box of input positions whose target lies inside the output.
  std::vector<int64_t> lo(static_cast<size_t>(ksize) * r), hi(static_cast<size_t>(ksize) * r),
      shift(static_cast<size_t>(ksize));
  for (int64_t kk = 0; kk < ksize; ++kk) {
    int64_t rem = kk, off = 0;
    for (size_t d = r; d-- > 0;) {
      const int64_t k = rem % g.kernel[d];
      rem /= g.kernel[d];
      const int64_t delta = k * g.dilations[d] - g.pad_begin[d];  // target = i * s + delta
      const int64_t s = g.strides[d];
      // smallest i with i*s + delta >= 0, largest with i*s + delta <= out-1
      int64_t first = delta >= 0 ? 0 : (-delta + s - 1) / s;
      int64_t last = g.output[d] - 1 - delta < 0 ? -1 : (g.output[d] - 1 - delta) / s;
      last = std::min(last, g.input[d] - 1);
      lo[static_cast<size_t>(kk) * r + d] = first;
      hi[static_cast<size_t>(kk) * r + d] = last;  // inclusive
      off += delta * out_stride[d];
    }
    shift[static_cast<size_t>(kk)] = off;
  }
  Acc* y = out.data();
  const int64_t cost = std::max<int64_t>(1, cg * ksize * in_plane);
  parallel_for(batch * m_total, cost, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(r);
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / m_total, m = nm % m_total;
      const int64_t gi = m / mg, ml = m % mg;
      Acc* plane = y + nm * out_plane;
      const Acc b = bias.empty() ? Acc(0) : bias[static_cast<size_t>(m)];
      for (int64_t i = 0; i < out_plane; ++i) plane[i] = b;
      for (int64_t cl = 0; cl < cg; ++cl) {
        const int64_t c = gi * cg + cl;
        const Acc* xc = x.data() + (n * channels + c) * in_plane;
        const Acc* wk = w.data() + (c * mg + ml) * ksize;
        for (int64_t kk = 0; kk < ksize; ++kk) {
          const Acc wv = wk[kk];
          const int64_t* l = &lo[static_cast<size_t>(kk) * r];
          const int64_t* h = &hi[static_cast<size_t>(kk) * r];
          bool empty = false;
          for (size_t d = 0; d < r; ++d) empty = empty || l[d] > h[d];
          if (empty || wv == Acc(0)) continue;
          // Odometer over the box's leading dims; the last dim is the inner loop.
          for (size_t d = 0; d < r; ++d) idx[d] = l[d];
          const size_t last = r - 1;
          const int64_t s_last = g.strides[last];
          while (true) {
            int64_t xi = 0, yi = shift[static_cast<size_t>(kk)];
            for (size_t d = 0; d < last; ++d) {
              xi += idx[d] * in_stride[d];
              yi += idx[d] * g.strides[d] * out_stride[d];
            }
            const Acc* xrow = xc + xi;
            Acc* yrow = plane + yi;
            for (int64_t i = l[last]; i <= h[last]; ++i) yrow[i * s_last] += wv * xrow[i];
            size_t d = last;
            while (d-- > 0) {
              if (++idx[d] <= h[d]) break;
              idx[d] = l[d];
            }
            if (d == static_cast<size_t>(-1)) break;
          }
        }
      }
    }
  });
  out.finish();
  return Status::Ok();
}

Status conv_transpose_kernel(KernelContext& ctx) {
  auto g = conv_transpose_geometry(ctx.attrs(), ctx.input(0).shape(), ctx.input(1).shape());
  if (!g.ok()) return ctx.error(g.status().message());
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const int64_t group = ctx.attrs().get_int("group", 1);
  if (group < 1 || x.dim(1) % group != 0 || w.dim(0) != x.dim(1) ||
      (ctx.has_input(2) && ctx.input(2).numel() != w.dim(1) * group))
    return ctx.error("X " + shape_to_string(x.shape()) + ", W " + shape_to_string(w.shape()) + " and group " +
                     std::to_string(group) + " do not fit together");
  Status st;
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { st = conv_transpose_kernel_typed<typename decltype(tag)::type>(ctx, *g); });
  return st;
}

}  // namespace

void register_nn_conv_ops(std::vector<OpSchema>& table) {
  table.push_back({"Conv", 2, 3, 1, 1, infer_conv, conv_kernel});
  table.push_back({"ConvTranspose", 2, 3, 1, 1, infer_conv_transpose, conv_transpose_kernel});
}

}  // namespace openge
