// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool reference kernels (N-D).
// Window geometry comes from nn_window; each (batch, channel) plane is independent, so planes
// are the unit of parallel work.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/layout/in_formats.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"
#include "ops/nn/pool_window.h"
#include "base/parallel.h"

namespace openge {
namespace {

bool is_pool_dtype(DType t, bool max_pool) {
  return is_nn_float(t) || (max_pool && (t == DType::kInt8 || t == DType::kUInt8));
}

Status check_pool_input(const InferContext& ctx, bool max_pool) {
  const DType t = ctx.input_dtype(0);
  if (!is_pool_dtype(t, max_pool))
    return ctx.error(std::string("input X has dtype ") + dtype_name(t) +
                     "; expected float16, bfloat16, float32, float64" + (max_pool ? ", int8 or uint8" : ""));
  return Status::Ok();
}

Status infer_pool(InferContext& ctx, bool max_pool) {
  OPENGE_RETURN_IF_ERROR(check_pool_input(ctx, max_pool));
  const DType dt = ctx.input_dtype(0);
  const bool want_indices = ctx.num_outputs() > 1 && ctx.node().outputs[1] >= 0;
  if (max_pool) {
    const int64_t order = ctx.attrs().get_int("storage_order", 0);
    if (order != 0 && order != 1) return ctx.error("storage_order must be 0 or 1, got " + std::to_string(order));
  } else {
    const int64_t cip = ctx.attrs().get_int("count_include_pad", 0);
    if (cip != 0 && cip != 1) return ctx.error("count_include_pad must be 0 or 1, got " + std::to_string(cip));
  }
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    if (want_indices) ctx.set_output_dtype(1, DType::kInt64);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3)
    return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ... (rank >= 3)");
  auto geom = pool_geometry(ctx.attrs(), x);
  if (!geom.ok()) return ctx.error(geom.status().message());
  Shape out{x[0], x[1]};
  out.insert(out.end(), geom->output.begin(), geom->output.end());
  if (Status st = check_output_elements(out); !st.ok()) return ctx.error(st.message());
  ctx.set_output(0, dt, out);
  if (want_indices) ctx.set_output(1, DType::kInt64, out);
  return Status::Ok();
}

Status infer_max_pool(InferContext& ctx) { return infer_pool(ctx, true); }
Status infer_average_pool(InferContext& ctx) { return infer_pool(ctx, false); }

template <class T>
void max_pool_typed(KernelContext& ctx, const WindowGeometry& g) {
  using V = float_or_self_t<T>;
  const Tensor& xt = ctx.input(0);
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  int64_t* indices = ctx.has_output(1) ? ctx.output(1).data<int64_t>() : nullptr;
  const bool column_major = ctx.attrs().get_int("storage_order", 0) == 1;
  const int64_t planes = xt.dim(0) * xt.dim(1);
  const int64_t in_plane = shape_numel(g.input), out_plane = g.output_size();
  const WindowTaps taps = window_taps(g);
  const PlaneWalker walk(g, taps);
  // Column-major index of a row-major in-plane offset (storage_order = 1).
  auto column_major_index = [&](int64_t off) {
    int64_t idx = 0, mul = 1;
    for (size_t d = 0; d < g.rank(); ++d) {
      const int64_t coord = (off / walk.in_stride[d]) % g.input[d];
      idx += coord * mul;
      mul *= g.input[d];
    }
    return idx;
  };
  parallel_for(planes, out_plane * std::max<int64_t>(1, g.kernel_size()), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> o(g.rank());
    for (int64_t p = begin; p < end; ++p) {
      const T* xp = x + p * in_plane;
      std::fill(o.begin(), o.end(), 0);
      for (int64_t i = 0; i < out_plane; ++i) {
        V best = std::numeric_limits<V>::lowest();
        int64_t best_off = -1;
        walk.for_each_tap(o, [&](int64_t off) {
          const V v = static_cast<V>(xp[off]);
          if (best_off < 0 || v > best) {  // first maximum wins, as in ONNX Runtime
            best = v;
            best_off = off;
          }
        });
        y[p * out_plane + i] = nn_store<T>(best);
        if (indices)
          indices[p * out_plane + i] =
              best_off < 0 ? -1 : p * in_plane + (column_major ? column_major_index(best_off) : best_off);
        odometer_next(o, g.output);
      }
    }
  });
}

