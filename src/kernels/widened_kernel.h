// float16 / bfloat16 on the float32 AI Core kernels, as the NPU's cube unit computes them:
// narrow inputs, float32 accumulation, one rounding of each output to its narrow type. Inputs are
// widened exactly (every fp16/bf16 value is a float), weights once when the kernel is made, the
// activations on every run into per-thread scratch kept between runs (onednn_common.h, thread_buffer);
// the float32 kernel computes; outputs are rounded to nearest even.
// Used where oneDNN has no native kernel for the narrow type on this CPU, so the numbers are the
// same on every CPU up to accumulation order.
#pragma once
#include "ops/kernel.h"

namespace openge {

using KernelFactory = Result<std::unique_ptr<CompiledKernel>> (*)(const KernelRequest&);

// True when some float input or output of the request is float16 or bfloat16.
bool has_narrow_float(const KernelRequest& request);

// The kernel `make` builds for the request with every narrow float tensor taken as float32,
// wrapped to convert at its boundary; nullptr when `make` does not cover the float32 form.
Result<std::unique_ptr<CompiledKernel>> make_widened_kernel(const KernelRequest& request, KernelFactory make);

}  // namespace openge
