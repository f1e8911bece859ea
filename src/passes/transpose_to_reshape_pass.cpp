// TransposeToReshapePass: a Transpose that moves only dimensions of size 1 keeps every element
// where it was in memory ((1,128,768) -> (128,1,768) in BERT's exported attention, the layout
// pass's (1,1,1,C) -> (1,C,1,1) after a global pool), so it is a Reshape, and the executor runs a
// Reshape as a view of its input (OpSchema::output_aliases_input): no kernel, no copy. Like the
// layout pass it changes no arithmetic and is not a fusion rule, so it always runs (AMB-15).
#include <numeric>

#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

// The Transpose's permutation (default: the dimensions reversed), or empty when invalid.
std::vector<int64_t> permutation(const Node& n, size_t rank) {
  std::vector<int64_t> perm = n.attrs.get_ints("perm");
  if (!n.attrs.has("perm")) {
    perm.resize(rank);
    std::iota(perm.rbegin(), perm.rend(), int64_t{0});
  }
  if (perm.size() != rank) return {};
  return perm;
}

// True when the dimensions larger than 1 keep their relative order under `perm`: the elements'
// order in memory is then unchanged.
bool moves_only_unit_dims(const Shape& in, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(in.size())) return false;
    if (in[static_cast<size_t>(axis)] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult r;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (!is_op(n, "Transpose") || n.inputs.size() != 1 || n.outputs.size() != 1 || n.inputs[0] < 0) continue;
    const Value& in = g.values[static_cast<size_t>(n.inputs[0])];
    const Value& out = g.values[static_cast<size_t>(n.outputs[0])];
    // Static and non-empty: a 0 in Reshape's shape input would mean "keep the input's dimension".
    if (!has_static_shape(in) || !out.shape || in.kind != ValueKind::kTensor || shape_numel(*in.shape) == 0) continue;
    const std::vector<int64_t> perm = permutation(n, in.shape->size());
    if (perm.empty() || !moves_only_unit_dims(*in.shape, perm)) continue;
    ++r.matched;
    Tensor shape(DType::kInt64, {static_cast<int64_t>(out.shape->size())});
    for (size_t d = 0; d < out.shape->size(); ++d) shape.data<int64_t>()[d] = (*out.shape)[d];
    n.inputs.push_back(add_constant(g, n.name + "_shape", std::move(shape)));  // adds a value, not a node
    n.op_type = "Reshape";
    n.attrs = Attributes{};
    ++r.applied;
  }
  return r;
}

}  // namespace

const Pass kTransposeToReshapePass{"TransposeToReshapePass", "graph", run, PassSwitch::kAlwaysOn};

}  // namespace openge::passes
