// Resize (opsets 10, 11, 13+) and Upsample (opsets 7, 9) reference kernels: nearest, N-D linear
// and N-D cubic interpolation with every ONNX coordinate transformation mode. Each output
// coordinate along a dim maps independently to an input coordinate, so the kernel precomputes
// one small table per dim and then gathers (nearest) or blends 2^k (linear) or 4^k (cubic)
// neighbours, k = dims that actually interpolate.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "base/size_limit.h"
#include "ops/cubic_weights.h"
#include "ops/nn_common.h"
#include "ops/nn_window.h"
#include "base/parallel.h"

namespace openge {
namespace {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class CoordMode { kHalfPixel, kAsymmetric, kAlignCorners, kPytorchHalfPixel, kTfHalfPixelForNn, kTfCropAndResize };
// kSimple is the pre-opset-11 rule (Upsample, Resize-10): floor when upsampling, ceil when downsampling.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizePlan {
  ResizeMode mode = ResizeMode::kNearest;
  CoordMode coord = CoordMode::kAsymmetric;
  NearestMode nearest = NearestMode::kSimple;
  std::vector<double> scales;                 // per dim, as the coordinate transform uses them
  std::vector<double> roi_start, roi_end;     // tf_crop_and_resize only
  float extrapolation_value = 0.0f;
  double cubic_coeff_a = -0.75;  // cubic mode: Keys' a
  bool exclude_outside = false;  // cubic mode: taps outside the input get weight 0 (renormalised)
  Shape output;
};

// Which inputs hold what, by op and opset.
struct ResizeInputs {
  int roi = -1, scales = -1, sizes = -1;
};

ResizeInputs resize_inputs(std::string_view op, int64_t opset) {
  if (op == "Upsample") return {-1, 1, -1};  // opset 7 has the scales attribute instead
  if (opset < 11) return {-1, 1, -1};
  return {1, 2, 3};
}

bool legacy_semantics(std::string_view op, int64_t opset) { return op == "Upsample" || opset < 11; }

// Reads the mode attributes (no inputs needed).
Status read_resize_modes(const Attributes& attrs, std::string_view op, int64_t opset, ResizePlan* plan) {
  const std::string mode = attrs.get_string("mode", "nearest");
  if (mode == "nearest") plan->mode = ResizeMode::kNearest;
  else if (mode == "linear" || mode == "bilinear" || mode == "trilinear") plan->mode = ResizeMode::kLinear;
  else if (mode == "cubic" && !legacy_semantics(op, opset)) plan->mode = ResizeMode::kCubic;
  else if (mode == "cubic") return invalid_model("mode 'cubic' needs Resize from opset 11");
  else return invalid_model("mode '" + mode + "' is not one of nearest, linear, cubic");
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
  if (!found) return invalid_model("coordinate_transformation_mode '" + coord + "' is not one of half_pixel, asymmetric, align_corners, pytorch_half_pixel, tf_half_pixel_for_nn, tf_crop_and_resize");
  const std::string nearest = attrs.get_string("nearest_mode", "round_prefer_floor");
  found = false;
  for (const auto& [name, value] : kNearestModes)
    if (nearest == name) plan->nearest = value, found = true;
  if (!found)
    return invalid_model("nearest_mode '" + nearest + "' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil");
  plan->extrapolation_value = attrs.get_float("extrapolation_value", 0.0f);
  plan->cubic_coeff_a = attrs.get_float("cubic_coeff_a", -0.75f);
  plan->exclude_outside = attrs.get_int("exclude_outside", 0) != 0;
  if (!std::isfinite(plan->cubic_coeff_a)) return invalid_model("cubic_coeff_a must be finite");
  return Status::Ok();
}

bool tensor_has_values(const Tensor* t) { return t && t->numel() > 0; }

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
    if (!tensor_has_values(roi)) return invalid_model("coordinate_transformation_mode tf_crop_and_resize needs the 'roi' input");
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
        return invalid_model("scales must be finite and > 0, got " + std::to_string(s[d]) + " for dim " + std::to_string(d));
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
      return invalid_model("sizes has " + std::to_string(sizes->numel()) + " values; X " + shape_to_string(x) + " needs " +
                           std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      const int64_t out = sizes->data<int64_t>()[d];
      if (out < 0 || static_cast<uint64_t>(out) > max_tensor_bytes())
        return invalid_model("sizes entry " + std::to_string(out) + " for dim " + std::to_string(d) + " is out of range");
      plan->output[d] = out;
      if (x[d] > 0) plan->scales[d] = static_cast<double>(out) / static_cast<double>(x[d]);
    }
  }
  for (size_t d = 0; d < rank; ++d)
    if (x[d] == 0 && plan->output[d] > 0)
      return invalid_model("dim " + std::to_string(d) + " of X is 0 but the output dim is " + std::to_string(plan->output[d]));
  return check_output_elements(plan->output);
}

