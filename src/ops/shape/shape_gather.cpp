// Gather, GatherElements, ScatterND: data movement addressed by an index tensor. Indices are
// checked against the data shape in the kernel (they are data, so only known at run time) and
// negative ones count from the end, as ONNX allows since opset 11.
#include <algorithm>
#include <string>

#include "ir/dispatch.h"
#include "ops/shape/index_util.h"
#include "ops/prepared_kernel.h"
#include "ops/shape/shape_common.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

Status check_index_dtype(const InferContext& ctx, size_t i) {
  const DType t = ctx.input_dtype(i);
  if (t != DType::kUndefined && t != DType::kInt64 && t != DType::kInt32)
    return ctx.error(std::string("indices must be int32 or int64, got ") + dtype_name(t));
  return Status::Ok();
}

// The indices as int64 in [0, dim) into `out` (idx.numel() of them), or an error naming the first
// bad one.
Status normalized_indices(const KernelContext& ctx, const Tensor& idx, int64_t dim, int64_t* out) {
  if (idx.dtype() != DType::kInt64 && idx.dtype() != DType::kInt32)
    return ctx.error(std::string("indices must be int32 or int64, got ") + dtype_name(idx.dtype()));
  for (int64_t i = 0; i < idx.numel(); ++i) {
    // Checked without building a message unless the index is out of range.
    const int64_t raw = index_at(idx, i);
    if (raw >= -dim && raw < dim) {
      out[i] = raw < 0 ? raw + dim : raw;
      continue;
    }
    auto v = checked_index_at(ctx, idx, i, dim, "indices", "the gathered axis has size " + std::to_string(dim));
    if (!v.ok()) return v.status();
    out[i] = *v;
  }
  return Status::Ok();
}

Status normalized_indices(const KernelContext& ctx, const Tensor& idx, int64_t dim, std::vector<int64_t>& out) {
  out.resize(static_cast<size_t>(idx.numel()));
  return normalized_indices(ctx, idx, dim, out.data());
}

template <class Ctx>
Result<size_t> gather_axis(const Ctx& ctx, int64_t rank) {
  const int64_t axis = ctx.attrs().get_int("axis", 0);
  if (rank == 0) return ctx.error("data must have rank >= 1");
  if (axis < -rank || axis >= rank)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

int64_t dims_product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// --- Gather: out = data[:axis] + indices.shape + data[axis+1:] -------------------------------
Status infer_gather(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  OPENGE_RETURN_IF_ERROR(check_index_dtype(ctx, 1));
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0) || !input_shape_static(ctx, 1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  auto axis = gather_axis(ctx, static_cast<int64_t>(data.size()));
  if (!axis.ok()) return axis.status();
  Shape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(*axis));
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, data.end());
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, out, dt, "the output"));
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// Gathers rows of `inner` elements of `es` bytes: out[o, i] = data[o, idx[i]].
struct GatherLayout {
  int64_t dim = 0, es = 0, outer = 1, inner = 1, n = 0;
};

void gather_rows(const GatherLayout& l, const int64_t* idx, const void* data, void* out) {
  const int64_t es = l.es, dim = l.dim, n = l.n;
  const char* src = static_cast<const char*>(data);
  char* dst = static_cast<char*>(out);
  if (l.inner == 1) {  // gathering single elements: a typed loop beats memcpy calls
    visit_element_size(static_cast<size_t>(es), [&](auto tag) {
      using T = typename decltype(tag)::type;
      parallel_for(l.outer * n, 2, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t o = t / n, i = t % n;
          store_elem<T>(dst + t * es, load_elem<T>(src + (o * dim + idx[i]) * es));
        }
      });
    });
    return;
  }
  const int64_t bytes = l.inner * es;
  parallel_for(l.outer * n, bytes / 8 + 8, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / n, i = t % n;
      std::memcpy(dst + t * bytes, src + (o * dim + idx[i]) * bytes, static_cast<size_t>(bytes));
    }
  });
}

GatherLayout gather_layout(const Shape& data, size_t axis, DType dtype, int64_t indices) {
  GatherLayout l;
  l.dim = data[axis];
  l.es = static_cast<int64_t>(dtype_size(dtype));
  l.outer = dims_product(data, 0, axis);
  l.inner = dims_product(data, axis + 1, data.size());  // elements per index
  l.n = indices;
  return l;
}

Status gather_kernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  auto axis = gather_axis(ctx, data.rank());
  if (!axis.ok()) return axis.status();
  const GatherLayout l = gather_layout(data.shape(), *axis, data.dtype(), ctx.input(1).numel());
  std::vector<int64_t> idx;
  OPENGE_RETURN_IF_ERROR(normalized_indices(ctx, ctx.input(1), l.dim, idx));
  gather_rows(l, idx.data(), data.raw(), ctx.output(0).raw());
  return Status::Ok();
}

