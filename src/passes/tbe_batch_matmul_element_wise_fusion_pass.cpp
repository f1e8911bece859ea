// TbeBatchMatmulElementWiseFusionPass (CANN's UB fusion of a (batch) matmul with an Add):
// MatMul / FusedMatMul -> Add(mm_out, other) with `other` of the output's exact shape becomes
// FusedMatMul(A, B, [bias], other): the residual connection of transformer blocks, run as
// oneDNN's sum post-op.
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_residual_adds(g, {"MatMul", "FusedMatMul"}); }

}  // namespace

const Pass kTbeBatchMatmulElementWiseFusionPass{"TbeBatchMatmulElementWiseFusionPass", "ub", run};

}  // namespace openge::passes
