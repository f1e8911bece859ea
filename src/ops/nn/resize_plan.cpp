#include "ops/nn/resize_plan.h"

#include <algorithm>
#include <cmath>

#include "base/size_limit.h"
#include "ops/nn/cubic_weights.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"

namespace openge {
namespace {

bool legacy_semantics(std::string_view op, int64_t opset) { return op == "Upsample" || opset < 11; }

bool tensor_has_values(const Tensor* t) { return t && t->numel() > 0; }

// Input coordinate of output coordinate `o` along a dim (before clamping / rounding).
double source_coordinate(const ResizePlan& p, size_t d, int64_t o, int64_t in, int64_t out) {
  const double x = static_cast<double>(o), s = p.scales[d];
  switch (p.coord) {
    case CoordMode::kHalfPixel:
      return (x + 0.5) / s - 0.5;
    case CoordMode::kAsymmetric:
      return x / s;
    case CoordMode::kAlignCorners:
      return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / static_cast<double>(out - 1);
    case CoordMode::kPytorchHalfPixel:
      return out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case CoordMode::kTfHalfPixelForNn:
      return (x + 0.5) / s;
    case CoordMode::kTfCropAndResize: {
      const double a = p.roi_start[d], b = p.roi_end[d], span = static_cast<double>(in - 1);
      return out > 1 ? a * span + x * (b - a) * span / static_cast<double>(out - 1) : 0.5 * (a + b) * span;
    }
  }
  return x;
}

int64_t nearest_index(NearestMode m, double x, double scale) {
  switch (m) {
    case NearestMode::kRoundPreferFloor:
      return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::floor(x)) : std::llround(x);
    case NearestMode::kRoundPreferCeil:
      return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::ceil(x)) : std::llround(x);
    case NearestMode::kFloor:
      return static_cast<int64_t>(std::floor(x));
    case NearestMode::kCeil:
      return static_cast<int64_t>(std::ceil(x));
    case NearestMode::kSimple:
      return static_cast<int64_t>(scale < 1.0 ? std::ceil(x) : std::floor(x));
  }
  return 0;
}

}  // namespace

// Which inputs hold what, by op and opset.
ResizeInputs resize_inputs(std::string_view op, int64_t opset) {
  if (op == "Upsample") return {-1, 1, -1};  // opset 7 has the scales attribute instead
  if (opset < 11) return {-1, 1, -1};
  return {1, 2, 3};
}

// Reads the mode attributes (no inputs needed).
Status read_resize_modes(const Attributes& attrs, std::string_view op, int64_t opset, ResizePlan* plan) {
  const std::string mode = attrs.get_string("mode", "nearest");
  if (mode == "nearest")
    plan->mode = ResizeMode::kNearest;
  else if (mode == "linear" || mode == "bilinear" || mode == "trilinear")
    plan->mode = ResizeMode::kLinear;
  else if (mode == "cubic" && !legacy_semantics(op, opset))
    plan->mode = ResizeMode::kCubic;
  else if (mode == "cubic")
    return invalid_model("mode 'cubic' needs Resize from opset 11");
  else
    return invalid_model("mode '" + mode + "' is not one of nearest, linear, cubic");
  if (legacy_semantics(op, opset)) {
    plan->coord = CoordMode::kAsymmetric;
    plan->nearest = NearestMode::kSimple;
    return Status::Ok();
  }
  static const std::pair<const char*, CoordMode> kCoordModes[] = {
      {"half_pixel", CoordMode::kHalfPixel},
      {"asymmetric", CoordMode::kAsymmetric},
      {"align_corners", CoordMode::kAlignCorners},
      {"pytorch_half_pixel", CoordMode::kPytorchHalfPixel},
      {"tf_half_pixel_for_nn", CoordMode::kTfHalfPixelForNn},
      {"tf_crop_and_resize", CoordMode::kTfCropAndResize},
  };
  static const std::pair<const char*, NearestMode> kNearestModes[] = {
      {"round_prefer_floor", NearestMode::kRoundPreferFloor},
      {"round_prefer_ceil", NearestMode::kRoundPreferCeil},
      {"floor", NearestMode::kFloor},
      {"ceil", NearestMode::kCeil},
  };
  const std::string coord = attrs.get_string("coordinate_transformation_mode", "half_pixel");
  bool found = false;
  for (const auto& [name, value] : kCoordModes)
    if (coord == name) plan->coord = value, found = true;
  if (!found)
    return invalid_model("coordinate_transformation_mode '" + coord +
                         "' is not one of half_pixel, asymmetric, align_corners, pytorch_half_pixel, "
                         "tf_half_pixel_for_nn, tf_crop_and_resize");
  const std::string nearest = attrs.get_string("nearest_mode", "round_prefer_floor");
  found = false;
  for (const auto& [name, value] : kNearestModes)
    if (nearest == name) plan->nearest = value, found = true;
  if (!found)
    return invalid_model("nearest_mode '" + nearest +
                         "' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil");
  plan->extrapolation_value = attrs.get_float("extrapolation_value", 0.0f);
  plan->cubic_coeff_a = attrs.get_float("cubic_coeff_a", -0.75f);
  plan->exclude_outside = attrs.get_int("exclude_outside", 0) != 0;
  if (!std::isfinite(plan->cubic_coeff_a)) return invalid_model("cubic_coeff_a must be finite");
  return Status::Ok();
}

