// AI Core MatMul, FusedMatMul and Gemm as one oneDNN matmul primitive: constant weights packed
// once (format any), batched products with both operands dynamic (attention), bias, residual
// sum and activation post-ops.
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_matmul_kernel(const KernelRequest& request);  // MatMul, FusedMatMul
Result<std::unique_ptr<CompiledKernel>> make_gemm_kernel(const KernelRequest& request);    // Gemm

}  // namespace openge::onednn
