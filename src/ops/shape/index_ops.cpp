// GatherND, ScatterElements (and its opset-9 name Scatter), ReverseSequence: data movement
// addressed by an index tensor. Indices are data, so they are checked in the kernel, every one
// before anything is read through it: an out-of-range index is an error naming the node and the
// index, never an out-of-bounds access. Negative indices count from the end, as ONNX allows.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/shape/index_util.h"
#include "ops/op_registry.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

// --- GatherND: out[b.., i..] = data[b.., indices[b.., i.., :], ...] ------------------------------
// With batch_dims b, the first b dims of data and indices are a shared batch; each row of the
// last indices dim (k values) addresses a slice data[b.., i_0, ..., i_{k-1}, ...].
struct GatherNdGeometry {
  int64_t batch_dims = 0;
  int64_t k = 0;  // index tuple length: indices.shape[-1]
  Shape out;
};

template <class Ctx>
Result<GatherNdGeometry> gather_nd_geometry(const Ctx& ctx, const Shape& data, const Shape& idx) {
  GatherNdGeometry g;
  g.batch_dims = ctx.opset() >= 12 ? ctx.attrs().get_int("batch_dims", 0) : 0;
  const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(idx.size());
  if (r < 1 || q < 1) return ctx.error("data and indices must have rank >= 1");
  if (g.batch_dims < 0 || g.batch_dims >= std::min(r, q))
    return ctx.error("batch_dims " + std::to_string(g.batch_dims) + " must be in [0, min(data rank " +
                     std::to_string(r) + ", indices rank " + std::to_string(q) + "))");
  for (int64_t i = 0; i < g.batch_dims; ++i)
    if (data[static_cast<size_t>(i)] != idx[static_cast<size_t>(i)])
      return ctx.error("batch dim " + std::to_string(i) + " differs: data " + shape_to_string(data) + ", indices " +
                       shape_to_string(idx));
  g.k = idx.back();
  if (g.k < 1 || g.k > r - g.batch_dims)
    return ctx.error("the last dim of indices (" + std::to_string(g.k) +
                     ") must be in [1, data rank - batch_dims = " + std::to_string(r - g.batch_dims) + "]");
  g.out.assign(idx.begin(), idx.end() - 1);
  g.out.insert(g.out.end(), data.begin() + g.batch_dims + g.k, data.end());
  return g;
}

Status infer_gather_nd(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  OPENGE_RETURN_IF_ERROR(check_index_input(ctx, 1, "indices"));
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0) || !input_shape_static(ctx, 1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto g = gather_nd_geometry(ctx, ctx.input_shape(0), ctx.input_shape(1));
  if (!g.ok()) return g.status();
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, g->out, dt, "the output"));
  ctx.set_output(0, dt, g->out);
  return Status::Ok();
}

Status gather_nd_kernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  if (!is_index_dtype(indices.dtype()))
    return ctx.error(std::string("indices must be int32 or int64, got ") + dtype_name(indices.dtype()));
  auto g = gather_nd_geometry(ctx, data.shape(), indices.shape());
  if (!g.ok()) return g.status();
  const size_t b = static_cast<size_t>(g->batch_dims), k = static_cast<size_t>(g->k);
  const int64_t batches = product(data.shape(), 0, b);
  const int64_t tuples = batches == 0 ? 0 : indices.numel() / g->k;
  const int64_t per_batch = batches == 0 ? 0 : tuples / batches;
  const int64_t batch_stride = product(data.shape(), b, data.shape().size());
  const int64_t slice = product(data.shape(), b + k, data.shape().size());
  const std::vector<int64_t> strides = contiguous_strides(data.shape());
  // Every tuple is checked before anything is copied.
  std::vector<int64_t> offsets(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = (t / per_batch) * batch_stride;
    for (size_t j = 0; j < k; ++j) {
      auto v = checked_index_at(ctx, indices, t * g->k + static_cast<int64_t>(j), data.dim(b + j), "indices",
                                "data dim " + std::to_string(b + j));
      if (!v.ok()) return v.status();
      off += *v * strides[b + j];
    }
    offsets[static_cast<size_t>(t)] = off;
  }
  const size_t es = dtype_size(data.dtype());
  const char* src = static_cast<const char*>(data.raw());
  char* dst = static_cast<char*>(ctx.output(0).raw());
  const size_t bytes = static_cast<size_t>(slice) * es;
  parallel_for(tuples, slice / 8 + 8, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t)
      std::memcpy(dst + static_cast<size_t>(t) * bytes, src + static_cast<size_t>(offsets[static_cast<size_t>(t)]) * es,
                  bytes);
  });
  return Status::Ok();
}

// --- ScatterElements / Scatter: out = data; out[i.. with i_axis = indices[i..]] (op)= updates[i..]
enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

