// GridSample (opset 16): samples X at the normalised (x, y) positions of `grid`, with bilinear,
// nearest or bicubic interpolation and zeros / border / reflection padding. The arithmetic
// follows ONNX Runtime's kernel step for step (denormalise, pad out-of-range coordinates, then
// read taps with the padding rule), which is also what PyTorch's grid_sample computes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "base/parallel.h"
#include "ops/nn/cubic_weights.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"

namespace openge {
namespace {

enum class Interp { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridSampleParams {
  Interp mode = Interp::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
};

template <class Ctx>
Result<GridSampleParams> read_grid_sample(const Ctx& ctx) {
  GridSampleParams p;
  static const struct {
    const char* name;
    Interp v;
  } kModes[] = {{"bilinear", Interp::kBilinear}, {"nearest", Interp::kNearest}, {"bicubic", Interp::kBicubic}};
  static const struct {
    const char* name;
    Padding v;
  } kPads[] = {{"zeros", Padding::kZeros}, {"border", Padding::kBorder}, {"reflection", Padding::kReflection}};
  const std::string mode = ctx.attrs().get_string("mode", "bilinear");
  const std::string pad = ctx.attrs().get_string("padding_mode", "zeros");
  bool mode_ok = false, pad_ok = false;
  for (const auto& m : kModes)
    if (mode == m.name) p.mode = m.v, mode_ok = true;
  for (const auto& m : kPads)
    if (pad == m.name) p.padding = m.v, pad_ok = true;
  if (!mode_ok) return ctx.error("mode must be bilinear, nearest or bicubic, got '" + mode + "'");
  if (!pad_ok) return ctx.error("padding_mode must be zeros, border or reflection, got '" + pad + "'");
  p.align_corners = ctx.attrs().get_int("align_corners", 0) != 0;
  return p;
}

Status infer_grid_sample(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  if (ctx.has_input(1) && !is_nn_float(ctx.input_dtype(1)))
    return ctx.error(std::string("grid must be a float type, got ") + dtype_name(ctx.input_dtype(1)));
  auto p = read_grid_sample(ctx);
  if (!p.ok()) return p.status();
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  const Shape& g = ctx.input_shape(1);
  if (x.size() != 4) return ctx.error("input X must be N x C x H x W, got " + shape_to_string(x));
  if (g.size() != 4 || g[3] != 2 || (g[0] >= 0 && x[0] >= 0 && g[0] != x[0]))
    return ctx.error("grid must be N x H_out x W_out x 2 with X's N, got " + shape_to_string(g));
  const Shape out{x[0], x[1], g[1], g[2]};
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// Folds x into [lo, hi] by reflecting at the bounds (any number of times).
double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double d = lo - x;
    const int64_t n = static_cast<int64_t>(d / range);
    const double r = d - static_cast<double>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double d = x - hi;
    const int64_t n = static_cast<int64_t>(d / range);
    const double r = d - static_cast<double>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

template <class Acc>
struct Plane {
  const Acc* data;
  int64_t h, w;
  Padding padding;
  double x_min, x_max, y_min, y_max;  // the sampling border (depends on align_corners)

  // The pixel at integer (x, y) under the padding rule.
  Acc at(int64_t x, int64_t y) const {
    switch (padding) {
      case Padding::kZeros:
        return x >= 0 && x < w && y >= 0 && y < h ? data[y * w + x] : Acc(0);
      case Padding::kBorder:
        return data[std::clamp<int64_t>(y, 0, h - 1) * w + std::clamp<int64_t>(x, 0, w - 1)];
      case Padding::kReflection: {
        const int64_t rx =
            std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<double>(x), x_min, x_max)), 0, w - 1);
        const int64_t ry =
            std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<double>(y), y_min, y_max)), 0, h - 1);
        return data[ry * w + rx];
      }
    }
    return Acc(0);
  }
};

