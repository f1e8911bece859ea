// AI Core pooling: MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool (2-D), in NCHW or
// in the format their data_format attribute names (NHWC, NC1HWC0: ChannelsLastLayoutPass), as
// oneDNN pooling_v2.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_pool_kernel(const KernelRequest& request);

}  // namespace openge::onednn