template <class Ctx>
Result<Reduction> scatter_elements_reduction(const Ctx& ctx) {
  // `reduction` exists from opset 16 (add, mul) and 18 (max, min); Scatter never has it.
  const std::string r = ctx.attrs().get_string("reduction", "none");
  static const struct {
    const char* name;
    Reduction red;
  } kTable[] = {{"none", Reduction::kNone},
                {"add", Reduction::kAdd},
                {"mul", Reduction::kMul},
                {"max", Reduction::kMax},
                {"min", Reduction::kMin}};
  for (const auto& row : kTable)
    if (r == row.name) return row.red;
  return ctx.error("reduction '" + r + "' is not one of none, add, mul, max, min");
}

template <class Ctx>
Result<size_t> scatter_axis(const Ctx& ctx, const Shape& data, const Shape& idx, const Shape& upd) {
  const int64_t rank = static_cast<int64_t>(data.size());
  const int64_t axis = ctx.attrs().get_int("axis", 0);
  if (rank < 1) return ctx.error("data must have rank >= 1");
  if (axis < -rank || axis >= rank)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  if (idx != upd)
    return ctx.error("indices " + shape_to_string(idx) + " and updates " + shape_to_string(upd) +
                     " must have the same shape");
  bool fits = idx.size() == data.size();
  for (size_t d = 0; fits && d < idx.size(); ++d) fits = d == a || idx[d] <= data[d];
  if (!fits)
    return ctx.error("indices shape " + shape_to_string(idx) + " does not fit data shape " + shape_to_string(data) +
                     " (same rank, and no larger outside the axis)");
  return a;
}

Status infer_scatter_elements(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  OPENGE_RETURN_IF_ERROR(check_index_input(ctx, 1, "indices"));
  const DType dt = ctx.input_dtype(0);
  auto red = scatter_elements_reduction(ctx);
  if (!red.ok()) return red.status();
  if (*red != Reduction::kNone && dt == DType::kBool)
    return ctx.error("reduction '" + ctx.attrs().get_string("reduction", "") + "' is not defined for bool");
  if (ctx.input_dtype(2) != DType::kUndefined && dt != DType::kUndefined && ctx.input_dtype(2) != dt)
    return ctx.error(std::string("updates dtype ") + dtype_name(ctx.input_dtype(2)) + " differs from data dtype " +
                     dtype_name(dt));
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  if (input_shape_static(ctx, 1) && input_shape_static(ctx, 2)) {
    auto a = scatter_axis(ctx, ctx.input_shape(0), ctx.input_shape(1), ctx.input_shape(2));
    if (!a.ok()) return a.status();
  }
  ctx.set_output(0, dt, ctx.input_shape(0));
  return Status::Ok();
}

template <class T>
T reduce_one(T a, T b, Reduction red) {
  using C = float_or_self_t<T>;
  const C x = static_cast<C>(a), y = static_cast<C>(b);
  switch (red) {
    case Reduction::kAdd:
      return T(static_cast<C>(x + y));
    case Reduction::kMul:
      return T(static_cast<C>(x * y));
    case Reduction::kMax:
      return T(std::max(x, y));
    case Reduction::kMin:
      return T(std::min(x, y));
    case Reduction::kNone:
      break;
  }
  return b;
}

Status scatter_elements_kernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  auto red = scatter_elements_reduction(ctx);
  if (!red.ok()) return red.status();
  if (!is_index_dtype(indices.dtype()))
    return ctx.error(std::string("indices must be int32 or int64, got ") + dtype_name(indices.dtype()));
  if (updates.dtype() != data.dtype()) return ctx.error("updates dtype differs from data dtype");
  auto axis = scatter_axis(ctx, data.shape(), indices.shape(), updates.shape());
  if (!axis.ok()) return axis.status();
  // Data offset of every update, all checked before anything is written.
  const std::vector<int64_t> dstride = contiguous_strides(data.shape());
  const Shape& ishape = indices.shape();
  const int64_t axis_dim = data.dim(static_cast<int64_t>(*axis));
  std::vector<int64_t> offsets(static_cast<size_t>(indices.numel()));
  std::vector<int64_t> coord(ishape.size(), 0);
  for (int64_t i = 0; i < indices.numel(); ++i) {
    auto v = checked_index_at(ctx, indices, i, axis_dim, "indices", "data dim " + std::to_string(*axis));
    if (!v.ok()) return v.status();
    int64_t off = 0;
    for (size_t d = 0; d < ishape.size(); ++d) off += (d == *axis ? *v : coord[d]) * dstride[d];
    offsets[static_cast<size_t>(i)] = off;
    for (size_t d = ishape.size(); d-- > 0;) {  // next coordinate, row-major
      if (++coord[d] < ishape[d]) break;
      coord[d] = 0;
    }
  }
  Tensor& out = ctx.output(0);
  copy_bytes(out.raw(), data.raw(), data.nbytes());
  // In order, so that with duplicate indices the last update wins (as ONNX's reference does).
  const bool ok = visit_dtype(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.data<T>();
    const T* src = updates.data<T>();
    for (size_t i = 0; i < offsets.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        dst[offsets[i]] = src[i];
      else
        dst[offsets[i]] = *red == Reduction::kNone ? src[i] : reduce_one<T>(dst[offsets[i]], src[i], *red);
    }
  });
  if (!ok) return ctx.error(std::string("dtype ") + dtype_name(data.dtype()) + " is not supported");
  return Status::Ok();
}

