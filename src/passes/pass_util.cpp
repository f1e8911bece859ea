#include "passes/pass_util.h"

#include <algorithm>
#include <cmath>

#include "ir/attribute_values.h"
#include "ir/original_outputs.h"

namespace openge::passes {

const Node* producer(const Graph& g, int v) {
  if (v < 0) return nullptr;
  const int p = g.values[static_cast<size_t>(v)].producer;
  return p >= 0 ? &g.nodes[static_cast<size_t>(p)] : nullptr;
}

bool is_graph_output(const Graph& g, int v) {
  return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
}

int sole_consumer(const Graph& g, const std::vector<std::vector<int>>& consumers, int v) {
  if (v < 0 || is_graph_output(g, v)) return -1;
  const auto& c = consumers[static_cast<size_t>(v)];
  if (c.size() != 1) return -1;
  // A node reading the value twice (Mul(x, x)) still counts once in `consumers`? Be strict.
  int uses = 0;
  for (int in : g.nodes[static_cast<size_t>(c[0])].inputs) uses += in == v;
  return uses == 1 ? c[0] : -1;
}

const Tensor* constant_of(const Graph& g, int v) {
  if (v < 0) return nullptr;
  const auto& c = g.values[static_cast<size_t>(v)].constant;
  return c ? &*c : nullptr;
}

std::optional<double> scalar_constant(const Graph& g, int v) {
  const Tensor* t = constant_of(g, v);
  if (!t || t->numel() != 1 || !dtype_is_float(t->dtype())) return std::nullopt;
  return t->scalar_as_double(0);
}

bool has_static_shape(const Value& v) {
  return v.shape && std::none_of(v.shape->begin(), v.shape->end(), [](int64_t d) { return d < 0; });
}

bool is_op(const Node& n, const char* op) {
  return n.op_type == op && (n.domain.empty() || n.domain == "ai.onnx" || n.domain == "openge");
}

bool near_value(std::optional<double> v, double want) { return v && std::abs(*v - want) <= 1e-4 * std::abs(want); }

int other_input(const Node& n, int v) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return -1;
}

int sole_reader_op(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, const char* op) {
  const int r = sole_consumer(g, consumers, v);
  if (r < 0) return -1;
  const Node& n = g.nodes[static_cast<size_t>(r)];
  return is_op(n, op) && n.domain.empty() ? r : -1;
}

void replace_uses(Graph& g, int from, int to) {
  for (Node& n : g.nodes)
    for (int& v : n.inputs)
      if (v == from) v = to;
}

int add_constant(Graph& g, const std::string& name, Tensor t) {
  std::string unique = name;
  for (int i = 1; g.find_value(unique) >= 0; ++i) unique = name + "_" + std::to_string(i);
  const int v = g.add_value(unique);
  Value& val = g.values[static_cast<size_t>(v)];
  val.dtype = t.dtype();
  val.shape = t.shape();
  val.constant = std::move(t);
  return v;
}

int add_intermediate(Graph& g, const std::string& name, DType dtype, Shape shape) {
  std::string unique = name;
  for (int i = 1; g.find_value(unique) >= 0; ++i) unique = name + "_" + std::to_string(i);
  const int v = g.add_value(unique);
  Value& val = g.values[static_cast<size_t>(v)];
  val.dtype = dtype;
  val.shape = std::move(shape);
  return v;
}

void erase_nodes(Graph& g, const std::vector<bool>& dead) {
  std::vector<int> remap(g.nodes.size(), -1);
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (dead[i]) continue;
    remap[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  for (Value& v : g.values)
    if (v.producer >= 0) v.producer = remap[static_cast<size_t>(v.producer)];
}

void set_int_attr(Node& n, const std::string& name, int64_t v) { n.attrs.set(name, int_attr(v)); }

void set_float_attr(Node& n, const std::string& name, float v) { n.attrs.set(name, float_attr(v)); }

Result<PassResult> fuse_anchored_patterns(Graph& g, const char* anchor, const PatternFinder& find) {
  PassResult result;
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < dead.size(); ++i) {
    if (dead[i] || !is_op(g.nodes[i], anchor) || !g.nodes[i].domain.empty()) continue;
    const auto m = find(g, consumers, static_cast<int>(i));
    if (!m || m->nodes.empty()) continue;
    bool clash = false;
    for (int n : m->nodes) clash = clash || dead[static_cast<size_t>(n)];
    if (clash) continue;
    ++result.matched;
    const int keep = m->nodes.front();
    if (!m->rewrite(g, g.nodes[static_cast<size_t>(keep)])) continue;
    set_output(g, keep, 0, m->output);
    for (size_t k = 1; k < m->nodes.size(); ++k) absorb_node(g, keep, m->nodes[k], dead);
    ++result.applied;
  }
  erase_nodes(g, dead);
  return result;
}