template <class T>
void average_pool_typed(KernelContext& ctx, const WindowGeometry& g) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  const bool include_pad = ctx.attrs().get_int("count_include_pad", 0) == 1;
  const int64_t planes = xt.dim(0) * xt.dim(1);
  const int64_t in_plane = shape_numel(g.input), out_plane = g.output_size();
  const WindowTaps taps = window_taps(g);
  const PlaneWalker walk(g, taps);
  parallel_for(planes, out_plane * std::max<int64_t>(1, g.kernel_size()), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> o(g.rank());
    for (int64_t p = begin; p < end; ++p) {
      const T* xp = x + p * in_plane;
      std::fill(o.begin(), o.end(), 0);
      for (int64_t i = 0; i < out_plane; ++i) {
        Acc sum = 0;
        walk.for_each_tap(o, [&](int64_t off) { sum += static_cast<Acc>(static_cast<float_or_self_t<T>>(xp[off])); });
        const int64_t n = include_pad ? walk.padded_taps(o) : walk.valid_taps(o);
        // A window entirely in the padding has nothing to average: 0.
        y[p * out_plane + i] = nn_store<T>(n > 0 ? sum / static_cast<Acc>(n) : Acc(0));
        odometer_next(o, g.output);
      }
    }
  });
}

Status max_pool_kernel(KernelContext& ctx) {
  auto g = pool_geometry(ctx.attrs(), ctx.input(0).shape());
  if (!g.ok()) return ctx.error(g.status().message());
  const DType t = ctx.input(0).dtype();
  if (t == DType::kInt8)
    max_pool_typed<int8_t>(ctx, *g);
  else if (t == DType::kUInt8)
    max_pool_typed<uint8_t>(ctx, *g);
  else
    visit_float_dtype(t, [&](auto tag) { max_pool_typed<typename decltype(tag)::type>(ctx, *g); });
  return Status::Ok();
}

Status average_pool_kernel(KernelContext& ctx) {
  auto g = pool_geometry(ctx.attrs(), ctx.input(0).shape());
  if (!g.ok()) return ctx.error(g.status().message());
  visit_float_dtype(ctx.input(0).dtype(), [&](auto tag) { average_pool_typed<typename decltype(tag)::type>(ctx, *g); });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Global pools: one value per (batch, channel) plane.

Status infer_global_pool(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "input X"));
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3)
    return ctx.error("input X has shape " + shape_to_string(x) + "; expected N x C x D1 x ... (rank >= 3)");
  Shape out(x.size(), 1);
  out[0] = x[0];
  out[1] = x[1];
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

template <class T, bool kMax>
void global_pool_typed(KernelContext& ctx) {
  using Acc = nn_acc_t<T>;
  const Tensor& xt = ctx.input(0);
  const T* x = xt.data<T>();
  T* y = ctx.output(0).data<T>();
  const int64_t planes = xt.dim(0) * xt.dim(1);
  const int64_t plane = planes == 0 ? 0 : xt.numel() / planes;
  parallel_for(planes, plane, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const T* xp = x + p * plane;
      Acc r = kMax ? -std::numeric_limits<Acc>::infinity() : Acc(0);
      for (int64_t i = 0; i < plane; ++i) {
        const Acc v = static_cast<Acc>(static_cast<float_or_self_t<T>>(xp[i]));
        if constexpr (kMax)
          r = (v > r || std::isnan(v)) ? v : r;
        else
          r += v;
      }
      if constexpr (!kMax) r = plane > 0 ? r / static_cast<Acc>(plane) : Acc(0);
      y[p] = nn_store<T>(r);
    }
  });
}

template <bool kMax>
Status global_pool_kernel(KernelContext& ctx) {
  visit_float_dtype(ctx.input(0).dtype(),
                    [&](auto tag) { global_pool_typed<typename decltype(tag)::type, kMax>(ctx); });
  return Status::Ok();
}

}  // namespace

void register_nn_pool_ops(std::vector<OpSchema>& table) {
  // ChannelsLastLayoutPass stores a region's pools in NHWC or NC1HWC0 and says so in their
  // data_format attribute (ops/layout/in_formats.h); the op type stays the ONNX one.
  table.push_back({"MaxPool", 1, 1, 1, 2, infer_in_node_format<infer_max_pool>, run_in_node_format<max_pool_kernel>});
  table.push_back(
      {"AveragePool", 1, 1, 1, 1, infer_in_node_format<infer_average_pool>, run_in_node_format<average_pool_kernel>});
  table.push_back({"GlobalAveragePool", 1, 1, 1, 1, infer_in_node_format<infer_global_pool>,
                   run_in_node_format<global_pool_kernel<false>>});
  table.push_back({"GlobalMaxPool", 1, 1, 1, 1, infer_in_node_format<infer_global_pool>,
                   run_in_node_format<global_pool_kernel<true>>});
}

}  // namespace openge
