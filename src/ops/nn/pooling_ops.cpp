// LpPool, GlobalLpPool, MaxUnpool, MaxRoiPool: the pooling ops beyond Max/Average (those live in
// nn_pool.cpp). Window geometry comes from nn_window, so LpPool sizes its output exactly as
// MaxPool does. Float types only (as ONNX defines them); fp16/bf16 computed in float, rounded once.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ops/shape/index_util.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

// The p of LpPool/GlobalLpPool: an int attribute from opset 2 (a float before).
template <class Ctx>
Result<double> read_p(const Ctx& ctx) {
  const Attribute* a = ctx.attrs().find("p");
  double p = 2.0;
  if (a) p = a->kind == Attribute::Kind::kFloat ? static_cast<double>(a->f) : static_cast<double>(a->i);
  if (!(p > 0) || !std::isfinite(p)) return ctx.error("p must be a positive number, got " + std::to_string(p));
  return p;
}

// (sum |v|^p)^(1/p), with the common p = 1, 2 computed exactly.
template <class Acc>
struct LpAccumulator {
  double p;
  Acc sum = 0;
  void add(Acc v) {
    if (p == 1)
      sum += std::abs(v);
    else if (p == 2)
      sum += v * v;
    else
      sum += static_cast<Acc>(std::pow(std::abs(static_cast<double>(v)), p));
  }
  Acc result() const {
    if (p == 1) return sum;
    if (p == 2) return std::sqrt(sum);
    return static_cast<Acc>(std::pow(static_cast<double>(sum), 1.0 / p));
  }
};

void next_index(std::vector<int64_t>& o, const std::vector<int64_t>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++o[d] < dims[d]) return;
    o[d] = 0;
  }
}

// --- LpPool --------------------------------------------------------------------------------------
Result<WindowGeometry> lp_pool_geometry(const Attributes& attrs, int64_t opset, const Shape& x) {
  // ceil_mode and dilations exist from opset 18; earlier models never set them.
  auto params = read_window_params(attrs, x.size() - 2, nullptr, opset >= 18);
  if (!params.ok()) return params.status();
  return resolve_window(*params, spatial_dims(x));
}

Status infer_lp_pool(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  auto p = read_p(ctx);
  if (!p.ok()) return p.status();
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3) return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ...");
  auto g = lp_pool_geometry(ctx.attrs(), ctx.opset(), x);
  if (!g.ok()) return ctx.error(g.status().message());
  Shape out{x[0], x[1]};
  out.insert(out.end(), g->output.begin(), g->output.end());
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

template <class T>
void lp_pool_typed(KernelContext& ctx, const WindowGeometry& g, double p) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  AccOutput<T, Acc> y(ctx.output(0));
  const size_t r = g.rank();
  const int64_t planes = xt.dim(0) * xt.dim(1), in_plane = shape_numel(g.input), out_plane = g.output_size();
  const std::vector<int64_t> in_stride = contiguous_strides(g.input);
  Acc* out = y.data();
  parallel_for(planes, out_plane * std::max<int64_t>(1, g.kernel_size()), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> o(r), j(r);
    for (int64_t pl = begin; pl < end; ++pl) {
      std::fill(o.begin(), o.end(), 0);
      for (int64_t i = 0; i < out_plane; ++i) {
        LpAccumulator<Acc> acc{p};
        std::fill(j.begin(), j.end(), 0);
        for (int64_t t = 0; t < g.kernel_size(); ++t) {  // taps in the padding count as 0
          int64_t off = 0;
          bool inside = true;
          for (size_t d = 0; d < r && inside; ++d) {
            const int64_t pos = o[d] * g.strides[d] - g.pad_begin[d] + j[d] * g.dilations[d];
            inside = pos >= 0 && pos < g.input[d];
            off += pos * in_stride[d];
          }
          if (inside) acc.add(x[pl * in_plane + off]);
          next_index(j, g.kernel);
        }
        out[pl * out_plane + i] = acc.result();
        next_index(o, g.output);
      }
    }
  });
  y.finish();
}

Status lp_pool_kernel(KernelContext& ctx) {
  auto p = read_p(ctx);
  if (!p.ok()) return p.status();
  auto g = lp_pool_geometry(ctx.attrs(), ctx.opset(), ctx.input(0).shape());
  if (!g.ok()) return ctx.error(g.status().message());
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) { lp_pool_typed<typename decltype(tag)::type>(ctx, *g, *p); });
  return Status::Ok();
}

// --- GlobalLpPool: one Lp norm per (batch, channel) plane ------------------------------------------
Status infer_global_lp_pool(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  auto p = read_p(ctx);
  if (!p.ok()) return p.status();
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3) return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ...");
  Shape out(x.size(), 1);
  out[0] = x[0];
  out[1] = x[1];
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