// Completes the plan from X's shape and the scales/sizes/roi values (nullptr = input absent).
Status plan_resize_shape(const Shape& x, const Tensor* scales, const Tensor* sizes, const Tensor* roi,
                         const std::vector<float>* scale_attr, ResizePlan* plan) {
  const size_t rank = x.size();
  const bool have_scales = tensor_has_values(scales) || scale_attr;
  const bool have_sizes = tensor_has_values(sizes);
  if (have_scales && have_sizes) return invalid_model("only one of 'scales' and 'sizes' may be given");
  if (!have_scales && !have_sizes) return invalid_model("one of 'scales' and 'sizes' must be given");
  plan->roi_start.assign(rank, 0.0);
  plan->roi_end.assign(rank, 1.0);
  if (plan->coord == CoordMode::kTfCropAndResize) {
    if (!tensor_has_values(roi))
      return invalid_model("coordinate_transformation_mode tf_crop_and_resize needs the 'roi' input");
    if (!is_nn_float(roi->dtype()) || static_cast<size_t>(roi->numel()) != 2 * rank)
      return invalid_model("roi has " + std::to_string(roi->numel()) + " values; expected " + std::to_string(2 * rank) +
                           " floats (starts then ends)");
    for (size_t d = 0; d < rank; ++d) {
      plan->roi_start[d] = roi->scalar_as_double(static_cast<int64_t>(d));
      plan->roi_end[d] = roi->scalar_as_double(static_cast<int64_t>(rank + d));
      if (!std::isfinite(plan->roi_start[d]) || !std::isfinite(plan->roi_end[d]))
        return invalid_model("roi values must be finite");
    }
  }
  plan->scales.assign(rank, 1.0);
  plan->output.assign(rank, 0);
  if (have_scales) {
    std::vector<double> s;
    if (scale_attr) {
      s.assign(scale_attr->begin(), scale_attr->end());
    } else {
      if (!is_nn_float(scales->dtype()))
        return invalid_model(std::string("scales has dtype ") + dtype_name(scales->dtype()) + "; expected float");
      for (int64_t i = 0; i < scales->numel(); ++i) s.push_back(scales->scalar_as_double(i));
    }
    if (s.size() != rank)
      return invalid_model("scales has " + std::to_string(s.size()) + " values; X " + shape_to_string(x) + " needs " +
                           std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      if (!(s[d] > 0.0) || !std::isfinite(s[d]))
        return invalid_model("scales must be finite and > 0, got " + std::to_string(s[d]) + " for dim " +
                             std::to_string(d));
      plan->scales[d] = s[d];
      if (x[d] < 0) {
        plan->output[d] = -1;
        continue;
      }
      const double out = std::floor(static_cast<double>(x[d]) * (plan->roi_end[d] - plan->roi_start[d]) * s[d]);
      // One dim past the size limit can never fit; the whole shape is checked below.
      if (!(out >= 0.0) || out > static_cast<double>(max_tensor_bytes()))
        return invalid_model("scale " + std::to_string(s[d]) + " on dim " + std::to_string(d) + " of size " +
                             std::to_string(x[d]) + " gives an output dim out of range");
      plan->output[d] = static_cast<int64_t>(out);
    }
  } else {
    if (sizes->dtype() != DType::kInt64)
      return invalid_model(std::string("sizes has dtype ") + dtype_name(sizes->dtype()) + "; expected int64");
    if (static_cast<size_t>(sizes->numel()) != rank)
      return invalid_model("sizes has " + std::to_string(sizes->numel()) + " values; X " + shape_to_string(x) +
                           " needs " + std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      const int64_t out = sizes->data<int64_t>()[d];
      if (out < 0 || static_cast<uint64_t>(out) > max_tensor_bytes())
        return invalid_model("sizes entry " + std::to_string(out) + " for dim " + std::to_string(d) +
                             " is out of range");
      plan->output[d] = out;
      if (x[d] > 0) plan->scales[d] = static_cast<double>(out) / static_cast<double>(x[d]);
    }
  }
  for (size_t d = 0; d < rank; ++d)
    if (x[d] == 0 && plan->output[d] > 0)
      return invalid_model("dim " + std::to_string(d) + " of X is 0 but the output dim is " +
                           std::to_string(plan->output[d]));
  return check_output_elements(plan->output);
}