// The layout once; constant indices checked once, the others each run into arena scratch.
class PreparedGather final : public PreparedKernel {
 public:
  PreparedGather(GatherLayout layout, std::vector<int64_t> constant_idx, bool constant)
      : layout_(layout), constant_idx_(std::move(constant_idx)), constant_(constant) {}
  size_t scratch_bytes() const override { return constant_ ? 0 : static_cast<size_t>(layout_.n) * sizeof(int64_t); }
  Status run(KernelContext& ctx) const override {
    const int64_t* idx = constant_idx_.data();
    std::vector<int64_t> own;  // outside an executor (no scratch)
    if (!constant_) {
      int64_t* into = static_cast<int64_t*>(ctx.scratch());
      if (!into) {
        own.resize(static_cast<size_t>(layout_.n));
        into = own.data();
      }
      OPENGE_RETURN_IF_ERROR(normalized_indices(ctx, ctx.input(1), layout_.dim, into));
      idx = into;
    }
    gather_rows(layout_, idx, ctx.input(0).raw(), ctx.output(0).raw());
    return Status::Ok();
  }

 private:
  GatherLayout layout_;
  std::vector<int64_t> constant_idx_;
  bool constant_;
};

Result<std::unique_ptr<CompiledKernel>> prepare_gather(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  const ValueInfo& data = request.inputs[0];
  const ValueInfo& indices = request.inputs[1];
  InferContext ictx(request.node, request.opset, {&data}, 1);
  auto axis = gather_axis(ictx, static_cast<int64_t>(data.shape.size()));
  if (!axis.ok() || dtype_size(data.dtype) == 0) return not_prepared();
  const GatherLayout l = gather_layout(data.shape, *axis, data.dtype, shape_numel(indices.shape));
  std::vector<int64_t> idx;
  if (indices.value) {
    // Checked now as the kernel would; a bad constant index is the reference kernel's error.
    Tensor out;
    KernelContext kctx(request.node, request.opset, {indices.value}, {&out});
    if (!normalized_indices(kctx, *indices.value, l.dim, idx).ok()) return not_prepared();
  }
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedGather>(l, std::move(idx), indices.value != nullptr));
}

// --- GatherElements: out[i..] = data[i.. with i_axis replaced by indices[i..]] -----------------
Status infer_gather_elements(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  OPENGE_RETURN_IF_ERROR(check_index_dtype(ctx, 1));
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0) || !input_shape_static(ctx, 1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  auto axis = gather_axis(ctx, static_cast<int64_t>(data.size()));
  if (!axis.ok()) return axis.status();
  bool fits = idx.size() == data.size();
  for (size_t k = 0; fits && k < idx.size(); ++k) fits = k == *axis || idx[k] <= data[k];
  if (!fits)
    return ctx.error("indices shape " + shape_to_string(idx) + " does not fit data shape " + shape_to_string(data) +
                     " (same rank, and no larger outside the axis)");
  ctx.set_output(0, dt, idx);
  return Status::Ok();
}

Status gather_elements_kernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  auto axis = gather_axis(ctx, data.rank());
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> idx;
  OPENGE_RETURN_IF_ERROR(normalized_indices(ctx, indices, data.dim(static_cast<int64_t>(*axis)), idx));
  if (indices.numel() == 0) return Status::Ok();
  const std::vector<int64_t> dstride = contiguous_strides(data.shape());
  const Shape& ishape = indices.shape();
  const size_t last = ishape.size() - 1;
  const int64_t row_len = ishape[last];
  const int64_t rows = indices.numel() / row_len;
  const bool axis_is_last = *axis == last;
  const int64_t axis_stride = dstride[*axis];
  const char* src = static_cast<const char*>(data.raw());
  char* dst = static_cast<char*>(ctx.output(0).raw());
  visit_element_size(dtype_size(data.dtype()), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(rows, row_len * 2 + 8, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        // Data offset of this row, without the axis dim (which the index supplies).
        int64_t base = 0;
        for (size_t k = last, rest = static_cast<size_t>(r); k-- > 0;) {
          const int64_t i = static_cast<int64_t>(rest) % ishape[k];
          rest /= static_cast<size_t>(ishape[k]);
          if (k != *axis) base += i * dstride[k];
        }
        const int64_t* ip = idx.data() + r * row_len;
        for (int64_t j = 0; j < row_len; ++j) {
          const int64_t off = base + (axis_is_last ? 0 : j) + ip[j] * axis_stride;
          store_elem<T>(dst + (r * row_len + j) * static_cast<int64_t>(sizeof(T)),
                        load_elem<T>(src + off * static_cast<int64_t>(sizeof(T))));
        }
      }
    });
  });
  return Status::Ok();
}

// --- ScatterND: out = data; out[indices[i]] (op)= updates[i] ----------------------------------
enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

