// AI Core LayerNormalization: oneDNN's layer_normalization primitive on rows of the normalized
// dims, for float32 with Scale and B of the normalized shape (or absent) and only output Y asked
// for. A high_precision node (all_ops_impl_mode.ini lists LayerNorm) keeps the AI CPU kernel,
// which accumulates in double; oneDNN accumulates in float32, as ONNX Runtime does.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_layer_norm_kernel(const KernelRequest& request);

}  // namespace openge::onednn
