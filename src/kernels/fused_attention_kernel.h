// AI Core FusedAttention (ops/fused/fused_attention.h) for float32 and static shapes: per (batch, head)
// slice, on one thread, oneDNN's sgemm writes the scaled scores Q·Kt into a per-thread buffer, the
// mask is added and each row softmaxed in place while the buffer is still in cache, and a second
// sgemm multiplies it by V straight into the output. Slices run in parallel; inside the parallel
// region oneDNN's sgemm runs on the calling thread.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_fused_attention_kernel(const KernelRequest& request);

}  // namespace openge::onednn
