// The pass objects, one per file (src/passes/<pass name in snake case>.cpp); all_passes()
// lists them in the order they run.
#pragma once
#include "passes/pass.h"

namespace openge::passes {

extern const Pass kScopeLayerNormPass;
extern const Pass kScopeInstanceNormPass;
extern const Pass kRequantFusionPass;
extern const Pass kSoftmaxFusionPass;
extern const Pass kFlashAttentionScoreFusionPass;
extern const Pass kConvBatchnormFusionPass;
extern const Pass kBatchNormBnInferFusionPass;
extern const Pass kTbeConvDoubleInFusionPass;
extern const Pass kTbeConvElemwiseFusionPass;
extern const Pass kMatMulBiasAddFusionPass;
extern const Pass kLayerNormONNXFusionPass;
extern const Pass kGeluONNXFusionPass;
extern const Pass kTbeBatchMatmulElementWiseFusionPass;
extern const Pass kATbeMatMulElemwiseFusionPass;
extern const Pass kShuffleChannelFusionPass;
extern const Pass kChannelsLastLayoutPass;
extern const Pass kTransposeToReshapePass;
extern const Pass kTbeEltwiseFusionPass;

}  // namespace openge::passes
