// Expand and Tile: both are views with zero strides. Expand broadcasts the input to a shape;
// Tile of [d0, d1, ...] by [r0, r1, ...] is the input viewed as [r0, d0, r1, d1, ...] with zero
// strides on the r dims, whose contiguous copy is exactly the tiled tensor.
#include <limits>

#include "ops/shape/shape_common.h"
#include "ops/shape/shape_strided_copy.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

// The data-valued second input (Expand's shape, Tile's repeats); false in `known` when it is not
// available yet.
Status read_shape_input(const InferContext& ctx, const char* what, std::vector<int64_t>& out, bool& known) {
  const Tensor* t = ctx.input_value(1);
  known = t != nullptr && input_shape_static(ctx, 0);
  if (!t) return Status::Ok();
  auto v = read_ints(ctx, *t, std::string("the '") + what + "' input");
  if (!v.ok()) return v.status();
  out = std::move(*v);
  return Status::Ok();
}

// --- Expand ----------------------------------------------------------------------------------
Status infer_expand(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  std::vector<int64_t> target;
  bool known = false;
  OPENGE_RETURN_IF_ERROR(read_shape_input(ctx, "shape", target, known));
  for (int64_t d : target)
    if (d < 0) return ctx.error("shape " + shape_to_string(target) + " has a negative dimension");
  if (!known) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  auto out = broadcast_shapes(in, target);
  if (!out) return ctx.error("cannot expand " + shape_to_string(in) + " to " + shape_to_string(target));
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, *out, dt, "the output"));
  ctx.set_output(0, dt, *out);
  return Status::Ok();
}

Status expand_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  strided_copy(in.raw(), out.raw(), dtype_size(in.dtype()), out.shape(), broadcast_strides(in.shape(), out.shape()));
  return Status::Ok();
}

// The zero-stride view and its copy plan once per compiled shape.
Result<std::unique_ptr<CompiledKernel>> prepare_expand(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  const ValueInfo& in = request.inputs[0];
  const Shape& out = request.outputs[0].shape;
  if (dtype_size(in.dtype) == 0 || in.shape.size() > out.size()) return not_prepared();
  return make_prepared_strided_copy(dtype_size(in.dtype), out, broadcast_strides(in.shape, out), 0);
}

// --- Tile ------------------------------------------------------------------------------------
Status infer_tile(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  std::vector<int64_t> repeats;
  bool known = false;
  OPENGE_RETURN_IF_ERROR(read_shape_input(ctx, "repeats", repeats, known));
  if (!known) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  if (repeats.size() != in.size())
    return ctx.error("repeats has " + std::to_string(repeats.size()) + " entries for an input of rank " +
                     std::to_string(in.size()));
  Shape out(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    if (repeats[k] < 0) return ctx.error("repeats " + shape_to_string(repeats) + " has a negative entry");
    if (in[k] != 0 && repeats[k] > std::numeric_limits<int64_t>::max() / in[k])
      return ctx.error("repeats " + shape_to_string(repeats) + " make the output too large");
    out[k] = in[k] * repeats[k];
  }
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, out, dt, "the output"));
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

// Tile as a strided copy: output dim k viewed as [repeats_k, in_k], the repeat read with
// stride 0 (from static shapes: repeats_k = out_k / in_k).
void tile_view(const Shape& in, const Shape& out, Shape& view, std::vector<int64_t>& strides) {
  const std::vector<int64_t> in_strides = contiguous_strides(in);
  for (size_t k = 0; k < in.size(); ++k) {
    view.push_back(out[k] / in[k]);
    strides.push_back(0);
    view.push_back(in[k]);
    strides.push_back(in_strides[k]);
  }
}

Status tile_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.numel() == 0) return Status::Ok();  // also covers empty inputs, where repeats are unknowable
  Shape view;
  std::vector<int64_t> strides;
  tile_view(in.shape(), out.shape(), view, strides);
  strided_copy(in.raw(), out.raw(), dtype_size(in.dtype()), view, strides);
  return Status::Ok();
}

// The view's copy plan once per compiled shape.
Result<std::unique_ptr<CompiledKernel>> prepare_tile(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  const ValueInfo& in = request.inputs[0];
  const Shape& out = request.outputs[0].shape;
  int64_t out_elements = 1;
  for (int64_t d : out) out_elements *= d;
  // An empty output (the reference kernel writes nothing), or shapes inference did not make.
  if (out_elements == 0 || dtype_size(in.dtype) == 0 || in.shape.size() != out.size()) return not_prepared();
  Shape view;
  std::vector<int64_t> strides;
  tile_view(in.shape, out, view, strides);
  return make_prepared_strided_copy(dtype_size(in.dtype), view, strides, 0);
}

}  // namespace

void register_shape_expand_tile_ops(std::vector<OpSchema>& table) {
  table.push_back({"Expand", 2, 2, 1, 1, infer_expand, expand_kernel, false});
  table.back().prepare = &prepare_expand;
  table.push_back({"Tile", 2, 2, 1, 1, infer_tile, tile_kernel, false});
  table.back().prepare = &prepare_tile;
}

}  // namespace openge