template <class T>
void grid_sample_typed(KernelContext& ctx, const GridSampleParams& p) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  const AccView<double> grid(ctx.input(1));
  AccOutput<T, Acc> y(ctx.output(0));
  const int64_t n = xt.dim(0), c = xt.dim(1), h = xt.dim(2), w = xt.dim(3);
  const int64_t oh = ctx.input(1).dim(1), ow = ctx.input(1).dim(2);
  const double fw = static_cast<double>(w), fh = static_cast<double>(h);
  const double x_min = p.align_corners ? 0 : -0.5, x_max = p.align_corners ? fw - 1 : fw - 0.5;
  const double y_min = p.align_corners ? 0 : -0.5, y_max = p.align_corners ? fh - 1 : fh - 0.5;
  auto denormalize = [&](double v, double len) {
    return p.align_corners ? (v + 1) / 2 * (len - 1) : ((v + 1) * len - 1) / 2;
  };
  Acc* out = y.data();
  parallel_for(n * c, oh * ow * 8, [&](int64_t begin, int64_t end) {
    for (int64_t pc = begin; pc < end; ++pc) {
      const int64_t b = pc / c;
      const Plane<Acc> plane{x.data() + pc * h * w, h, w, p.padding, x_min, x_max, y_min, y_max};
      for (int64_t i = 0; i < oh * ow; ++i) {
        const double* g = grid.data() + (b * oh * ow + i) * 2;
        double sx = denormalize(g[0], fw), sy = denormalize(g[1], fh);
        if (p.mode == Interp::kNearest) {
          sx = std::nearbyint(sx);
          sy = std::nearbyint(sy);
        }
        if (sx < x_min || sx > x_max || sy < y_min || sy > y_max) {
          if (p.padding == Padding::kBorder) {
            sx = std::clamp(sx, 0.0, fw - 1);
            sy = std::clamp(sy, 0.0, fh - 1);
          } else if (p.padding == Padding::kReflection) {
            sx = reflect(sx, x_min, x_max);
            sy = reflect(sy, y_min, y_max);
          }
        }
        Acc v = 0;
        if (!std::isfinite(sx) || !std::isfinite(sy)) {
          v = 0;  // a NaN/inf grid point samples nothing
        } else if (p.mode == Interp::kNearest) {
          v = plane.at(static_cast<int64_t>(sx), static_cast<int64_t>(sy));
        } else if (p.mode == Interp::kBilinear) {
          const int64_t x1 = static_cast<int64_t>(std::floor(sx)), y1 = static_cast<int64_t>(std::floor(sy));
          const double dx1 = sx - static_cast<double>(x1), dx2 = 1 - dx1, dy1 = sy - static_cast<double>(y1),
                       dy2 = 1 - dy1;
          v = static_cast<Acc>(dy2 * (dx2 * plane.at(x1, y1) + dx1 * plane.at(x1 + 1, y1)) +
                               dy1 * (dx2 * plane.at(x1, y1 + 1) + dx1 * plane.at(x1 + 1, y1 + 1)));
        } else {
          const int64_t x0 = static_cast<int64_t>(std::floor(sx)) - 1, y0 = static_cast<int64_t>(std::floor(sy)) - 1;
          double wx[4], wy[4];
          cubic_weights(sx - static_cast<double>(x0) - 1, -0.75, wx);
          cubic_weights(sy - static_cast<double>(y0) - 1, -0.75, wy);
          double acc = 0;
          for (int k = 0; k < 4; ++k) {
            double row = 0;
            for (int j = 0; j < 4; ++j) row += wx[j] * plane.at(x0 + j, y0 + k);
            acc += wy[k] * row;
          }
          v = static_cast<Acc>(acc);
        }
        out[pc * oh * ow + i] = v;
      }
    }
  });
  y.finish();
}

Status grid_sample_kernel(KernelContext& ctx) {
  auto p = read_grid_sample(ctx);
  if (!p.ok()) return p.status();
  const Tensor& x = ctx.input(0);
  const Tensor& g = ctx.input(1);
  if (x.rank() != 4 || g.rank() != 4 || g.dim(3) != 2 || g.dim(0) != x.dim(0))
    return ctx.error("expected X as N x C x H x W and grid as N x H_out x W_out x 2");
  if (x.dim(2) == 0 || x.dim(3) == 0) {
    if (ctx.output(0).numel() > 0) std::memset(ctx.output(0).raw(), 0, ctx.output(0).nbytes());
    return Status::Ok();
  }
  visit_float_dtype(x.dtype(), [&](auto tag) { grid_sample_typed<typename decltype(tag)::type>(ctx, *p); });
  return Status::Ok();
}

}  // namespace

void register_grid_sample_ops(std::vector<OpSchema>& table) {
  table.push_back({"GridSample", 2, 2, 1, 1, infer_grid_sample, grid_sample_kernel, false});
}

}  // namespace openge
