// Concat and Split: both view the tensor as [outer, axis, inner] and move contiguous
// (axis-range x inner) blocks per outer index with memcpy.
#include <limits>
#include <numeric>

#include "ops/prepared_kernel.h"
#include "ops/shape/shape_common.h"
#include "base/parallel.h"

namespace openge {
namespace {

// Product of dims [begin, end).
int64_t dims_product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// --- Concat ----------------------------------------------------------------------------------
Status infer_concat(InferContext& ctx) {
  DType dt = DType::kUndefined;
  bool all_known = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
    OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, i));
    const DType t = ctx.input_dtype(i);
    if (dt != DType::kUndefined && t != DType::kUndefined && t != dt)
      return ctx.error(std::string("inputs mix dtypes ") + dtype_name(dt) + " and " + dtype_name(t));
    if (t != DType::kUndefined) dt = t;
    all_known &= input_shape_static(ctx, i);
  }
  if (!ctx.attrs().has("axis")) return ctx.error("the 'axis' attribute is required");
  if (!all_known) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& first = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(first.size());
  const int64_t axis_attr = ctx.attrs().get_int("axis", 0);
  if (rank == 0) return ctx.error("cannot concatenate scalars");
  if (axis_attr < -rank || axis_attr >= rank)
    return ctx.error("axis " + std::to_string(axis_attr) + " is out of range for rank " + std::to_string(rank));
  const size_t axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  Shape out = first;
  out[axis] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input_shape(i);
    bool match = s.size() == first.size();
    for (size_t k = 0; match && k < s.size(); ++k) match = k == axis || s[k] == first[k];
    if (!match)
      return ctx.error("input " + std::to_string(i) + " has shape " + shape_to_string(s) + ", which does not match " +
                       shape_to_string(first) + " outside axis " + std::to_string(axis));
    if (out[axis] > std::numeric_limits<int64_t>::max() - s[axis]) return ctx.error("output is too large");
    out[axis] += s[axis];
  }
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, out, dt, "the output"));
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// Where each input's rows go: bytes per outer index of the output, and per input the byte offset
// and length of its block within an output row.
struct ConcatLayout {
  int64_t outer = 1, out_row = 0;
  std::vector<int64_t> offset, block;
};

ConcatLayout concat_layout(const std::vector<const Shape*>& inputs, const Shape& out, int64_t axis_attr, size_t es) {
  const int64_t rank = static_cast<int64_t>(out.size());
  const size_t axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  ConcatLayout l;
  l.outer = dims_product(out, 0, axis);
  l.out_row = dims_product(out, axis, out.size()) * static_cast<int64_t>(es);
  l.offset.resize(inputs.size());
  l.block.resize(inputs.size());
  for (size_t i = 0, off = 0; i < inputs.size(); ++i) {
    l.block[i] = dims_product(*inputs[i], axis, inputs[i]->size()) * static_cast<int64_t>(es);
    l.offset[i] = static_cast<int64_t>(off);
    off += static_cast<size_t>(l.block[i]);
  }
  return l;
}

void concat_copy(KernelContext& ctx, const ConcatLayout& l) {
  const int64_t n_in = static_cast<int64_t>(ctx.num_inputs());
  char* dst = static_cast<char*>(ctx.output(0).raw());
  if (l.outer == 1) {  // one block per input: split each large copy instead
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      copy_bytes(dst + l.offset[i], ctx.input(i).raw(), static_cast<size_t>(l.block[i]));
    return;
  }
  parallel_for(l.outer * n_in, l.out_row / n_in / 8 + 8, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / n_in;
      const size_t i = static_cast<size_t>(t % n_in);
      const char* src = static_cast<const char*>(ctx.input(i).raw());
      std::memcpy(dst + o * l.out_row + l.offset[i], src + o * l.block[i], static_cast<size_t>(l.block[i]));
    }
  });
}