template <class T>
void global_lp_pool_typed(KernelContext& ctx, double p) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  AccOutput<T, Acc> y(ctx.output(0));
  const int64_t planes = xt.dim(0) * xt.dim(1), plane = planes == 0 ? 0 : xt.numel() / planes;
  Acc* out = y.data();
  parallel_for(planes, plane, [&](int64_t begin, int64_t end) {
    for (int64_t pl = begin; pl < end; ++pl) {
      LpAccumulator<Acc> acc{p};
      for (int64_t i = 0; i < plane; ++i) acc.add(x[pl * plane + i]);
      out[pl] = acc.result();
    }
  });
  y.finish();
}

Status global_lp_pool_kernel(KernelContext& ctx) {
  auto p = read_p(ctx);
  if (!p.ok()) return p.status();
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { global_lp_pool_typed<typename decltype(tag)::type>(ctx, *p); });
  return Status::Ok();
}

// --- MaxUnpool: zeros, with X's values written where MaxPool's indices say ----------------------
// The default output size inverts MaxPool: (in - 1)*stride + kernel - pad_begin - pad_end. The
// optional output_shape input (the full N x C x ... shape) overrides it.
template <class Ctx>
Result<Shape> max_unpool_shape(const Ctx& ctx, const Shape& x, const Tensor* output_shape) {
  if (x.size() < 3) return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ...");
  auto params = read_window_params(ctx.attrs(), x.size() - 2, nullptr, false);
  if (!params.ok()) return ctx.error(params.status().message());
  Shape out{x[0], x[1]};
  for (size_t d = 0; d < params->rank(); ++d)
    out.push_back((x[d + 2] - 1) * params->strides[d] + params->kernel[d] - params->pads[d] -
                  params->pads[d + params->rank()]);
  if (output_shape) {
    auto given = read_ints(ctx, *output_shape, "output_shape");
    if (!given.ok()) return given.status();
    if (given->size() != x.size())
      return ctx.error("output_shape has " + std::to_string(given->size()) + " entries; expected " +
                       std::to_string(x.size()));
    for (size_t d = 0; d < x.size(); ++d)
      if ((*given)[d] < 0 || (d < 2 && (*given)[d] != x[d]))
        return ctx.error("output_shape " + shape_to_string(*given) + " does not fit input " + shape_to_string(x));
    out = *given;
  }
  return out;
}

Status infer_max_unpool(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  OPENGE_RETURN_IF_ERROR(check_index_input(ctx, 1, "input I"));
  const DType dt = ctx.input_dtype(0);
  const bool has_shape_input = ctx.has_input(2);
  if (!ctx.input_shape_known(0) || (has_shape_input && !ctx.input_value(2))) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto out = max_unpool_shape(ctx, ctx.input_shape(0), ctx.input_value(2));
  if (!out.ok()) return out.status();
  // size-limit: output_shape is data; checked before anything is allocated.
  OPENGE_RETURN_IF_ERROR(check_data_sized_output(ctx, *out, dt, "the output"));
  if (Status st = check_output_elements(*out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, *out);
  return Status::Ok();
}

Status max_unpool_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& idx = ctx.input(1);
  Tensor& y = ctx.output(0);
  if (!is_index_dtype(idx.dtype()))
    return ctx.error(std::string("input I must be int64, got ") + dtype_name(idx.dtype()));
  if (idx.shape() != x.shape())
    return ctx.error("indices " + shape_to_string(idx.shape()) + " must have X's shape " + shape_to_string(x.shape()));
  // The indices address the tensor MaxPool read, whose shape is the default output shape; a
  // given output_shape may be larger (MaxPool's input had trailing rows/cols no window reached):
  // each value keeps its coordinates, so the extra positions stay zero (ONNX's example).
  auto pooled_input = max_unpool_shape(ctx, x.shape(), nullptr);
  if (!pooled_input.ok()) return pooled_input.status();
  const Shape& from = *pooled_input;
  const Shape& to = y.shape();
  const int64_t from_numel = shape_numel(from);
  std::memset(y.raw(), 0, y.nbytes());
  const size_t es = dtype_size(x.dtype());
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t v = index_at(idx, i);
    if (v < 0 || v >= from_numel)
      return ctx.error("indices" + position_string(idx.shape(), i) + " = " + std::to_string(v) +
                       " is out of range [0, " + std::to_string(from_numel - 1) + "] of the unpooled shape " +
                       shape_to_string(from));
    int64_t rest = v, at = 0, mul = 1;
    for (size_t d = from.size(); d-- > 0;) {
      const int64_t coord = rest % from[d];
      rest /= from[d];
      if (coord >= to[d])
        return ctx.error("index " + std::to_string(v) + " falls outside output_shape " + shape_to_string(to));
      at += coord * mul;
      mul *= to[d];
    }
    std::memcpy(dst + static_cast<size_t>(at) * es, src + static_cast<size_t>(i) * es, es);
  }
  return Status::Ok();
}

