// Nodes that compute on activations stored in another format (ops/layout/activation_format.h):
// the format a node declares, and running an op written for N x C x H x W on such a node, its
// own inference and reference kernel seeing NCHW views and the results stored back in the
// node's format. FusedConv's formats come from its channels_last / nc1hwc0 attributes, the
// pools' from their data_format attribute.
#pragma once
#include <vector>

#include "ops/layout/activation_format.h"
#include "ops/op_registry.h"

namespace openge {

// The format a node made by ChannelsLastLayoutPass declares in its `data_format` attribute
// ("NHWC", "NC1HWC0", as CANN names them and as CANN's pooling ops take it): the pools keep their
// ONNX op type and say their format here. Only nodes of the "openge" domain declare one (a
// model's own ONNX node is NCHW whatever attributes it carries); kNchw when none is declared.
ActivationFormat node_data_format(const Node& node);
// Marks `node` as computing on input 0 and output 0 stored in `f` (and puts it in the "openge"
// domain).
void set_node_data_format(Node& node, ActivationFormat f);

// Inference of `base` on `inputs`, where input 0 is stored in `formats.x` and the output in
// `formats.y`; `base` sees them as N x C x H x W.
Status infer_in_formats(InferContext& ctx, InferFn base, std::vector<const ValueInfo*> inputs, ConvFormats formats);

// Runs the reference kernel `base` on N x C x H x W copies of input 0 and output 0 where they
// are stored in another format.
Status run_in_formats(KernelContext& ctx, KernelFn base, std::vector<const Tensor*> inputs, ConvFormats formats);

// An op's inference and reference kernel that honour the node's data_format
// (node_data_format): an NCHW node runs `kInfer` / `kKernel` as they are; a node in another
// format runs them on NCHW views of its input 0 and output 0 (single-output forms only).
template <InferFn kInfer>
Status infer_in_node_format(InferContext& ctx) {
  const ActivationFormat f = node_data_format(ctx.node());
  if (f == ActivationFormat::kNchw) return kInfer(ctx);
  if (ctx.node().outputs.size() != 1) return ctx.error("a node in a stored format has exactly one output");
  return infer_in_formats(ctx, kInfer, {&ctx.input(0)}, {f, f});
}

template <KernelFn kKernel>
Status run_in_node_format(KernelContext& ctx) {
  const ActivationFormat f = node_data_format(ctx.node());
  if (f == ActivationFormat::kNchw) return kKernel(ctx);
  return run_in_formats(ctx, kKernel, {&ctx.input(0)}, {f, f});
}

}  // namespace openge