// The values of inputs `inputs` (nullptr when absent). `values_known` is false when an input
// is present but its value is not available yet.
struct ResizeArgs {
  const Tensor* scales = nullptr;
  const Tensor* sizes = nullptr;
  const Tensor* roi = nullptr;
  std::vector<float> scale_attr;
  bool use_scale_attr = false;
};

Status infer_resize(InferContext& ctx) {
  const std::string_view op = ctx.node().op_type;
  const DType dt = ctx.input_dtype(0);
  if (!dtype_supported(dt) || dt == DType::kString) return ctx.error(std::string("X has unsupported dtype ") + dtype_name(dt));
  ResizePlan plan;
  if (Status st = read_resize_modes(ctx.attrs(), op, ctx.opset(), &plan); !st.ok())
    return st.code() == StatusCode::kUnsupported ? unsupported(op.data() + std::string(" '") + ctx.node().name + "': " + st.message())
                                                 : ctx.error(st.message());
  if (plan.mode != ResizeMode::kNearest && !is_nn_float(dt) && !dtype_is_integer(dt))
    return ctx.error(std::string("linear and cubic modes need a numeric X, got ") + dtype_name(dt));
  const ResizeInputs in = resize_inputs(op, ctx.opset());
  ResizeArgs args;
  if (op == "Upsample" && ctx.opset() < 9) {
    args.use_scale_attr = true;
    args.scale_attr = ctx.attrs().get_floats("scales");
  }
  auto value_of = [&](int i, const Tensor** out) {
    if (i < 0 || !ctx.has_input(static_cast<size_t>(i))) return true;
    // An input known to be empty needs no value.
    if (ctx.input_shape_known(static_cast<size_t>(i)) && shape_numel(ctx.input_shape(static_cast<size_t>(i))) == 0) return true;
    *out = ctx.input_value(static_cast<size_t>(i));
    return *out != nullptr;
  };
  bool known = ctx.input_shape_known(0);
  known = value_of(in.scales, &args.scales) && known;
  known = value_of(in.sizes, &args.sizes) && known;
  if (plan.coord == CoordMode::kTfCropAndResize) known = value_of(in.roi, &args.roi) && known;
  if (!known) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  Status st = plan_resize_shape(ctx.input_shape(0), args.scales, args.sizes, args.roi,
                                args.use_scale_attr ? &args.scale_attr : nullptr, &plan);
  if (!st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, plan.output);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------

// Input coordinate of output coordinate `o` along a dim (before clamping / rounding).
double source_coordinate(const ResizePlan& p, size_t d, int64_t o, int64_t in, int64_t out) {
  const double x = static_cast<double>(o), s = p.scales[d];
  switch (p.coord) {
    case CoordMode::kHalfPixel: return (x + 0.5) / s - 0.5;
    case CoordMode::kAsymmetric: return x / s;
    case CoordMode::kAlignCorners: return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / static_cast<double>(out - 1);
    case CoordMode::kPytorchHalfPixel: return out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case CoordMode::kTfHalfPixelForNn: return (x + 0.5) / s;
    case CoordMode::kTfCropAndResize: {
      const double a = p.roi_start[d], b = p.roi_end[d], span = static_cast<double>(in - 1);
      return out > 1 ? a * span + x * (b - a) * span / static_cast<double>(out - 1) : 0.5 * (a + b) * span;
    }
  }
  return x;
}

int64_t nearest_index(NearestMode m, double x, double scale) {
  switch (m) {
    case NearestMode::kRoundPreferFloor: return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::floor(x)) : std::llround(x);
    case NearestMode::kRoundPreferCeil: return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::ceil(x)) : std::llround(x);
    case NearestMode::kFloor: return static_cast<int64_t>(std::floor(x));
    case NearestMode::kCeil: return static_cast<int64_t>(std::ceil(x));
    case NearestMode::kSimple: return static_cast<int64_t>(scale < 1.0 ? std::ceil(x) : std::floor(x));
  }
  return 0;
}