Status make_resize_plan(const Node& node, int64_t opset, const Shape& x, const std::function<const Tensor*(int)>& value,
                        ResizePlan* plan) {
  const std::string_view op = node.op_type;
  OPENGE_RETURN_IF_ERROR(read_resize_modes(node.attrs, op, opset, plan));
  const ResizeInputs in = resize_inputs(op, opset);
  auto input = [&](int i) { return i >= 0 ? value(i) : nullptr; };
  std::vector<float> scale_attr;
  const bool use_attr = op == "Upsample" && opset < 9;
  if (use_attr) scale_attr = node.attrs.get_floats("scales");
  return plan_resize_shape(x, input(in.scales), input(in.sizes), input(in.roi), use_attr ? &scale_attr : nullptr, plan);
}

AxisTable axis_table(const ResizePlan& p, size_t d, int64_t in, int64_t out) {
  AxisTable t;
  t.i0.resize(static_cast<size_t>(out));
  t.i1.resize(static_cast<size_t>(out));
  t.w1.assign(static_cast<size_t>(out), 0.0);
  t.outside.assign(static_cast<size_t>(out), 0);
  for (int64_t o = 0; o < out; ++o) {
    const size_t u = static_cast<size_t>(o);
    double x = source_coordinate(p, d, o, in, out);
    if (p.coord == CoordMode::kTfCropAndResize && (x < 0.0 || x > static_cast<double>(in - 1))) t.outside[u] = 1;
    if (p.mode == ResizeMode::kNearest) {
      const int64_t i = nearest_index(p.nearest, x, p.scales[d]);
      t.i0[u] = t.i1[u] = std::clamp<int64_t>(i, 0, in - 1);
      continue;
    }
    if (p.mode == ResizeMode::kCubic) {
      t.cubic_taps.resize(static_cast<size_t>(out));
      t.cubic_w.resize(static_cast<size_t>(out));
      const double xf = std::floor(x);
      double w[4];
      cubic_weights(x - xf, p.cubic_coeff_a, w);
      const int64_t first = static_cast<int64_t>(xf) - 1;
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        if (p.exclude_outside && (first + k < 0 || first + k >= in)) w[k] = 0;
        sum += w[k];
      }
      for (int k = 0; k < 4; ++k) {
        if (p.exclude_outside && sum != 0) w[k] /= sum;
        t.cubic_taps[u][static_cast<size_t>(k)] = std::clamp<int64_t>(first + k, 0, in - 1);
        t.cubic_w[u][static_cast<size_t>(k)] = w[k];
        if (w[k] != (k == 1 ? 1.0 : 0.0)) t.interpolates = true;
      }
      t.i0[u] = t.i1[u] = t.cubic_taps[u][1];
      continue;
    }
    x = std::clamp(x, 0.0, static_cast<double>(in - 1));
    const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(x)), in - 1);
    t.i0[u] = i0;
    t.i1[u] = std::min<int64_t>(i0 + 1, in - 1);
    t.w1[u] = t.i1[u] == i0 ? 0.0 : x - static_cast<double>(i0);
    if (t.w1[u] != 0.0) t.interpolates = true;
  }
  return t;
}

}  // namespace openge
