// RoiAlign and NonMaxSuppression: the region ops of detection models. RoiAlign follows ONNX
// Runtime's (and ONNX's reference) sampling exactly: bilinear samples on a grid per bin,
// averaged ("avg") or the largest weighted corner kept ("max"). NonMaxSuppression's output
// size depends on the data, so its `infer` runs the selection when the inputs are known.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ops/shape/index_util.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"

namespace openge {
namespace {

// --- RoiAlign -----------------------------------------------------------------------------------
struct RoiAlignParams {
  bool max_mode = false;
  bool half_pixel = false;  // opset 16's default; opset 10 always behaved as output_half_pixel
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  float spatial_scale = 1.0f;
};

template <class Ctx>
Result<RoiAlignParams> read_roi_align(const Ctx& ctx) {
  RoiAlignParams p;
  const std::string mode = ctx.attrs().get_string("mode", "avg");
  if (mode != "avg" && mode != "max") return ctx.error("mode must be avg or max, got '" + mode + "'");
  p.max_mode = mode == "max";
  if (ctx.opset() >= 16) {
    const std::string ctm = ctx.attrs().get_string("coordinate_transformation_mode", "half_pixel");
    if (ctm != "half_pixel" && ctm != "output_half_pixel")
      return ctx.error("coordinate_transformation_mode must be half_pixel or output_half_pixel, got '" + ctm + "'");
    p.half_pixel = ctm == "half_pixel";
  }
  p.out_h = ctx.attrs().get_int("output_height", 1);
  p.out_w = ctx.attrs().get_int("output_width", 1);
  p.sampling_ratio = ctx.attrs().get_int("sampling_ratio", 0);
  p.spatial_scale = ctx.attrs().get_float("spatial_scale", 1.0f);
  if (p.out_h < 1 || p.out_w < 1 || p.out_h > kMaxWindowAttr || p.out_w > kMaxWindowAttr)
    return ctx.error("output_height and output_width must be in [1, " + std::to_string(kMaxWindowAttr) + "]");
  if (p.sampling_ratio < 0 || p.sampling_ratio > kMaxWindowAttr)
    return ctx.error("sampling_ratio must be >= 0, got " + std::to_string(p.sampling_ratio));
  return p;
}

Status infer_roi_align(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "rois"));
  OPENGE_RETURN_IF_ERROR(check_index_input(ctx, 2, "batch_indices"));
  auto p = read_roi_align(ctx);
  if (!p.ok()) return p.status();
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  const Shape& rois = ctx.input_shape(1);
  if (x.size() != 4) return ctx.error("input X must be N x C x H x W, got " + shape_to_string(x));
  if (rois.size() != 2 || rois[1] != 4) return ctx.error("rois must be num_rois x 4, got " + shape_to_string(rois));
  if (ctx.input_shape_known(2) && ctx.input_shape(2) != Shape{rois[0]})
    return ctx.error("batch_indices " + shape_to_string(ctx.input_shape(2)) + " must be [num_rois] = [" +
                     std::to_string(rois[0]) + "]");
  const Shape out{rois[0], x[1], p->out_h, p->out_w};
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// One bilinear sample: four taps (offsets into a plane) and their weights.
struct Sample {
  int64_t pos[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};

Sample bilinear_sample(double y, double x, int64_t h, int64_t w) {
  Sample s;
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return s;  // outside: 0
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= h - 1)
    y1 = y0 = h - 1, y = static_cast<double>(y0);
  else
    y1 = y0 + 1;
  if (x0 >= w - 1)
    x1 = x0 = w - 1, x = static_cast<double>(x0);
  else
    x1 = x0 + 1;
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
  s.pos[0] = y0 * w + x0;
  s.pos[1] = y0 * w + x1;
  s.pos[2] = y1 * w + x0;
  s.pos[3] = y1 * w + x1;
  s.w[0] = static_cast<float>(hy * hx);
  s.w[1] = static_cast<float>(hy * lx);
  s.w[2] = static_cast<float>(ly * hx);
  s.w[3] = static_cast<float>(ly * lx);
  return s;
}

template <class T>
Status roi_align_typed(KernelContext& ctx, const RoiAlignParams& p) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const AccView<Acc> x(xt);
  const AccView<Acc> rois(ctx.input(1));
  const Tensor& batch = ctx.input(2);
  AccOutput<T, Acc> y(ctx.output(0));
  const int64_t n = xt.dim(0), c = xt.dim(1), h = xt.dim(2), w = xt.dim(3), num = ctx.input(1).dim(0);
  if (!is_index_dtype(batch.dtype()) || batch.numel() != num)
    return ctx.error("batch_indices must be int64 [num_rois]");
  for (int64_t r = 0; r < num; ++r) {
    auto b = checked_index(ctx, index_at(batch, r), n, "batch index of roi " + std::to_string(r));
    if (!b.ok()) return b.status();
    if (*b != index_at(batch, r)) return ctx.error("batch index of roi " + std::to_string(r) + " is negative");
  }
  Acc* out = y.data();
  const double offset = p.half_pixel ? 0.5 : 0.0;
  parallel_for(num, c * p.out_h * p.out_w * 16, [&](int64_t begin, int64_t end) {
    std::vector<Sample> samples;
    for (int64_t r = begin; r < end; ++r) {
      const Acc* roi = rois.data() + r * 4;
      const double sx = roi[0] * static_cast<double>(p.spatial_scale) - offset;
      const double sy = roi[1] * static_cast<double>(p.spatial_scale) - offset;
      double rw = roi[2] * static_cast<double>(p.spatial_scale) - offset - sx;
      double rh = roi[3] * static_cast<double>(p.spatial_scale) - offset - sy;
      if (!p.half_pixel) {  // output_half_pixel forces a region of at least 1 x 1
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
      }
      const double bin_h = rh / static_cast<double>(p.out_h), bin_w = rw / static_cast<double>(p.out_w);
      // size-limit: the grid comes from roi data; capped so a huge roi cannot make it unbounded.
      constexpr int64_t kMaxGrid = 1 << 12;
      const int64_t gh =
          p.sampling_ratio > 0
              ? p.sampling_ratio
              : std::clamp<int64_t>(static_cast<int64_t>(std::ceil(rh / static_cast<double>(p.out_h))), 0, kMaxGrid);
      const int64_t gw =
          p.sampling_ratio > 0
              ? p.sampling_ratio
              : std::clamp<int64_t>(static_cast<int64_t>(std::ceil(rw / static_cast<double>(p.out_w))), 0, kMaxGrid);
      const Acc count = static_cast<Acc>(std::max<int64_t>(gh * gw, 1));
      // The samples of every bin, shared by all channels.
      samples.clear();
      for (int64_t i = 0; i < p.out_h; ++i)
        for (int64_t j = 0; j < p.out_w; ++j)
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix)
              samples.push_back(bilinear_sample(sy + static_cast<double>(i) * bin_h +
                                                    (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(gh),
                                                sx + static_cast<double>(j) * bin_w +
                                                    (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(gw),
                                                h, w));
      const int64_t b = index_at(batch, r), per_bin = gh * gw;
      for (int64_t ch = 0; ch < c; ++ch) {
        const Acc* plane = x.data() + (b * c + ch) * h * w;
        for (int64_t bin = 0; bin < p.out_h * p.out_w; ++bin) {
          Acc acc = 0;
          bool first = true;
          for (int64_t k = 0; k < per_bin; ++k) {
            const Sample& s = samples[static_cast<size_t>(bin * per_bin + k)];
            if (p.max_mode) {  // ONNX Runtime's max: the largest weighted corner of any sample
              const Acc v = std::max(std::max(s.w[0] * plane[s.pos[0]], s.w[1] * plane[s.pos[1]]),
                                     std::max(s.w[2] * plane[s.pos[2]], s.w[3] * plane[s.pos[3]]));
              acc = first ? v : std::max(acc, v);
              first = false;
            } else {
              acc += s.w[0] * plane[s.pos[0]] + s.w[1] * plane[s.pos[1]] + s.w[2] * plane[s.pos[2]] +
                     s.w[3] * plane[s.pos[3]];
            }
          }
          out[(r * c + ch) * p.out_h * p.out_w + bin] = p.max_mode ? acc : acc / count;
        }
      }
    }
  });
  y.finish();
  return Status::Ok();
}

Status roi_align_kernel(KernelContext& ctx) {
  auto p = read_roi_align(ctx);
  if (!p.ok()) return p.status();
  if (ctx.input(0).rank() != 4 || ctx.input(1).rank() != 2 || ctx.input(1).dim(1) != 4)
    return ctx.error("expected X as N x C x H x W and rois as num_rois x 4");
  Status st = Status::Ok();
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { st = roi_align_typed<typename decltype(tag)::type>(ctx, *p); });
  return st;
}

