// GatherGrad(dY, indices) -> dData: the gradient of Gather (embedding lookups): zeros of the
// data's shape (attribute `shape`) with each gathered slice's gradient added back at its index
// (negative indices count from the end, as in Gather). Attribute `axis` as the forward's. Rows
// are added in index order, one thread per block of inner slices: deterministic.
#include <algorithm>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

Status infer_gather_grad(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "dY"));
  const Shape data = ctx.attrs().get_ints("shape");
  int64_t axis = ctx.attrs().get_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(data.size());
  if (axis < 0 || axis >= static_cast<int64_t>(data.size()))
    return ctx.error("axis out of range for shape " + shape_to_string(data));
  const DType it = ctx.input_dtype(1);
  if (it != DType::kInt32 && it != DType::kInt64) return ctx.error("indices must be int32 or int64");
  ctx.set_output(0, ctx.input_dtype(0), data);
  return Status::Ok();
}

Status gather_grad_kernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  const Shape& data = out.shape();
  int64_t axis = ctx.attrs().get_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(data.size());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= data[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < data.size(); ++d) inner *= data[d];
  const int64_t extent = data[static_cast<size_t>(axis)];
  const std::vector<int64_t> idx = ctx.input(1).to_int64_vector();
  const int64_t count = static_cast<int64_t>(idx.size());
  if (ctx.input(0).numel() != outer * count * inner) return ctx.error("dY does not match the gathered shape");
  for (int64_t i : idx)
    if (i < -extent || i >= extent)
      return ctx.error("index " + std::to_string(i) + " is out of range [" + std::to_string(-extent) + ", " +
                       std::to_string(extent) + ")");
  // Summed in the compute type of the reference kernels (float; double for float64), straight
  // into the output: no temporary the size of the table.
  visit_float_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = nn_acc_t<T>;
    const AccView<Acc> dy(ctx.input(0));
    AccOutput<T, Acc> acc_out(out);
    Acc* acc = acc_out.data();  // zeroed by the executor (ops/atomic_outputs.h)
    // Each thread owns a block of the inner (row) positions and adds the gathered rows into it in
    // index order: contiguous rows, the same sums at any thread count.
    parallel_for(inner, outer * count * 2, [&](int64_t b, int64_t e) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < count; ++k) {
          const int64_t at =
              idx[static_cast<size_t>(k)] < 0 ? idx[static_cast<size_t>(k)] + extent : idx[static_cast<size_t>(k)];
          Acc* dst = acc + (o * extent + at) * inner;
          const Acc* src = dy.data() + (o * count + k) * inner;
          for (int64_t j = b; j < e; ++j) dst[j] += src[j];
        }
    });
    acc_out.finish();
  });
  return Status::Ok();
}

}  // namespace

void register_gather_grad_op(std::vector<OpSchema>& table) {
  table.push_back({"GatherGrad", 2, 2, 1, 1, infer_gather_grad, gather_grad_kernel});
}

}  // namespace openge
