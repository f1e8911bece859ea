// Transpose: a strided copy whose source strides are the input's strides permuted. The copy
// loop merges dims that stay adjacent (so NCHW->NHWC is a 3-D problem and [B,S,H,D]->[B,H,S,D]
// moves whole D rows with memcpy) and tiles true 2-D transposes for the cache.
#include "ops/shape/shape_common.h"
#include "ops/shape/shape_strided_copy.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

// The permutation: the attribute, or reversed dims by default; an error if it is not one.
template <class Ctx>
Result<std::vector<int64_t>> read_perm(const Ctx& ctx, size_t rank) {
  std::vector<int64_t> perm = ctx.attrs().get_ints("perm");
  if (!ctx.attrs().has("perm")) {
    perm.resize(rank);
    for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
    return perm;
  }
  if (perm.size() != rank)
    return ctx.error("perm has " + std::to_string(perm.size()) + " entries for an input of rank " +
                     std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t& p : perm) {
    // ONNX does not allow negative entries; accept them like NumPy since the meaning is plain.
    if (p < 0) p += static_cast<int64_t>(rank);
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)])
      return ctx.error("perm " + shape_to_string(ctx.attrs().get_ints("perm")) + " is not a permutation of 0.." +
                       std::to_string(rank - 1));
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

Status infer_transpose(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  auto perm = read_perm(ctx, in.size());
  if (!perm.ok()) return perm.status();
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = in[static_cast<size_t>((*perm)[i])];
  ctx.set_output(0, dt, out);
  return Status::Ok();
}

Status transpose_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  auto perm = read_perm(ctx, in.shape().size());
  if (!perm.ok()) return perm.status();
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  std::vector<int64_t> strides(in_strides.size());
  for (size_t i = 0; i < strides.size(); ++i) strides[i] = in_strides[static_cast<size_t>((*perm)[i])];
  const size_t es = dtype_size(in.dtype());
  if (es == 0) return ctx.error(std::string("dtype ") + dtype_name(in.dtype()) + " is not supported");
  strided_copy(in.raw(), out.raw(), es, out.shape(), strides);
  return Status::Ok();
}

// The permuted strides and the copy's plan, once per compiled shape.
Result<std::unique_ptr<CompiledKernel>> prepare_transpose(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  const Shape& in = request.inputs[0].shape;
  const size_t es = dtype_size(request.inputs[0].dtype);
  InferContext ictx(request.node, request.opset, {&request.inputs[0]}, 1);
  auto perm = read_perm(ictx, in.size());
  if (es == 0 || !perm.ok()) return not_prepared();  // the reference kernel reports it
  const std::vector<int64_t> in_strides = contiguous_strides(in);
  std::vector<int64_t> strides(in.size());
  for (size_t i = 0; i < strides.size(); ++i) strides[i] = in_strides[static_cast<size_t>((*perm)[i])];
  return make_prepared_strided_copy(es, request.outputs[0].shape, strides, 0);
}

}  // namespace

void register_shape_transpose_ops(std::vector<OpSchema>& table) {
  table.push_back({"Transpose", 1, 1, 1, 1, infer_transpose, transpose_kernel, false});
  table.back().prepare = &prepare_transpose;
}

}  // namespace openge
