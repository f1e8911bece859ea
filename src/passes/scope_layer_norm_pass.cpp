// ScopeLayerNormPass (CANN's scope fusion rule, registered General there: always on): the
// tf.nn.moments + tf.nn.batch_normalization layer norm of TensorFlow exports
// (scope_moments_pattern.h) over the last K axes becomes one LayerNormalization(x, gamma, beta)
// with axis = rank - K. PyTorch's decomposition is LayerNormONNXFusionPass's.
#include "passes/norm_pattern_util.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"
#include "passes/scope_moments_pattern.h"

namespace openge::passes {
namespace {

bool to_layer_norm(Graph& g, const MomentsMatch& m, Node& into) {
  const Shape x = *g.values[static_cast<size_t>(m.x)].shape;
  const DType dtype = g.values[static_cast<size_t>(m.x)].dtype;
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis = m.axes.front();
  if (m.axes.back() != rank - 1 || static_cast<int64_t>(m.axes.size()) != rank - axis) return false;
  const int scale = affine_input(g, m.gamma, dtype, x, axis);
  const int bias = scale < 0 ? -1 : affine_input(g, m.beta, dtype, x, axis);
  if (scale < 0 || bias < 0) return false;
  into.op_type = "LayerNormalization";
  into.domain.clear();
  into.inputs = {m.x, scale, bias};
  into.attrs = Attributes{};
  set_int_attr(into, "axis", axis);
  set_float_attr(into, "epsilon", static_cast<float>(m.epsilon));
  return true;
}

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_moments_patterns(g, to_layer_norm); }

}  // namespace

const Pass kScopeLayerNormPass{"ScopeLayerNormPass", "graph", run, PassSwitch::kScopeGeneral};

}  // namespace openge::passes
