// ScopeInstanceNormPass (CANN's scope fusion rule, Non-General: it runs only when
// enable_scope_fusion_passes names it): the tf.nn.moments + tf.nn.batch_normalization form
// (scope_moments_pattern.h) over every spatial axis of a channels-first x [N, C, D1, ...] with
// per-channel gamma and beta becomes one InstanceNormalization(x, gamma[C], beta[C]).
#include "passes/pass_registry.h"
#include "passes/pass_util.h"
#include "passes/scope_moments_pattern.h"

namespace openge::passes {
namespace {

// `c` as a per-channel [C] constant: its shape, right-aligned against x, has C at axis 1 and
// 1 everywhere else. The value to use, or -1.
int per_channel(Graph& g, int c, DType dtype, const Shape& x) {
  const Tensor* t = constant_of(g, c);
  if (!t || t->dtype() != dtype || t->shape().size() > x.size() || t->numel() != x[1]) return -1;
  const Shape& s = t->shape();
  const size_t lead = x.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != (lead + i == 1 ? x[1] : 1)) return -1;
  if (s == Shape{x[1]}) return c;
  return add_constant(g, g.values[static_cast<size_t>(c)].name + "_per_channel", t->reshaped({x[1]}).clone());
}

bool to_instance_norm(Graph& g, const MomentsMatch& m, Node& into) {
  const Shape x = *g.values[static_cast<size_t>(m.x)].shape;
  const DType dtype = g.values[static_cast<size_t>(m.x)].dtype;
  if (x.size() < 3 || m.axes.size() != x.size() - 2 || m.axes.front() != 2 ||
      m.axes.back() != static_cast<int64_t>(x.size()) - 1)
    return false;
  const int scale = per_channel(g, m.gamma, dtype, x);
  const int bias = scale < 0 ? -1 : per_channel(g, m.beta, dtype, x);
  if (scale < 0 || bias < 0) return false;
  into.op_type = "InstanceNormalization";
  into.domain.clear();
  into.inputs = {m.x, scale, bias};
  into.attrs = Attributes{};
  set_float_attr(into, "epsilon", static_cast<float>(m.epsilon));
  return true;
}

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_moments_patterns(g, to_instance_norm); }

}  // namespace

const Pass kScopeInstanceNormPass{"ScopeInstanceNormPass", "graph", run, PassSwitch::kScopeNonGeneral};

}  // namespace openge::passes