void set_output(Graph& g, int n, size_t slot, int v) {
  Node& node = g.nodes[static_cast<size_t>(n)];
  if (node.outputs.size() <= slot) node.outputs.resize(slot + 1, -1);
  const int old = node.outputs[slot];
  if (old >= 0 && old != v) g.values[static_cast<size_t>(old)].producer = -1;
  node.outputs[slot] = v;
  g.values[static_cast<size_t>(v)].producer = n;
}

}  // namespace openge::passes

#include "ops/fused/fused_ops.h"

namespace openge::passes {

void make_fused(Node& n) {
  if (n.domain == kFusedDomain) return;
  if (n.op_type == "Conv")
    n.op_type = kFusedConv;
  else if (n.op_type == "MatMul")
    n.op_type = kFusedMatMul;
  else
    return;
  n.domain = kFusedDomain;
  write_fused_activation(n, FusedActivation{});
}

bool conv_weights_at_run_time(const Graph& g, const Node& n) {
  if (!is_op(n, "Conv") && !is_op(n, "FusedConv")) return false;
  return n.inputs.size() < 2 || n.inputs[1] < 0 || !constant_of(g, n.inputs[1]);
}

bool has_activation(const Node& n) { return n.domain == kFusedDomain && !n.attrs.get_string("activation", "").empty(); }

bool has_residual(const Node& n) { return n.domain == kFusedDomain && n.inputs.size() > 3 && n.inputs[3] >= 0; }

}  // namespace openge::passes

#include <cfloat>

namespace openge::passes {

std::optional<FusedActivation> match_activation(const Graph& g, const Node& n, int64_t opset) {
  if (n.domain == kFusedDomain && n.op_type == kFusedGelu && n.inputs.size() == 1 && n.outputs.size() == 1)
    return n.attrs.get_string("approximate", "none") == "none" ? std::optional(FusedActivation{Activation::kGelu, 0, 0})
                                                               : std::nullopt;
  if (n.domain == kFusedDomain || n.inputs.empty() || n.outputs.size() != 1) return std::nullopt;
  if (is_op(n, "Relu")) return FusedActivation{Activation::kRelu, 0, 0};
  if (is_op(n, "Sigmoid")) return FusedActivation{Activation::kSigmoid, 0, 0};
  if (is_op(n, "Tanh")) return FusedActivation{Activation::kTanh, 0, 0};
  if (is_op(n, "LeakyRelu")) return FusedActivation{Activation::kLeakyRelu, n.attrs.get_float("alpha", 0.01f), 0};
  if (is_op(n, "HardSwish")) return FusedActivation{Activation::kHardSwish, 0, 0};
  if (is_op(n, "HardSigmoid"))
    return FusedActivation{Activation::kHardSigmoid, n.attrs.get_float("alpha", 0.2f), n.attrs.get_float("beta", 0.5f)};
  if (is_op(n, "Clip")) {
    float lo = -FLT_MAX, hi = FLT_MAX;
    if (opset < 11) {
      lo = n.attrs.get_float("min", lo);
      hi = n.attrs.get_float("max", hi);
    } else {
      for (size_t i = 1; i < 3 && i < n.inputs.size(); ++i) {
        if (n.inputs[i] < 0) continue;
        auto v = scalar_constant(g, n.inputs[i]);
        if (!v) return std::nullopt;
        (i == 1 ? lo : hi) = static_cast<float>(*v);
      }
    }
    if (!(lo <= hi)) return std::nullopt;
    return FusedActivation{Activation::kClip, lo, hi};
  }
  return std::nullopt;
}

std::optional<GatedActivation> match_gated_activation(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                                      int mul) {
  const Node& m = g.nodes[static_cast<size_t>(mul)];
  if (!is_op(m, "Mul") || m.domain == kFusedDomain || m.inputs.size() != 2 || m.outputs.size() != 1)
    return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    const int x = m.inputs[1 - side];
    const Node* gate = producer(g, m.inputs[side]);
    if (!gate || gate->inputs.size() != 1 || gate->inputs[0] != x || x < 0) continue;
    const int gate_node = g.values[static_cast<size_t>(m.inputs[side])].producer;
    if (sole_consumer(g, consumers, m.inputs[side]) != mul) continue;
    if (is_op(*gate, "Sigmoid") && gate->domain != kFusedDomain)
      return GatedActivation{x, gate_node, {Activation::kSwish, 0, 0}};
    if (is_op(*gate, "HardSigmoid") && near_value(gate->attrs.get_float("alpha", 0.2f), 1.0 / 6.0) &&
        near_value(gate->attrs.get_float("beta", 0.5f), 0.5))
      return GatedActivation{x, gate_node, {Activation::kHardSwish, 0, 0}};
  }
  return std::nullopt;
}

