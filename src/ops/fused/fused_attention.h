// FusedAttention (domain "openge"), made by FlashAttentionScoreFusionPass from the scaled
// dot-product attention of transformer exports:
//   FusedAttention(Q, Kt, V, [mask]) = Softmax(scale * MatMul(Q, Kt) + mask, last axis) · V
// Q [..., Lq, D], Kt [..., D, Lk] (K already transposed), V [..., Lk, Dv], the same leading dims;
// mask broadcasts into [..., Lq, Lk]; attribute `scale` (float, default 1). Output
// [..., Lq, Dv] in Q's dtype (a float dtype; all inputs share it). The reference kernel works in
// float (double for double), one query row at a time; the AI Core kernel (fp32) keeps one head's
// scores in cache between the two products (kernels/fused_attention_kernel.h).
#pragma once
#include <vector>

#include "ops/op_registry.h"

namespace openge {

inline constexpr const char* kFusedAttention = "FusedAttention";

// True when `mask` (right-aligned) broadcasts into `scores` without growing it; its strides are
// then shape_util.h's broadcast_strides(mask, scores).
bool mask_fits(const Shape& mask, const Shape& scores);

void register_fused_attention_ops(std::vector<OpSchema>& table);

}  // namespace openge
