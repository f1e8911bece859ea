// Resize (opsets 10, 11, 13+) and Upsample (opsets 7, 9) reference kernels: nearest, N-D linear
// and N-D cubic interpolation with every ONNX coordinate transformation mode. Each output
// coordinate along a dim maps independently to an input coordinate, so the kernel precomputes
// one small table per dim and then gathers (nearest) or blends 2^k (linear) or 4^k (cubic)
// neighbours, k = dims that actually interpolate.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"
#include "ops/nn/resize_plan.h"
#include "base/parallel.h"

namespace openge {
namespace {

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
  if (!dtype_supported(dt) || dt == DType::kString)
    return ctx.error(std::string("X has unsupported dtype ") + dtype_name(dt));
  ResizePlan plan;
  if (Status st = read_resize_modes(ctx.attrs(), op, ctx.opset(), &plan); !st.ok())
    return st.code() == StatusCode::kUnsupported
               ? unsupported(op.data() + std::string(" '") + ctx.node().name + "': " + st.message())
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
    if (ctx.input_shape_known(static_cast<size_t>(i)) && shape_numel(ctx.input_shape(static_cast<size_t>(i))) == 0)
      return true;
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
  ResizePlan plan;
  auto value = [&](int i) -> const Tensor* {
    return ctx.has_input(static_cast<size_t>(i)) ? &ctx.input(static_cast<size_t>(i)) : nullptr;
  };
  Status st = make_resize_plan(ctx.node(), ctx.opset(), ctx.input(0).shape(), value, &plan);
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