int fusable_producer(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, int reader,
                     std::initializer_list<const char*> ops) {
  const Node* p = producer(g, v);
  if (!p) return -1;
  bool op_ok = false;
  for (const char* op : ops) op_ok = op_ok || is_op(*p, op);
  if (!op_ok || has_activation(*p) || p->attrs.get_int("channels_last", 0) != 0 || conv_weights_at_run_time(g, *p))
    return -1;
  if (sole_consumer(g, consumers, v) != reader) return -1;
  return g.values[static_cast<size_t>(v)].producer;
}

void absorb_node(Graph& g, int into, int absorbed, std::vector<bool>& dead) {
  Node& n = g.nodes[static_cast<size_t>(into)];
  const Node& a = g.nodes[static_cast<size_t>(absorbed)];
  if (n.fused_from.empty()) n.fused_from.push_back(n.name);
  if (a.fused_from.empty())
    n.fused_from.push_back(a.name);
  else
    n.fused_from.insert(n.fused_from.end(), a.fused_from.begin(), a.fused_from.end());
  inherit_original_outputs(n, a);
  dead[static_cast<size_t>(absorbed)] = true;
}

bool fuse_residual_add(Graph& g, int producer_node, int x, int other, int add_node) {
  const Value& xv = g.values[static_cast<size_t>(x)];
  const Value& ov = g.values[static_cast<size_t>(other)];
  if (!xv.shape || !ov.shape || *xv.shape != *ov.shape || xv.dtype != ov.dtype) return false;
  Node& n = g.nodes[static_cast<size_t>(producer_node)];
  make_fused(n);
  n.inputs.resize(4, -1);
  n.inputs[3] = other;
  set_output(g, producer_node, 0, g.nodes[static_cast<size_t>(add_node)].outputs[0]);
  return true;
}

Result<PassResult> fuse_adds(Graph& g, const AddFuser& fuse) {
  PassResult result;
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t ai = 0; ai < g.nodes.size(); ++ai) {
    const Node& add = g.nodes[ai];
    if (!is_op(add, "Add") || add.domain == kFusedDomain || add.inputs.size() != 2 || add.outputs.empty()) continue;
    for (size_t side = 0; side < 2; ++side) {
      const int absorber = fuse(consumers, dead, static_cast<int>(ai), add.inputs[side], add.inputs[1 - side]);
      if (absorber == kNoMatch) continue;
      ++result.matched;
      if (absorber == kMatchedNotApplied) continue;
      absorb_node(g, absorber, static_cast<int>(ai), dead);
      ++result.applied;
      break;
    }
  }
  erase_nodes(g, dead);
  return result;
}

Result<PassResult> fuse_residual_adds(Graph& g, std::initializer_list<const char*> ops) {
  return fuse_adds(g, [&](const auto& consumers, const auto& dead, int add, int x, int other) {
    const int p = fusable_producer(g, consumers, x, add, ops);
    if (p < 0 || dead[static_cast<size_t>(p)] || has_residual(g.nodes[static_cast<size_t>(p)]) || x == other)
      return kNoMatch;
    return fuse_residual_add(g, p, x, other, add) ? p : kMatchedNotApplied;
  });
}

}  // namespace openge::passes
