#include "ops/layout/in_formats.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace openge {
namespace {

constexpr const char* kDataFormat = "data_format";
// The domain of the nodes the passes make (ops/fused/fused_ops.h's kFusedDomain).
constexpr std::string_view kInternalDomain = "openge";

// "input [1,2,3] is not a stored NHWC activation" (`what`: input / output).
std::string not_stored(const char* what, const Shape& s, ActivationFormat f) {
  return std::string(what) + " " + shape_to_string(s) + " is not a stored " + std::string(format_name(f)) +
         " activation";
}

}  // namespace

ActivationFormat node_data_format(const Node& node) {
  if (node.domain != kInternalDomain) return ActivationFormat::kNchw;
  const std::string name = node.attrs.get_string(kDataFormat, "");
  for (ActivationFormat f : {ActivationFormat::kNhwc, ActivationFormat::kNc1hwc0})
    if (name == format_name(f)) return f;
  return ActivationFormat::kNchw;
}

void set_node_data_format(Node& node, ActivationFormat f) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = std::string(format_name(f));
  node.attrs.set(kDataFormat, std::move(a));
  node.domain = std::string(kInternalDomain);
}

Status infer_in_formats(InferContext& ctx, InferFn base, std::vector<const ValueInfo*> inputs, ConvFormats formats) {
  ValueInfo x = *inputs[0];
  if (formats.x != ActivationFormat::kNchw && x.shape_known) {
    const auto nchw = nchw_shape(x.shape, formats.x);
    if (!nchw) return ctx.error(not_stored("input", x.shape, formats.x));
    x.shape = *nchw;
    x.value = nullptr;
    inputs[0] = &x;
  }
  InferContext inner(ctx.node(), ctx.opset(), std::move(inputs), 1);
  OPENGE_RETURN_IF_ERROR(base(inner));
  const ValueInfo& y = inner.output(0);
  if (!y.shape_known) {
    ctx.set_output_dtype(0, y.dtype);
    return Status::Ok();
  }
  if (formats.y != ActivationFormat::kNchw && y.shape.size() != 4)
    return ctx.error("output " + shape_to_string(y.shape) + " is not 4-D");
  if (formats.y == ActivationFormat::kNc1hwc0 && y.shape[1] % kC0 != 0)
    return ctx.error("output " + shape_to_string(y.shape) + " has no whole " + std::to_string(kC0) +
                     "-channel blocks for NC1HWC0");
  ctx.set_output(0, y.dtype, stored_shape(y.shape, formats.y));
  return Status::Ok();
}

Status run_in_formats(KernelContext& ctx, KernelFn base, std::vector<const Tensor*> inputs, ConvFormats formats) {
  Tensor& y = ctx.output(0);
  const Tensor& x = *inputs[0];
  std::optional<Tensor> x_nchw, y_nchw;
  if (formats.x != ActivationFormat::kNchw) {
    const auto s = nchw_shape(x.shape(), formats.x);
    if (!s) return ctx.error(not_stored("input", x.shape(), formats.x));
    x_nchw.emplace(x.dtype(), *s);
    copy_to_nchw(x, *x_nchw, formats.x);
    inputs[0] = &*x_nchw;
  }
  if (formats.y != ActivationFormat::kNchw) {
    const auto s = nchw_shape(y.shape(), formats.y);
    if (!s) return ctx.error(not_stored("output", y.shape(), formats.y));
    y_nchw.emplace(y.dtype(), *s);
  }
  KernelContext inner(ctx.node(), ctx.opset(), std::move(inputs), {y_nchw ? &*y_nchw : &y});
  OPENGE_RETURN_IF_ERROR(base(inner));
  if (y_nchw) copy_from_nchw(*y_nchw, y, formats.y);
  return Status::Ok();
}

}  // namespace openge
