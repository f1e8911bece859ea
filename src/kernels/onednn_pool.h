// AI Core pooling: MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool (2-D, NCHW) and
// their forms in other activation formats, Nhwc* and Nc1hwc0* (made by ChannelsLastLayoutPass), as oneDNN pooling_v2.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_pool_kernel(const KernelRequest& request);

}  // namespace openge::onednn
