// Cast, CastLike, Identity and (inference-mode) Dropout.
#include <cstring>

#include "ops/elementwise/elementwise_broadcast.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/string/string_ops.h"

namespace openge::elementwise {
namespace {

Status cast_infer(InferContext& ctx) {
  const Attribute* to = ctx.attrs().find("to");
  if (!to) return ctx.error("attribute 'to' is required");
  const DType target = static_cast<DType>(to->i);
  if (to->i < 0 || to->i > 32 || (!dtype_supported(target) && target != DType::kString))
    return ctx.error("cannot cast to dtype " + std::to_string(to->i) + " (" + dtype_name(target) + ")");
  if (ctx.input_dtype(0) != DType::kString) OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kAllTypes));
  infer_like_input0(ctx, 0, target);
  return Status::Ok();
}

// CastLike (opset 15): Cast whose target type is that of input 1 (`target_type`, read for its
// type only) instead of the attribute `to`. The kernel is Cast's: it reads input 0 and the output.
Status castlike_infer(InferContext& ctx) {
  if (!ctx.has_input(1)) return ctx.error("input 1 (target_type) is required");
  const DType target = ctx.input_dtype(1);
  if (!dtype_supported(target) && target != DType::kString)
    return ctx.error(std::string("cannot cast to the type of target_type (") + dtype_name(target) + ")");
  if (ctx.input_dtype(0) != DType::kString) OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kAllTypes));
  infer_like_input0(ctx, 0, target);
  return Status::Ok();
}

Status cast_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.dtype() == DType::kString || y.dtype() == DType::kString) return cast_strings(ctx);
  if (x.dtype() == y.dtype()) {
    copy_bytes(y.raw(), x.raw(), y.nbytes());
    return Status::Ok();
  }
  bool ok_to = false;
  const bool ok_from = visit_dtype_in<kAllTypes>(x.dtype(), [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    ok_to = visit_dtype_in<kAllTypes>(y.dtype(), [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* in = x.data<From>();
      To* out = y.data<To>();
      parallel_for(x.numel(), kMediumCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = convert_value<To>(in[i]);
      });
    });
  });
  if (!ok_from || !ok_to)
    return ctx.error(std::string("cannot cast ") + dtype_name(x.dtype()) + " to " + dtype_name(y.dtype()));
  return Status::Ok();
}

// Identity passes any value: a tensor (strings too), a sequence or an optional.
Status identity_infer(InferContext& ctx) {
  if (ctx.input_kind(0) != ValueKind::kTensor)
    ctx.set_output_kind(0, ctx.input_kind(0), ctx.input_dtype(0));
  else
    infer_like_input0(ctx, 0, ctx.input_dtype(0));
  return Status::Ok();
}

// Used when the executor does not alias (Identity's output normally shares its input buffer).
Status copy_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!x.is_tensor())
    ctx.output(0) = x;  // immutable elements: sharing them is the copy
  else if (x.dtype() == DType::kString)
    std::copy(x.data<std::string>(), x.data<std::string>() + x.numel(), ctx.output(0).data<std::string>());
  else
    copy_bytes(ctx.output(0).raw(), x.raw(), ctx.output(0).nbytes());
  return Status::Ok();
}

// Dropout at inference: output 0 = input, optional mask output all true. Opset 12 moved
// `ratio` to input 1 and added input 2 `training_mode`; training mode with a non-zero ratio
// would need random dropping, which an inference engine does not do. The mask is bool from
// opset 10 and the data's type before. Not aliased: the kernel must also fill the mask.
bool dropout_training(const Tensor* training_mode) {
  return training_mode && training_mode->numel() > 0 && training_mode->scalar_as_double() != 0;
}
double dropout_ratio(const Attributes& attrs, int64_t opset, const Tensor* ratio_input) {
  if (opset >= 12) return ratio_input && ratio_input->numel() > 0 ? ratio_input->scalar_as_double() : 0.5;
  return attrs.get_float("ratio", 0.5f);
}

Status dropout_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_input_dtype(ctx, 0, kFloatTypes));
  if (ctx.opset() >= 12 && dropout_training(ctx.input_value(2))) {
    if (!ctx.has_input(1) || ctx.input_value(1)) {  // ratio known
      if (dropout_ratio(ctx.attrs(), ctx.opset(), ctx.input_value(1)) != 0)
        return unsupported(ctx.node().op_type + " '" + ctx.node().name +
                           "': training_mode=true with a non-zero ratio (random dropout) is not supported");
    }
  }
  infer_like_input0(ctx, 0, ctx.input_dtype(0));
  if (ctx.num_outputs() > 1) infer_like_input0(ctx, 1, ctx.opset() >= 10 ? DType::kBool : ctx.input_dtype(0));
  return Status::Ok();
}

Status dropout_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (ctx.opset() >= 12 && dropout_training(ctx.has_input(2) ? &ctx.input(2) : nullptr) &&
      dropout_ratio(ctx.attrs(), ctx.opset(), ctx.has_input(1) ? &ctx.input(1) : nullptr) != 0)
    return unsupported(ctx.node().op_type + " '" + ctx.node().name +
                       "': training_mode=true with a non-zero ratio (random dropout) is not supported");
  copy_bytes(ctx.output(0).raw(), x.raw(), ctx.output(0).nbytes());
  if (ctx.has_output(1)) {
    Tensor& mask = ctx.output(1);
    visit_dtype(mask.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::fill(mask.data<T>(), mask.data<T>() + mask.numel(), to_storage<T>(1));
    });
  }
  return Status::Ok();
}

}  // namespace

void register_cast_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Cast", 1, 1, 1, 1, &cast_infer, &cast_kernel, false});
  table.push_back(OpSchema{"CastLike", 2, 2, 1, 1, &castlike_infer, &cast_kernel, false});
  table.push_back(OpSchema{"Identity", 1, 1, 1, 1, &identity_infer, &copy_kernel, true, false, true});
  table.push_back(OpSchema{"Dropout", 1, 3, 1, 2, &dropout_infer, &dropout_kernel, false});
}

}  // namespace openge::elementwise
