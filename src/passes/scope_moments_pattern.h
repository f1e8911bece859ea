// The normalization TensorFlow builds from tf.nn.moments and tf.nn.batch_normalization (the
// "LayerNorm/moments" and "LayerNorm/batchnorm" scopes of tf.contrib / Keras layer norm, and
// the instance norms written the same way), as tf2onnx exports it:
//   m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Mul(d, d) or Pow(d, 2))
//   inv = Mul(Reciprocal(Sqrt(Add(v, eps))), gamma)
//   y = Add(Mul(x, inv), Sub(beta, Mul(m, inv)))         gamma, beta constants; each Mul/Add order
// Twelve nodes; the scope fusion passes (ScopeLayerNormPass, ScopeInstanceNormPass) turn it into
// one normalization node, each for the axes its op normalizes over.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"

namespace openge::passes {

struct MomentsMatch {
  int x = -1, gamma = -1, beta = -1, output = -1;
  std::vector<int64_t> axes;  // sorted, non-negative
  double epsilon = 0;
  std::vector<int> nodes;  // the pattern's nodes, the first ReduceMean first
};

// Rewrites node `into` (the match's first ReduceMean) into the fused op, adding constants as
// needed; false when the match does not fit the op (axes, gamma's shape ...): the nodes then stay
// (a constant it added stays unused).
using MomentsRewrite = std::function<bool(Graph& g, const MomentsMatch& m, Node& into)>;

// Finds every match, calls `rewrite` on it and removes the nodes it absorbed. `matched` counts
// the patterns found, `applied` those rewritten.
Result<PassResult> fuse_moments_patterns(Graph& g, const MomentsRewrite& rewrite);

}  // namespace openge::passes