// --- NonMaxSuppression ----------------------------------------------------------------------------
// Per batch and class: boxes whose score passes score_threshold, taken greedily by descending
// score (ties: lower box index first), each kept unless its IoU with an already kept box exceeds
// iou_threshold, at most max_output_boxes_per_class. Output rows: (batch, class, box).
struct Corners {
  float y1, x1, y2, x2;  // y1 <= y2, x1 <= x2
};

Corners corners(const float* b, bool center) {
  if (center) {
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool suppresses(const Corners& a, const Corners& b, float iou_threshold) {
  const float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (ih <= 0 || iw <= 0) return false;
  const float inter = ih * iw;
  const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  const float uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

template <class Ctx>
Result<std::vector<int64_t>> run_nms(const Ctx& ctx, const Tensor& boxes_t, const Tensor& scores_t,
                                     const Tensor* max_out_t, const Tensor* iou_t, const Tensor* score_t) {
  const int64_t center = ctx.attrs().get_int("center_point_box", 0);
  if (center != 0 && center != 1) return ctx.error("center_point_box must be 0 or 1, got " + std::to_string(center));
  if (boxes_t.rank() != 3 || boxes_t.dim(2) != 4)
    return ctx.error("boxes must be num_batches x spatial_dimension x 4, got " + shape_to_string(boxes_t.shape()));
  if (scores_t.rank() != 3 || scores_t.dim(0) != boxes_t.dim(0) || scores_t.dim(2) != boxes_t.dim(1))
    return ctx.error("scores " + shape_to_string(scores_t.shape()) + " must be num_batches x num_classes x " +
                     std::to_string(boxes_t.dim(1)));
  if (!is_nn_float(boxes_t.dtype()) || !is_nn_float(scores_t.dtype()))
    return ctx.error("boxes and scores must be float");
  int64_t max_out = 0;
  if (max_out_t && max_out_t->numel() > 0) {
    if (!is_index_dtype(max_out_t->dtype())) return ctx.error("max_output_boxes_per_class must be int64");
    max_out = index_at(*max_out_t, 0);
  }
  const float iou = iou_t && iou_t->numel() > 0 ? static_cast<float>(iou_t->scalar_as_double(0)) : 0.0f;
  const bool use_score = score_t && score_t->numel() > 0;
  const float min_score = use_score ? static_cast<float>(score_t->scalar_as_double(0)) : 0.0f;
  if (!(iou >= 0 && iou <= 1)) return ctx.error("iou_threshold must be in [0, 1], got " + std::to_string(iou));
  const AccView<float> boxes(boxes_t), scores(scores_t);
  const int64_t nb = boxes_t.dim(0), spatial = boxes_t.dim(1), classes = scores_t.dim(1);
  max_out = std::clamp<int64_t>(max_out, 0, spatial);
  std::vector<int64_t> selected;  // triples
  std::vector<int64_t> order;
  std::vector<Corners> kept;
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const float* sc = scores.data() + (b * classes + c) * spatial;
      order.clear();
      for (int64_t i = 0; i < spatial; ++i)
        if (!use_score || sc[i] > min_score) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t bb) { return sc[a] > sc[bb]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        const Corners box = corners(boxes.data() + (b * spatial + i) * 4, center == 1);
        bool keep = true;
        for (const Corners& k : kept)
          if (suppresses(k, box, iou)) {
            keep = false;
            break;
          }
        if (!keep) continue;
        kept.push_back(box);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  return selected;
}

const Tensor* optional_input(const KernelContext& ctx, size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; }

Status infer_nms(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "boxes"));
  const Tensor* boxes = ctx.input_value(0);
  const Tensor* scores = ctx.input_value(1);
  bool known = boxes && scores;
  for (size_t i = 2; i < 5; ++i) known = known && (!ctx.has_input(i) || ctx.input_value(i));
  if (!known) {
    ctx.set_output_dtype(0, DType::kInt64);
    return Status::Ok();
  }
  auto sel = run_nms(ctx, *boxes, *scores, ctx.input_value(2), ctx.input_value(3), ctx.input_value(4));
  if (!sel.ok()) return sel.status();
  const Shape out{static_cast<int64_t>(sel->size() / 3), 3};
  OPENGE_RETURN_IF_ERROR(check_data_sized_output(ctx, out, DType::kInt64, "selected_indices"));
  ctx.set_output(0, DType::kInt64, out);
  return Status::Ok();
}

Status nms_kernel(KernelContext& ctx) {
  auto sel =
      run_nms(ctx, ctx.input(0), ctx.input(1), optional_input(ctx, 2), optional_input(ctx, 3), optional_input(ctx, 4));
  if (!sel.ok()) return sel.status();
  Tensor& out = ctx.output(0);
  if (out.numel() != static_cast<int64_t>(sel->size()))
    return ctx.error("the inputs changed after the output was sized");
  std::copy(sel->begin(), sel->end(), out.data<int64_t>());
  return Status::Ok();
}

}  // namespace

void register_detection_ops(std::vector<OpSchema>& table) {
  table.push_back({"RoiAlign", 3, 3, 1, 1, infer_roi_align, roi_align_kernel, false});
  table.push_back({"NonMaxSuppression", 2, 5, 1, 1, infer_nms, nms_kernel, false});
}

}  // namespace openge
