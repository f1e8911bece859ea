// MatMulBiasAddFusionPass (CANN's name): MatMul -> Add(mm_out, bias) with a constant bias of N
// elements broadcast along the last axis ([N] or [1, …, 1, N]) becomes FusedMatMul(A, B, bias):
// the bias is added by the matmul primitive itself.
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

Result<PassResult> run(Graph& g, const PassContext&) {
  return fuse_adds(g, [&](const auto& consumers, const auto&, int add, int x, int bias) {
    const Node* mm = producer(g, x);
    if (!mm || !is_op(*mm, "MatMul") || mm->domain == "openge") return kNoMatch;
    if (sole_consumer(g, consumers, x) != add) return kNoMatch;
    const Tensor* b = constant_of(g, bias);
    const Value& xv = g.values[static_cast<size_t>(x)];
    if (!b || !xv.shape || xv.shape->empty()) return kNoMatch;
    const int64_t n = xv.shape->back();
    bool row =
        b->dtype() == xv.dtype && b->numel() == n && n > 0 && b->rank() <= static_cast<int64_t>(xv.shape->size());
    for (int64_t d = 0; row && d + 1 < b->rank(); ++d) row = b->dim(d) == 1;
    if (!row) return kMatchedNotApplied;
    const int ci = xv.producer;
    const int bias1d = add_constant(g, g.values[static_cast<size_t>(bias)].name + "_row", b->reshaped({n}).clone());
    Node& m = g.nodes[static_cast<size_t>(ci)];
    make_fused(m);
    m.inputs.resize(3, -1);
    m.inputs[2] = bias1d;
    set_output(g, ci, 0, g.nodes[static_cast<size_t>(add)].outputs[0]);
    return ci;
  });
}

}  // namespace

const Pass kMatMulBiasAddFusionPass{"MatMulBiasAddFusionPass", "graph", run};

}  // namespace openge::passes