// Per dim and output index: the neighbours i0/i1 (i1 == i0 for nearest), the weight of i1, and
// whether the coordinate is outside the input (tf_crop_and_resize extrapolation). Cubic mode
// uses the four taps floor(x)-1 .. floor(x)+2 (clamped: ONNX pads the input with its edge) and
// their weights instead, with i0 the tap at floor(x).
struct AxisTable {
  std::vector<int64_t> i0, i1;
  std::vector<double> w1;
  std::vector<std::array<int64_t, 4>> cubic_taps;
  std::vector<std::array<double, 4>> cubic_w;
  std::vector<uint8_t> outside;
  bool interpolates = false;  // some w1 != 0: this dim needs two neighbours
};

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

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    // Linear on integers: round to nearest, saturate to the type's range.
    const double r = std::nearbyint(v);
    if (!(r >= static_cast<double>(std::numeric_limits<T>::lowest()))) return std::numeric_limits<T>::lowest();
    if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return nn_store<T>(static_cast<nn_acc_t<T>>(v));
  }
}

template <class T>
void resize_typed(KernelContext& ctx, const ResizePlan& p) {
  using V = float_or_self_t<T>;
  const Tensor& xt = ctx.input(0);
  const size_t rank = static_cast<size_t>(xt.rank());
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  std::vector<AxisTable> tables;
  std::vector<int64_t> in_stride(rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    in_stride[d] = stride;
    stride *= xt.dim(static_cast<int64_t>(d));
  }
  std::vector<size_t> interp_dims;
  for (size_t d = 0; d < rank; ++d) {
    tables.push_back(axis_table(p, d, xt.dim(static_cast<int64_t>(d)), p.output[d]));
    if (tables.back().interpolates) interp_dims.push_back(d);
  }
  const bool may_extrapolate = p.coord == CoordMode::kTfCropAndResize;
  const T extrapolated = from_double<T>(p.extrapolation_value);
  const int64_t total = shape_numel(p.output);
  const size_t corners = size_t{1} << ((p.mode == ResizeMode::kCubic ? 2 : 1) * interp_dims.size());
  parallel_for(total, 4 * static_cast<int64_t>(corners), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> o(rank);
    int64_t rem = begin;
    for (size_t d = rank; d-- > 0;) {
      o[d] = rem % p.output[d];
      rem /= p.output[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      int64_t base = 0;
      bool outside = false;
      for (size_t d = 0; d < rank; ++d) {
        const size_t u = static_cast<size_t>(o[d]);
        base += tables[d].i0[u] * in_stride[d];
        outside = outside || tables[d].outside[u];
      }
      if (may_extrapolate && outside) {
        y[i] = extrapolated;
      } else if (interp_dims.empty()) {
        y[i] = x[base];
      } else if (p.mode == ResizeMode::kCubic) {
        // 4^k taps: digit k of c (base 4) picks the tap along interp_dims[k].
        double sum = 0;
        for (size_t c = 0; c < corners; ++c) {
          int64_t off = base;
          double w = 1;
          for (size_t k = 0, rest = c; k < interp_dims.size(); ++k, rest /= 4) {
            const size_t d = interp_dims[k];
            const size_t u = static_cast<size_t>(o[d]);
            off += (tables[d].cubic_taps[u][rest % 4] - tables[d].i0[u]) * in_stride[d];
            w *= tables[d].cubic_w[u][rest % 4];
          }
          if (w != 0.0) sum += w * static_cast<double>(static_cast<V>(x[off]));
        }
        y[i] = from_double<T>(sum);
      } else {
        double sum = 0;
        for (size_t c = 0; c < corners; ++c) {
          int64_t off = base;
          double w = 1;
          for (size_t k = 0; k < interp_dims.size(); ++k) {
            const size_t d = interp_dims[k];
            const size_t u = static_cast<size_t>(o[d]);
            const double w1 = tables[d].w1[u];
            if (c >> k & 1) {
              off += (tables[d].i1[u] - tables[d].i0[u]) * in_stride[d];
              w *= w1;
            } else {
              w *= 1.0 - w1;
            }
          }
          if (w != 0.0) sum += w * static_cast<double>(static_cast<V>(x[off]));
        }
        y[i] = from_double<T>(sum);
      }
      for (size_t d = rank; d-- > 0;) {
        if (++o[d] < p.output[d]) break;
        o[d] = 0;
      }
    }
  });
}