Status concat_kernel(KernelContext& ctx) {
  std::vector<const Shape*> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(&ctx.input(i).shape());
  const Tensor& out = ctx.output(0);
  concat_copy(ctx, concat_layout(shapes, out.shape(), ctx.attrs().get_int("axis", 0), dtype_size(out.dtype())));
  return Status::Ok();
}

// A Concat or Split whose copy layout was worked out once, at compile.
template <class Layout, void (*copy)(KernelContext&, const Layout&)>
class PreparedCopy final : public PreparedKernel {
 public:
  explicit PreparedCopy(Layout layout) : layout_(std::move(layout)) {}
  Status run(KernelContext& ctx) const override {
    copy(ctx, layout_);
    return Status::Ok();
  }

 private:
  Layout layout_;
};
using PreparedConcat = PreparedCopy<ConcatLayout, concat_copy>;

Result<std::unique_ptr<CompiledKernel>> prepare_concat(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  std::vector<const Shape*> shapes;
  for (const ValueInfo& in : request.inputs) shapes.push_back(&in.shape);
  const ValueInfo& out = request.outputs[0];
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedConcat>(
      concat_layout(shapes, out.shape, request.node.attrs.get_int("axis", 0), dtype_size(out.dtype))));
}

// --- Split -----------------------------------------------------------------------------------
// The chunk sizes along an axis of size `dim`: the 'split' attribute (opset < 13) or input
// (>= 13), else equal chunks; with num_outputs (opset 18) the last chunk may be smaller.
// `known` is false when the split input's value is not available yet.
template <class Ctx>
Status split_sizes(const Ctx& ctx, int64_t dim, std::vector<int64_t>& sizes, bool& known) {
  known = true;
  const int64_t n = static_cast<int64_t>(ctx.num_outputs());
  bool given = false;
  if (ctx.opset() >= 13 && ctx.has_input(1)) {
    const Tensor* t = input_tensor(ctx, 1);
    if (!t) {
      known = false;
      return Status::Ok();
    }
    auto v = read_ints(ctx, *t, "the 'split' input");
    if (!v.ok()) return v.status();
    sizes = std::move(*v);
    given = true;
  } else if (ctx.attrs().has("split")) {
    sizes = ctx.attrs().get_ints("split");
    given = true;
  }
  if (given) {
    if (static_cast<int64_t>(sizes.size()) != n)
      return ctx.error("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(n) + " outputs");
    int64_t sum = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > dim) return ctx.error("split size " + std::to_string(s) + " is invalid");
      sum += s;  // each <= dim, so no overflow for any sane output count
    }
    if (sum != dim)
      return ctx.error("split sizes " + shape_to_string(sizes) + " sum to " + std::to_string(sum) +
                       " but the axis has size " + std::to_string(dim));
    return Status::Ok();
  }
  if (ctx.attrs().has("num_outputs") && ctx.attrs().get_int("num_outputs", 0) != n)
    return ctx.error("num_outputs is " + std::to_string(ctx.attrs().get_int("num_outputs", 0)) + " but the node has " +
                     std::to_string(n) + " outputs");
  const int64_t chunk = (dim + n - 1) / n;
  const bool uneven_allowed = ctx.opset() >= 18 || ctx.attrs().has("num_outputs");
  if (dim % n != 0 && (!uneven_allowed || dim - chunk * (n - 1) < 0))
    return ctx.error("axis of size " + std::to_string(dim) + " cannot be split into " + std::to_string(n) +
                     " equal parts");
  sizes.assign(static_cast<size_t>(n), chunk);
  sizes.back() = dim - chunk * (n - 1);
  return Status::Ok();
}

