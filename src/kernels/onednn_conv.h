// AI Core Conv: 2-D Conv and FusedConv (bias, residual sum, activation post-ops, NCHW, NHWC or
// NC1HWC0 activations: ops/layout/activation_format.h) as one oneDNN convolution with weights reordered
// once.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_conv_kernel(const KernelRequest& request);

}  // namespace openge::onednn