template <class Ctx>
Result<Reduction> scatter_reduction(const Ctx& ctx) {
  const std::string r = ctx.attrs().get_string("reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return ctx.error("reduction '" + r + "' is not one of none, add, mul, max, min");
}

Status infer_scatter_nd(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  OPENGE_RETURN_IF_ERROR(check_index_dtype(ctx, 1));
  const DType dt = ctx.input_dtype(0);
  auto red = scatter_reduction(ctx);
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
  const Shape& data = ctx.input_shape(0);
  if (input_shape_static(ctx, 1) && input_shape_static(ctx, 2)) {
    const Shape& idx = ctx.input_shape(1);
    const Shape& upd = ctx.input_shape(2);
    if (idx.empty()) return ctx.error("indices must have rank >= 1");
    const int64_t k = idx.back();
    if (k < 1 || k > static_cast<int64_t>(data.size()))
      return ctx.error("the last dim of indices (" + std::to_string(k) + ") must be in [1, data rank " +
                       std::to_string(data.size()) + "]");
    Shape expect(idx.begin(), idx.end() - 1);
    expect.insert(expect.end(), data.begin() + k, data.end());
    if (upd != expect)
      return ctx.error("updates shape " + shape_to_string(upd) + " should be " + shape_to_string(expect));
  }
  ctx.set_output(0, dt, data);
  return Status::Ok();
}

template <class T>
void scatter_reduce(char* dst, const char* src, int64_t n, Reduction red) {
  using C = float_or_self_t<T>;
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) {
    const C a = static_cast<C>(d[i]), b = static_cast<C>(s[i]);
    C r = b;
    switch (red) {
      case Reduction::kAdd:
        r = static_cast<C>(a + b);
        break;
      case Reduction::kMul:
        r = static_cast<C>(a * b);
        break;
      case Reduction::kMax:
        r = std::max(a, b);
        break;
      case Reduction::kMin:
        r = std::min(a, b);
        break;
      case Reduction::kNone:
        break;
    }
    d[i] = T(r);
  }
}

Status scatter_nd_kernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  Tensor& out = ctx.output(0);
  auto red = scatter_reduction(ctx);
  if (!red.ok()) return red.status();
  if (indices.dtype() != DType::kInt64 && indices.dtype() != DType::kInt32)
    return ctx.error(std::string("indices must be int32 or int64, got ") + dtype_name(indices.dtype()));
  const int64_t k = indices.rank() ? indices.shape().back() : 0;
  if (k < 1 || k > data.rank()) return ctx.error("the last dim of indices must be in [1, data rank]");
  const int64_t tuples = indices.numel() / k;
  const int64_t es = static_cast<int64_t>(dtype_size(data.dtype()));
  const int64_t slice = dims_product(data.shape(), static_cast<size_t>(k), data.shape().size());
  if (updates.numel() != tuples * slice || updates.dtype() != data.dtype())
    return ctx.error("updates " + shape_to_string(updates.shape()) + " do not match indices and data");
  const std::vector<int64_t> strides = contiguous_strides(data.shape());
  // Every index is checked before anything is written.
  std::vector<int64_t> offsets(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t dim = data.dim(j);
      auto v = checked_index_at(ctx, indices, t * k + j, dim, "indices", "data dim " + std::to_string(j));
      if (!v.ok()) return v.status();
      off += *v * strides[static_cast<size_t>(j)];
    }
    offsets[static_cast<size_t>(t)] = off;
  }
  copy_bytes(out.raw(), data.raw(), data.nbytes());
  char* dst = static_cast<char*>(out.raw());
  const char* src = static_cast<const char*>(updates.raw());
  // In order, so that with duplicate indices the last update wins (as ONNX's reference does).
  if (*red == Reduction::kNone) {
    for (int64_t t = 0; t < tuples; ++t)
      std::memcpy(dst + offsets[static_cast<size_t>(t)] * es, src + t * slice * es, static_cast<size_t>(slice * es));
    return Status::Ok();
  }
  const bool ok = visit_numeric_dtype(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t t = 0; t < tuples; ++t)
      scatter_reduce<T>(dst + offsets[static_cast<size_t>(t)] * es, src + t * slice * es, slice, *red);
  });
  if (!ok) return ctx.error(std::string("reduction is not defined for ") + dtype_name(data.dtype()));
  return Status::Ok();
}

}  // namespace

void register_shape_gather_ops(std::vector<OpSchema>& table) {
  table.push_back({"Gather", 2, 2, 1, 1, infer_gather, gather_kernel, false});
  table.back().prepare = &prepare_gather;
  table.push_back({"GatherElements", 2, 2, 1, 1, infer_gather_elements, gather_elements_kernel, false});
  table.push_back({"ScatterND", 3, 3, 1, 1, infer_scatter_nd, scatter_nd_kernel, false});
}

}  // namespace openge