template <class Ctx>
Result<size_t> split_axis(const Ctx& ctx, int64_t rank) {
  const int64_t axis = ctx.attrs().get_int("axis", 0);
  if (axis < -rank || axis >= rank)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

Status infer_split(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  auto dtype_only = [&] {
    for (size_t j = 0; j < ctx.num_outputs(); ++j) ctx.set_output_dtype(j, dt);
    return Status::Ok();
  };
  if (ctx.num_outputs() == 0) return ctx.error("needs at least one output");
  if (!input_shape_static(ctx, 0)) return dtype_only();
  const Shape& in = ctx.input_shape(0);
  auto axis = split_axis(ctx, static_cast<int64_t>(in.size()));
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> sizes;
  bool known = true;
  OPENGE_RETURN_IF_ERROR(split_sizes(ctx, in[*axis], sizes, known));
  if (!known) return dtype_only();
  for (size_t j = 0; j < sizes.size(); ++j) {
    Shape s = in;
    s[*axis] = sizes[j];
    ctx.set_output(j, dt, s);
  }
  return Status::Ok();
}

// Where each output's rows come from: bytes per axis index, bytes per outer index of the input,
// and per output its first axis index and its size along the axis.
struct SplitLayout {
  int64_t outer = 1, inner = 0, in_row = 0;
  std::vector<int64_t> start, sizes;
};

SplitLayout split_layout(const Shape& in, size_t axis, std::vector<int64_t> sizes, size_t es) {
  SplitLayout l;
  l.outer = dims_product(in, 0, axis);
  l.inner = dims_product(in, axis + 1, in.size()) * static_cast<int64_t>(es);
  l.in_row = in[axis] * l.inner;
  l.sizes = std::move(sizes);
  l.start.resize(l.sizes.size());
  std::exclusive_scan(l.sizes.begin(), l.sizes.end(), l.start.begin(), int64_t{0});
  return l;
}

void split_copy(KernelContext& ctx, const SplitLayout& l) {
  const int64_t n = static_cast<int64_t>(l.sizes.size());
  const char* src = static_cast<const char*>(ctx.input(0).raw());
  parallel_for(l.outer * n, l.in_row / n / 8 + 8, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / n;
      const size_t j = static_cast<size_t>(t % n);
      if (!ctx.has_output(j)) continue;
      const int64_t bytes = l.sizes[j] * l.inner;
      std::memcpy(static_cast<char*>(ctx.output(j).raw()) + o * bytes, src + o * l.in_row + l.start[j] * l.inner,
                  static_cast<size_t>(bytes));
    }
  });
}

Status split_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  auto axis = split_axis(ctx, in.rank());
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> sizes;
  bool known = true;
  OPENGE_RETURN_IF_ERROR(split_sizes(ctx, in.dim(static_cast<int64_t>(*axis)), sizes, known));
  split_copy(ctx, split_layout(in.shape(), *axis, std::move(sizes), dtype_size(in.dtype())));
  return Status::Ok();
}

using PreparedSplit = PreparedCopy<SplitLayout, split_copy>;

// The sizes are the static output shapes' extents along the axis (inference checked them).
Result<std::unique_ptr<CompiledKernel>> prepare_split(const KernelRequest& request) {
  if (!all_shapes_static(request) || request.inputs.empty()) return not_prepared();
  const Shape& in = request.inputs[0].shape;
  InferContext ictx(request.node, request.opset, {&request.inputs[0]}, request.outputs.size());
  auto axis = split_axis(ictx, static_cast<int64_t>(in.size()));
  if (!axis.ok()) return not_prepared();  // the reference kernel reports it
  std::vector<int64_t> sizes;
  for (const ValueInfo& out : request.outputs) {
    // An omitted output: its size is known only to the split sizes the reference kernel reads.
    if (out.dtype == DType::kUndefined || out.shape.size() != in.size()) return not_prepared();
    sizes.push_back(out.shape[*axis]);
  }
  return std::unique_ptr<CompiledKernel>(
      std::make_unique<PreparedSplit>(split_layout(in, *axis, std::move(sizes), dtype_size(request.inputs[0].dtype))));
}

}  // namespace

void register_shape_concat_split_ops(std::vector<OpSchema>& table) {
  table.push_back({"Concat", 1, -1, 1, 1, infer_concat, concat_kernel, false});
  table.back().prepare = &prepare_concat;
  table.push_back({"Split", 1, 2, 1, std::numeric_limits<int>::max(), infer_split, split_kernel, false});
  table.back().prepare = &prepare_split;
}

}  // namespace openge
