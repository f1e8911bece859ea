// Reshape, Flatten, Squeeze, Unsqueeze: output 0 is input 0's data under a new shape, so the
// executor aliases the buffer (output_aliases_input) and the kernel is only a fallback copy.
#include <string>

#include "ops/shape/shape_common.h"

namespace openge {
namespace {

// The fallback kernel for every aliasing op: the bytes do not change.
Status copy_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (in.nbytes() != out.nbytes()) return ctx.error("output size differs from input size");
  copy_bytes(out.raw(), in.raw(), in.nbytes());
  return Status::Ok();
}

// --- Reshape ---------------------------------------------------------------------------------
// 0 copies the input's dim (unless allowzero=1), one -1 is inferred from the element count.
Status infer_reshape(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  std::vector<int64_t> target;
  if (ctx.opset() < 5 && !ctx.has_input(1)) {
    target = ctx.attrs().get_ints("shape");
  } else {
    const Tensor* shape_t = ctx.input_value(1);
    if (!ctx.has_input(1)) return ctx.error("the 'shape' input is required");
    if (!shape_t) {
      ctx.set_output_dtype(0, dt);
      return Status::Ok();
    }
    auto v = read_ints(ctx, *shape_t, "the 'shape' input");
    if (!v.ok()) return v.status();
    target = std::move(*v);
  }
  const bool allowzero = ctx.attrs().get_int("allowzero", 0) != 0;
  const bool in_known = input_shape_static(ctx, 0);
  const Shape in_shape = in_known ? ctx.input_shape(0) : Shape{};
  int infer_at = -1;
  bool has_zero = false;
  Shape out(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    const int64_t d = target[i];
    if (d == -1) {
      if (infer_at >= 0) return ctx.error("shape " + shape_to_string(target) + " has more than one -1");
      infer_at = static_cast<int>(i);
      out[i] = 1;
    } else if (d < -1) {
      return ctx.error("shape " + shape_to_string(target) + " has an invalid dimension " + std::to_string(d));
    } else if (d == 0 && !allowzero) {
      if (!in_known) {  // needs the input's dim
        ctx.set_output_dtype(0, dt);
        return Status::Ok();
      }
      if (i >= in_shape.size())
        return ctx.error("shape " + shape_to_string(target) + " copies dimension " + std::to_string(i) +
                         " (0) but the input " + shape_to_string(in_shape) + " has rank " +
                         std::to_string(in_shape.size()));
      out[i] = in_shape[i];
    } else {
      has_zero |= d == 0;
      out[i] = d;
    }
  }
  if (allowzero && has_zero && infer_at >= 0)
    return ctx.error("shape " + shape_to_string(target) + " has both 0 and -1 with allowzero=1");
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, out, dt, "the reshape target"));
  if (!in_known) {
    // Without the input shape the result is still known when nothing has to be inferred.
    if (infer_at >= 0)
      ctx.set_output_dtype(0, dt);
    else
      ctx.set_output(0, dt, out);
    return Status::Ok();
  }
  const int64_t in_numel = shape_numel(in_shape);
  const int64_t known = shape_numel(out);  // with the -1 counted as 1
  if (infer_at >= 0) {
    if (known == 0 || in_numel % known != 0)
      return ctx.error("cannot reshape " + shape_to_string(in_shape) + " to " + shape_to_string(target) +
                       ": the -1 dimension cannot be inferred");
    out[static_cast<size_t>(infer_at)] = in_numel / known;
  } else if (known != in_numel) {
    return ctx.error("cannot reshape " + shape_to_string(in_shape) + " (" + std::to_string(in_numel) +
                     " elements) to " + shape_to_string(out) + " (" + std::to_string(known) + " elements)");
  }
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// --- Flatten ---------------------------------------------------------------------------------
Status infer_flatten(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.attrs().get_int("axis", 1);
  // Negative axes arrived in opset 11; the valid range is [-rank, rank].
  if (axis > rank || axis < (ctx.opset() >= 11 ? -rank : 0))
    return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
  int64_t inner = 1;
  for (int64_t i = axis; i < rank; ++i) inner *= in[static_cast<size_t>(i)];
  ctx.set_output(0, dt, {outer, inner});
  return Status::Ok();
}

// Squeeze/Unsqueeze axes: an attribute before opset 13, an input from 13. Returns false in
// `known` when the axes input exists but its value is not available yet.
Result<std::vector<int64_t>> read_axes(InferContext& ctx, bool& present, bool& known) {
  present = false;
  known = true;
  if (ctx.opset() < 13) {
    if (ctx.attrs().has("axes")) present = true;
    return ctx.attrs().get_ints("axes");
  }
  if (!ctx.has_input(1)) return std::vector<int64_t>{};
  present = true;
  const Tensor* t = ctx.input_value(1);
  if (!t) {
    known = false;
    return std::vector<int64_t>{};
  }
  return read_ints(ctx, *t, "the 'axes' input");
}

// --- Squeeze ---------------------------------------------------------------------------------
Status infer_squeeze(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  bool present = false, known = true;
  auto axes = read_axes(ctx, present, known);
  if (!axes.ok()) return axes.status();
  if (!known || !input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  std::vector<bool> drop(in.size(), false);
  if (!present || axes->empty()) {  // an empty axes input means "all unit dims", as in ONNX Runtime
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    auto norm = normalize_axes(ctx, *axes, static_cast<int64_t>(in.size()), "axis");
    if (!norm.ok()) return norm.status();
    for (int64_t a : *norm) {
      if (in[static_cast<size_t>(a)] != 1)
        return ctx.error("cannot squeeze axis " + std::to_string(a) + " of shape " + shape_to_string(in) +
                         ": its size is not 1");
      drop[static_cast<size_t>(a)] = true;
    }
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// --- Unsqueeze -------------------------------------------------------------------------------
Status infer_unsqueeze(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  bool present = false, known = true;
  auto axes = read_axes(ctx, present, known);
  if (!axes.ok()) return axes.status();
  if (!present) return ctx.error("axes are required");
  if (!known || !input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes->size());
  auto norm = normalize_axes(ctx, *axes, out_rank, "axis");
  if (!norm.ok()) return norm.status();
  Shape out(static_cast<size_t>(out_rank), 0);
  std::vector<bool> inserted(out.size(), false);
  for (int64_t a : *norm) inserted[static_cast<size_t>(a)] = true;
  for (size_t i = 0, j = 0; i < out.size(); ++i) out[i] = inserted[i] ? 1 : in[j++];
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

}  // namespace

void register_shape_reshape_ops(std::vector<OpSchema>& table) {
  table.push_back({"Reshape", 1, 2, 1, 1, infer_reshape, copy_kernel, true});
  table.push_back({"Flatten", 1, 1, 1, 1, infer_flatten, copy_kernel, true});
  table.push_back({"Squeeze", 1, 2, 1, 1, infer_squeeze, copy_kernel, true});
  table.push_back({"Unsqueeze", 1, 2, 1, 1, infer_unsqueeze, copy_kernel, true});
}

}  // namespace openge
