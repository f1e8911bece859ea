// oneDNN convolutions of training graphs (onednn_conv_train.cpp): weights as a run-time input,
// and ConvGrad (src/ops/grad/grad_ops.h) on the backward-data / backward-weights primitives.
// nullptr where not covered (not float32, not 2-D, dynamic shapes); the reference kernels run then.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_runtime_weight_conv_kernel(const KernelRequest& request);
Result<std::unique_ptr<CompiledKernel>> make_conv_grad_kernel(const KernelRequest& request);

// variable_format_optimize: a trained convolution weight may be held between steps in the layout
// the forward primitive prefers. The Conv and ConvGrad nodes that read it then carry the
// attribute kWeightFormatAttr (a oneDNN format tag): their W input, and ConvGrad's dW output, are
// in that layout, with the plain OIHW shape (the layout holds the same elements, permuted, so
// every elementwise optimizer update and norm stays what it was).
inline constexpr const char* kWeightFormatAttr = "weight_format";

// The format tag the forward convolution `node` (X, W, Y shapes, float32) picks for run-time
// weights, when it is a permutation of the plain weights (no padded blocks) other than the plain
// layout itself; nullopt otherwise (the weights stay plain).
std::optional<int64_t> preferred_runtime_weight_format(const Node& node, const Shape& x, const Shape& w,
                                                       const Shape& y);
// Copies float32 weights of `node`'s shape `w` between the plain layout and `format` (to_plain:
// from `format` to plain).
Status convert_weight_layout(const Node& node, const Shape& w, int64_t format, const void* src, void* dst,
                             bool to_plain);
// oneDNN's name of a format tag ("OIhw16i16o").
std::string weight_format_name(int64_t format);
// Weight-sized reorders (W into a primitive's layout, dW out of it) that the training
// convolutions ran in this process: what variable_format_optimize saves, counted.
int64_t weight_reorders_run();

}  // namespace openge::onednn