// --- ReverseSequence: reverse the first sequence_lens[b] steps of each batch entry ------------
template <class Ctx>
Result<std::pair<size_t, size_t>> reverse_sequence_axes(const Ctx& ctx, const Shape& x, const Shape& lens) {
  const int64_t batch_axis = ctx.attrs().get_int("batch_axis", 1);
  const int64_t time_axis = ctx.attrs().get_int("time_axis", 0);
  if (x.size() < 2) return ctx.error("input must have rank >= 2, got " + shape_to_string(x));
  if ((batch_axis != 0 && batch_axis != 1) || (time_axis != 0 && time_axis != 1) || batch_axis == time_axis)
    return ctx.error("batch_axis and time_axis must be 0 and 1 in some order, got " + std::to_string(batch_axis) +
                     " and " + std::to_string(time_axis));
  if (lens.size() != 1 || lens[0] != x[static_cast<size_t>(batch_axis)])
    return ctx.error("sequence_lens " + shape_to_string(lens) + " must be 1-D with the batch size " +
                     std::to_string(x[static_cast<size_t>(batch_axis)]));
  return std::make_pair(static_cast<size_t>(batch_axis), static_cast<size_t>(time_axis));
}

Status infer_reverse_sequence(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  OPENGE_RETURN_IF_ERROR(check_index_input(ctx, 1, "sequence_lens"));
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  if (input_shape_static(ctx, 1)) {
    auto axes = reverse_sequence_axes(ctx, ctx.input_shape(0), ctx.input_shape(1));
    if (!axes.ok()) return axes.status();
  }
  ctx.set_output(0, dt, ctx.input_shape(0));
  return Status::Ok();
}

Status reverse_sequence_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& lens = ctx.input(1);
  if (!is_index_dtype(lens.dtype()))
    return ctx.error(std::string("sequence_lens must be int32 or int64, got ") + dtype_name(lens.dtype()));
  auto axes = reverse_sequence_axes(ctx, x.shape(), lens.shape());
  if (!axes.ok()) return axes.status();
  // Plain variables, not a structured binding: clang 14 (the fuzz build) cannot capture those.
  const auto batch_axis = axes->first, time_axis = axes->second;
  const int64_t batch = x.dim(static_cast<int64_t>(batch_axis)), steps = x.dim(static_cast<int64_t>(time_axis));
  std::vector<int64_t> len(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    len[static_cast<size_t>(b)] = index_at(lens, b);
    if (len[static_cast<size_t>(b)] < 0 || len[static_cast<size_t>(b)] > steps)
      return ctx.error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len[static_cast<size_t>(b)]) +
                       " is out of range [0, " + std::to_string(steps) + "]");
  }
  const size_t inner = static_cast<size_t>(product(x.shape(), 2, x.shape().size())) * dtype_size(x.dtype());
  const int64_t d1 = x.dim(1);
  auto offset = [&](int64_t b, int64_t t) {
    return static_cast<size_t>(time_axis == 0 ? t * d1 + b : b * d1 + t) * inner;
  };
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(ctx.output(0).raw());
  parallel_for(batch * steps, static_cast<int64_t>(inner) / 8 + 8, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t b = i / steps, t = i % steps, n = len[static_cast<size_t>(b)];
      std::memcpy(dst + offset(b, t), src + offset(b, t < n ? n - 1 - t : t), inner);
    }
  });
  return Status::Ok();
}

}  // namespace

void register_index_ops(std::vector<OpSchema>& table) {
  table.push_back({"GatherND", 2, 2, 1, 1, infer_gather_nd, gather_nd_kernel, false});
  table.push_back({"ScatterElements", 3, 3, 1, 1, infer_scatter_elements, scatter_elements_kernel, false});
  // Scatter (opsets 9-10) is ScatterElements without `reduction` under its old name.
  table.push_back({"Scatter", 3, 3, 1, 1, infer_scatter_elements, scatter_elements_kernel, false});
  table.push_back({"ReverseSequence", 2, 2, 1, 1, infer_reverse_sequence, reverse_sequence_kernel, false});
}

}  // namespace openge
