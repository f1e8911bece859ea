// AI Core Resize / Upsample in linear mode on float32 (CANN's ResizeBilinearV2): the two dims that
// change (H and W: the last two of NCHW, the middle two of NHWC inside the channels-last region)
// are interpolated from tables prepared at compile time, with the same neighbours and weights as
// the reference kernel (ops/nn/resize_plan.h). Each input row is interpolated along W once into a
// per-thread buffer, and every output row is then a blend of two such rows: contiguous loops the
// compiler vectorises, where the reference kernel walks 2^k corners per output element in double.
// Other forms (nearest, cubic, tf_crop_and_resize, more than two resized dims, inputs whose values
// are only known at run time, fp16/bf16) stay on the reference kernel.
#pragma once
#include "ops/kernel.h"

namespace openge {

Result<std::unique_ptr<CompiledKernel>> make_bilinear_resize_kernel(const KernelRequest& request);

}  // namespace openge
