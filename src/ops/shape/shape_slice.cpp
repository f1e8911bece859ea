// Slice: a strided view of the input (start offset, step-scaled strides, possibly negative)
// copied out by strided_copy. Parameters come from attributes before opset 10 and from inputs
// (starts, ends, axes, steps) from 10; infer and kernel share one parser so they cannot disagree.
#include <algorithm>
#include <limits>

#include "ops/shape/shape_common.h"
#include "ops/shape/shape_strided_copy.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

struct SliceView {
  Shape out_shape;
  std::vector<int64_t> start;  // per input dim, after clamping
  std::vector<int64_t> step;   // per input dim (1 for dims not sliced)
};

// Reads one parameter list: attribute `name` before opset 10, input `index` from 10.
template <class Ctx>
Status slice_list(const Ctx& ctx, const char* name, size_t index, std::vector<int64_t>& out, bool& present,
                  bool& known) {
  present = false;
  if (ctx.opset() < 10) {
    if (ctx.attrs().has(name)) {
      present = true;
      out = ctx.attrs().get_ints(name);
    }
    return Status::Ok();
  }
  if (!ctx.has_input(index)) return Status::Ok();
  present = true;
  const Tensor* t = input_tensor(ctx, index);
  if (!t) {
    known = false;
    return Status::Ok();
  }
  auto v = read_ints(ctx, *t, std::string("the '") + name + "' input");
  if (!v.ok()) return v.status();
  out = std::move(*v);
  return Status::Ok();
}

// ONNX clamping: negative indices count from the end, then starts/ends are clamped to the
// range a step in that direction can reach.
template <class Ctx>
Status slice_view(const Ctx& ctx, const Shape& in, SliceView& view, bool& known) {
  known = true;
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_starts, has_ends, has_axes, has_steps;
  OPENGE_RETURN_IF_ERROR(slice_list(ctx, "starts", 1, starts, has_starts, known));
  OPENGE_RETURN_IF_ERROR(slice_list(ctx, "ends", 2, ends, has_ends, known));
  OPENGE_RETURN_IF_ERROR(slice_list(ctx, "axes", 3, axes, has_axes, known));
  if (ctx.opset() >= 10)
    OPENGE_RETURN_IF_ERROR(slice_list(ctx, "steps", 4, steps, has_steps, known));
  else
    has_steps = false;
  if (!has_starts || !has_ends) return ctx.error("starts and ends are required");
  if (!known) return Status::Ok();
  const size_t n = starts.size();
  if (!has_axes) {
    axes.resize(n);
    for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
  }
  if (!has_steps) steps.assign(n, 1);
  if (ends.size() != n || axes.size() != n || steps.size() != n)
    return ctx.error("starts, ends, axes and steps have different lengths (" + std::to_string(n) + ", " +
                     std::to_string(ends.size()) + ", " + std::to_string(axes.size()) + ", " +
                     std::to_string(steps.size()) + ")");
  auto norm = normalize_axes(ctx, axes, static_cast<int64_t>(in.size()), "axis");
  if (!norm.ok()) return norm.status();
  view.out_shape = in;
  view.start.assign(in.size(), 0);
  view.step.assign(in.size(), 1);
  for (size_t i = 0; i < n; ++i) {
    const size_t a = static_cast<size_t>((*norm)[i]);
    const int64_t d = in[a];
    int64_t step = steps[i];
    if (step == 0) return ctx.error("step for axis " + std::to_string(a) + " is 0");
    if (step == std::numeric_limits<int64_t>::min()) step = -std::numeric_limits<int64_t>::max();
    int64_t start = starts[i], end = ends[i];
    if (start < 0) start += d;
    if (end < 0) end += d;
    int64_t len;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, d);
      end = std::clamp<int64_t>(end, 0, d);
      len = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, std::max<int64_t>(d - 1, 0));
      end = std::clamp<int64_t>(end, -1, d - 1);
      len = d > 0 && start > end ? (start - end - 1) / -step + 1 : 0;
    }
    view.out_shape[a] = len;
    view.start[a] = start;
    view.step[a] = step;
  }
  return Status::Ok();
}

Status infer_slice(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  if (ctx.opset() >= 10 && (!ctx.has_input(1) || !ctx.has_input(2)))
    return ctx.error("the 'starts' and 'ends' inputs are required");
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  SliceView view;
  bool known = true;
  OPENGE_RETURN_IF_ERROR(slice_view(ctx, ctx.input_shape(0), view, known));
  if (!known)
    ctx.set_output_dtype(0, dt);
  else
    ctx.set_output(0, dt, view.out_shape);
  return Status::Ok();
}

Status slice_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  SliceView view;
  bool known = true;
  OPENGE_RETURN_IF_ERROR(slice_view(ctx, in.shape(), view, known));
  if (out.numel() == 0) return Status::Ok();
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  std::vector<int64_t> strides(in_strides.size());
  int64_t offset = 0;
  for (size_t k = 0; k < strides.size(); ++k) {
    // A dim of length <= 1 never steps (and a huge step would overflow the product).
    strides[k] = view.out_shape[k] > 1 ? in_strides[k] * view.step[k] : 0;
    offset += in_strides[k] * view.start[k];
  }
  const size_t es = dtype_size(in.dtype());
  strided_copy(static_cast<const char*>(in.raw()) + offset * static_cast<int64_t>(es), out.raw(), es, out.shape(),
               strides);
  return Status::Ok();
}

// Slices whose starts, ends, axes and steps are constants: the view and the copy's plan once.
Result<std::unique_ptr<CompiledKernel>> prepare_slice(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  std::vector<const ValueInfo*> infos;
  for (const ValueInfo& v : request.inputs) infos.push_back(v.dtype == DType::kUndefined ? nullptr : &v);
  InferContext ictx(request.node, request.opset, infos, 1);
  const Shape& in = request.inputs[0].shape;
  SliceView view;
  bool known = true;
  if (!slice_view(ictx, in, view, known).ok() || !known || view.out_shape != request.outputs[0].shape)
    return not_prepared();
  const size_t es = dtype_size(request.inputs[0].dtype);
  if (es == 0) return not_prepared();
  const std::vector<int64_t> in_strides = contiguous_strides(in);
  std::vector<int64_t> strides(in_strides.size());
  int64_t offset = 0;
  for (size_t k = 0; k < strides.size(); ++k) {
    strides[k] = view.out_shape[k] > 1 ? in_strides[k] * view.step[k] : 0;
    offset += in_strides[k] * view.start[k];
  }
  if (shape_numel(view.out_shape) == 0) offset = 0;
  return make_prepared_strided_copy(es, view.out_shape, strides, offset);
}

}  // namespace

void register_shape_slice_ops(std::vector<OpSchema>& table) {
  table.push_back({"Slice", 1, 5, 1, 1, infer_slice, slice_kernel, false});
  table.back().prepare = &prepare_slice;
}

}  // namespace openge
