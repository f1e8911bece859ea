// AI Core QLinearConv and QLinearMatMul: one int8 oneDNN primitive each (u8 or s8 activations,
// s8 weights reordered once, int32 accumulation, per-tensor or per-output-channel requantization
// through oneDNN 2.6's output scales and zero points).
//
// Equality with the reference kernels (src/ops/quantize/quantize_ops.cpp): bit for bit. The integer sums
// are exact in both; oneDNN multiplies the float sum by the same float multiplier
// (x_scale * w_scale[m] / y_scale, computed here in the reference's order); and since oneDNN
// would add the output zero point in float before rounding, where ONNX rounds first and adds it
// as an integer, a round post-op (nearest even) comes first whenever the zero point is not 0.
//
// Forms not covered (the AI CPU reference kernel runs them): non-constant weights, scales or
// zero points; uint8 weights or a non-zero weight zero point (oneDNN 2.6 has no int8 kernel
// for them); per-row a_scale in QLinearMatMul; convolutions other than 2-D; and, on CPUs
// without VNNI, weights with |w| > 64 (there oneDNN sums u8*s8 pairs in saturating int16, see
// int8_weights_safe()).
#pragma once
#include <cstdint>

#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_qlinear_conv_kernel(const KernelRequest& request);
Result<std::unique_ptr<CompiledKernel>> make_qlinear_matmul_kernel(const KernelRequest& request);

// True when oneDNN's int8 kernels compute exact int32 sums for weights whose largest magnitude
// is `max_abs_weight` on a CPU with (`has_vnni`) or without VNNI: with VNNI every product is
// widened to int32; without it, pairs of u8*s8 products are summed in saturating int16, which
// is exact only while 2 * 255 * |w| <= 32767.
bool int8_weights_safe(bool has_vnni, int max_abs_weight);
// Whether oneDNN runs this CPU's int8 kernels with VNNI (avx2_vnni, avx512_core_vnni or later).
bool cpu_has_vnni();

}  // namespace openge::onednn
