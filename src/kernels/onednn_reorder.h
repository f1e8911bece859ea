// AI Core Transpose for the layout changes ChannelsLastLayoutPass inserts (NCHW <-> NHWC,
// 4-D float): a oneDNN reorder, which has vectorised kernels for exactly these two layouts.
// Other permutations stay on the reference engine's tiled strided copy.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_transpose_kernel(const KernelRequest& request);

}  // namespace openge::onednn
