// TbeConvDoubleInFusionPass (CANN's UB fusion of a convolution with an element-wise op that
// has a second input): Conv -> Add(conv_out, other) with `other` of the output's exact shape
// becomes FusedConv(X, W, B, other), which oneDNN runs as a sum post-op. The residual
// connection of ResNet / MobileNetV2 blocks.
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_residual_adds(g, {"Conv", "FusedConv"}); }

}  // namespace

const Pass kTbeConvDoubleInFusionPass{"TbeConvDoubleInFusionPass", "ub", run};

}  // namespace openge::passes
