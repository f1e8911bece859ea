// The fusion passes in the order they run. Order matters: the scope fusion passes come first, as
// in CANN, whose model parser runs them before any graph fusion; a QDQ model's DequantizeLinear ->
// Conv/MatMul -> QuantizeLinear groups become quantized ops first, before the float fusions
// below could take their Conv or Relu; a written-out softmax becomes one Softmax before the
// attention pass looks for one, and attention is fused before the MatMul passes could take its
// mask Add as a bias or residual; then BatchNorm folds into the Conv first (the BatchNorms left
// become a per-channel Mul and Add, for the layout pass and the elementwise fusion), then the
// residual Add joins (Conv + Add), then the activation after it (…+ Relu), so that ResNet's
// Conv-BN-Add-Relu ends as one FusedConv; MatMul takes its bias before its residual and
// activation; GELU's five nodes become one Gelu before the activation pass takes it into the
// MatMul. ShuffleNet's Reshape-Transpose-Reshape becomes one ShuffleChannel before the layout pass
// runs, which it then keeps in NHWC. The layout pass runs last, on the fused graph, and TransposeToReshapePass after it
// turns the Transposes that move only size-1 dimensions (the model's and the layout pass's) into views.
// TbeEltwiseFusionPass runs after the precision pass (after_precision), on what the graph fusions left of the vector
// ops.
#include "passes/pass_registry.h"

namespace openge {

const std::vector<Pass>& all_passes() {
  static const std::vector<Pass> passes = {
      passes::kScopeLayerNormPass,
      passes::kScopeInstanceNormPass,
      passes::kRequantFusionPass,
      passes::kSoftmaxFusionPass,
      passes::kFlashAttentionScoreFusionPass,
      passes::kConvBatchnormFusionPass,
      passes::kBatchNormBnInferFusionPass,
      passes::kTbeConvDoubleInFusionPass,
      passes::kTbeConvElemwiseFusionPass,
      passes::kMatMulBiasAddFusionPass,
      passes::kLayerNormONNXFusionPass,
      passes::kGeluONNXFusionPass,
      passes::kTbeBatchMatmulElementWiseFusionPass,
      passes::kATbeMatMulElemwiseFusionPass,
      passes::kShuffleChannelFusionPass,
      passes::kChannelsLastLayoutPass,
      passes::kTransposeToReshapePass,
      passes::kTbeEltwiseFusionPass,
  };
  return passes;
}

}  // namespace openge