// --- MaxRoiPool: max over a pooled_shape grid of bins in each region (Caffe's RoI pooling) -----
template <class Ctx>
Result<std::pair<int64_t, int64_t>> read_pooled_shape(const Ctx& ctx) {
  const std::vector<int64_t> ps = ctx.attrs().get_ints("pooled_shape");
  if (ps.size() != 2 || ps[0] < 1 || ps[1] < 1 || ps[0] > kMaxWindowAttr || ps[1] > kMaxWindowAttr)
    return ctx.error("pooled_shape must be two positive ints, got " + shape_to_string(ps));
  return std::make_pair(ps[0], ps[1]);
}

Status infer_max_roi_pool(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "rois"));
  auto ps = read_pooled_shape(ctx);
  if (!ps.ok()) return ps.status();
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  const Shape& rois = ctx.input_shape(1);
  if (x.size() != 4) return ctx.error("input X must be N x C x H x W, got " + shape_to_string(x));
  if (rois.size() != 2 || rois[1] != 5) return ctx.error("rois must be num_rois x 5, got " + shape_to_string(rois));
  const Shape out{rois[0], x[1], ps->first, ps->second};
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

template <class T>
Status max_roi_pool_typed(KernelContext& ctx, int64_t ph, int64_t pw) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  const AccView<Acc> rois(ctx.input(1));
  AccOutput<T, Acc> y(ctx.output(0));
  const double scale = ctx.attrs().get_float("spatial_scale", 1.0f);
  const int64_t n = xt.dim(0), c = xt.dim(1), h = xt.dim(2), w = xt.dim(3), num = ctx.input(1).dim(0);
  Acc* out = y.data();
  for (int64_t r = 0; r < num; ++r) {
    const Acc* roi = rois.data() + r * 5;
    if (!(roi[0] >= 0 && roi[0] < static_cast<Acc>(n)))
      return ctx.error("roi " + std::to_string(r) + " has batch index " + std::to_string(roi[0]) + "; expected [0, " +
                       std::to_string(n - 1) + "]");
    const int64_t b = static_cast<int64_t>(roi[0]);
    const int64_t x1 = std::llround(roi[1] * scale), y1 = std::llround(roi[2] * scale);
    const int64_t x2 = std::llround(roi[3] * scale), y2 = std::llround(roi[4] * scale);
    const double bin_h = static_cast<double>(std::max<int64_t>(y2 - y1 + 1, 1)) / static_cast<double>(ph);
    const double bin_w = static_cast<double>(std::max<int64_t>(x2 - x1 + 1, 1)) / static_cast<double>(pw);
    for (int64_t ch = 0; ch < c; ++ch) {
      const Acc* plane = x.data() + (b * c + ch) * h * w;
      for (int64_t i = 0; i < ph; ++i) {
        const int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(i * bin_h)) + y1, 0, h);
        const int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((i + 1) * bin_h)) + y1, 0, h);
        for (int64_t j = 0; j < pw; ++j) {
          const int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(j * bin_w)) + x1, 0, w);
          const int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((j + 1) * bin_w)) + x1, 0, w);
          Acc best = -std::numeric_limits<Acc>::infinity();
          for (int64_t yy = hs; yy < he; ++yy)
            for (int64_t xx = ws; xx < we; ++xx) best = std::max(best, plane[yy * w + xx]);
          out[((r * c + ch) * ph + i) * pw + j] = he <= hs || we <= ws ? Acc(0) : best;  // empty bin: 0
        }
      }
    }
  }
  y.finish();
  return Status::Ok();
}

Status max_roi_pool_kernel(KernelContext& ctx) {
  auto ps = read_pooled_shape(ctx);
  if (!ps.ok()) return ps.status();
  if (ctx.input(1).dtype() != ctx.input(0).dtype()) return ctx.error("rois must have X's dtype");
  Status st = Status::Ok();
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) {
    st = max_roi_pool_typed<typename decltype(tag)::type>(ctx, ps->first, ps->second);
  });
  return st;
}

}  // namespace

void register_pooling_ops(std::vector<OpSchema>& table) {
  table.push_back({"LpPool", 1, 1, 1, 1, infer_lp_pool, lp_pool_kernel, false});
  table.push_back({"GlobalLpPool", 1, 1, 1, 1, infer_global_lp_pool, global_lp_pool_kernel, false});
  table.push_back({"MaxUnpool", 2, 3, 1, 1, infer_max_unpool, max_unpool_kernel, false});
  table.push_back({"MaxRoiPool", 2, 2, 1, 1, infer_max_roi_pool, max_roi_pool_kernel, false});
}

}  // namespace openge
