// oneDNN convolutions of training graphs (onednn_conv_train.cpp): weights as a run-time input,
// and ConvGrad (src/ops/grad/grad_ops.h) on the backward-data / backward-weights primitives.
// nullptr where not covered (not float32, not 2-D, dynamic shapes); the reference kernels run then.
#pragma once
#include <memory>

#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_runtime_weight_conv_kernel(const KernelRequest& request);
Result<std::unique_ptr<CompiledKernel>> make_conv_grad_kernel(const KernelRequest& request);

}  // namespace openge::onednn