Status resize_kernel(KernelContext& ctx) {
  const std::string_view op = ctx.node().op_type;
  ResizePlan plan;
  Status st = read_resize_modes(ctx.attrs(), op, ctx.opset(), &plan);
  if (!st.ok()) return ctx.error(st.message());
  const ResizeInputs in = resize_inputs(op, ctx.opset());
  auto value = [&](int i) -> const Tensor* { return i >= 0 && ctx.has_input(static_cast<size_t>(i)) ? &ctx.input(static_cast<size_t>(i)) : nullptr; };
  std::vector<float> scale_attr;
  const bool use_attr = op == "Upsample" && ctx.opset() < 9;
  if (use_attr) scale_attr = ctx.attrs().get_floats("scales");
  st = plan_resize_shape(ctx.input(0).shape(), value(in.scales), value(in.sizes), value(in.roi), use_attr ? &scale_attr : nullptr,
                         &plan);
  if (!st.ok()) return ctx.error(st.message());
  if (plan.output != ctx.output(0).shape())
    return ctx.error("output shape " + shape_to_string(ctx.output(0).shape()) + " differs from the planned " +
                     shape_to_string(plan.output));
  if (ctx.output(0).numel() == 0) return Status::Ok();
  if (plan.mode == ResizeMode::kLinear && ctx.input(0).rank() > 10)
    return ctx.error("linear mode supports at most 10 dims (2^dims neighbours per output), X has " +
                     std::to_string(ctx.input(0).rank()));
  if (plan.mode == ResizeMode::kCubic && ctx.input(0).rank() > 5)
    return ctx.error("cubic mode supports at most 5 dims (4^dims neighbours per output), X has " +
                     std::to_string(ctx.input(0).rank()));
  if (!visit_dtype(ctx.input(0).dtype(), [&](auto tag) { resize_typed<typename decltype(tag)::type>(ctx, plan); }))
    return ctx.error(std::string("unsupported dtype ") + dtype_name(ctx.input(0).dtype()));
  return Status::Ok();
}

}  // namespace

void register_nn_resize_ops(std::vector<OpSchema>& table) {
  table.push_back({"Resize", 1, 4, 1, 1, infer_resize, resize_kernel});
  table.push_back({"Upsample", 1, 2, 1, 1, infer_resize, resize_kernel});
}

}  // namespace openge
