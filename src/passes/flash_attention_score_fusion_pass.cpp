// FlashAttentionScoreFusionPass: the scaled dot-product attention of transformer exports,
//   S = MatMul(Q', Kt) [* c | / c] [+ mask];  P = Softmax(S, last axis);  Y = MatMul(P, V)
// with an optional scaling of Q before the product (Q' = Q * c or Q / c, how torch's
// nn.MultiheadAttention exports it) and of the scores after it (how BERT-style code writes it),
// c a scalar constant, becomes one FusedAttention(Q, Kt, V, [mask]) with scale = the product of
// the scalings (ops/fused/fused_attention.h), whose AI Core kernel never writes the scores to memory.
// The name is OpenGE's: CANN's fused op for this is FlashAttentionScore (docs/DECISIONS.md).
#include "ops/fused/fused_attention.h"
#include "ops/fused/fused_ops.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

const Node& node_at(const Graph& g, int n) { return g.nodes[static_cast<size_t>(n)]; }

struct AttentionMatch {
  int q = -1, kt = -1, v = -1, mask = -1, output = -1;
  int qk = -1;  // the first MatMul: becomes the fused node
  double scale = 1;
  std::vector<int> absorbed;
};

// `n` as x * c or x / c with c a non-zero scalar float constant: x (set) and the factor c or 1/c.
std::optional<double> scaling(const Graph& g, const Node& n, int& x) {
  if (!n.domain.empty() || n.inputs.size() != 2 || n.outputs.size() != 1) return std::nullopt;
  if (n.op_type == "Mul") {
    for (int i : {0, 1})
      if (const auto c = scalar_constant(g, n.inputs[static_cast<size_t>(i)]);
          c && !constant_of(g, n.inputs[1 - static_cast<size_t>(i)])) {
        x = n.inputs[1 - static_cast<size_t>(i)];
        return *c;
      }
  } else if (n.op_type == "Div") {
    const auto c = scalar_constant(g, n.inputs[1]);
    if (c && *c != 0) {
      x = n.inputs[0];
      return 1.0 / *c;
    }
  }
  return std::nullopt;
}

const Shape* shape_of(const Graph& g, int v) {
  const auto& s = g.values[static_cast<size_t>(v)].shape;
  return s ? &*s : nullptr;
}

// The producer of `v` when `reader` is v's only reader (so v can disappear into the fused node).
int private_producer(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, int reader) {
  if (sole_consumer(g, consumers, v) != reader) return -1;
  return g.values[static_cast<size_t>(v)].producer;
}

// From `cur`, read only by node `reader`, down the product chain: [scaling] <- MatMul(Q', Kt),
// and a scaling of Q' that only this product reads. Fills q, kt, qk, scale, absorbed.
bool match_product(const Graph& g, const std::vector<std::vector<int>>& consumers, int cur, int reader,
                   AttentionMatch& m) {
  int n = private_producer(g, consumers, cur, reader);
  if (n < 0) return false;
  if (!is_op(node_at(g, n), "MatMul")) {
    int x = -1;
    const auto c = scaling(g, node_at(g, n), x);
    if (!c) return false;
    m.scale *= *c;
    m.absorbed.push_back(n);
    n = private_producer(g, consumers, x, n);
    if (n < 0) return false;
  }
  const Node& qk = node_at(g, n);
  if (!is_op(qk, "MatMul") || !qk.domain.empty() || qk.inputs.size() != 2) return false;
  m.qk = n;
  m.q = qk.inputs[0];
  m.kt = qk.inputs[1];
  if (const int sq = private_producer(g, consumers, m.q, m.qk); sq >= 0) {
    int x = -1;
    if (const auto c = scaling(g, node_at(g, sq), x)) {
      m.scale *= *c;
      m.absorbed.push_back(sq);
      m.q = x;
    }
  }
  return true;
}

std::optional<AttentionMatch> match(const Graph& g, const std::vector<std::vector<int>>& consumers, int softmax) {
  const Node& sm = node_at(g, softmax);
  if (!sm.domain.empty() || sm.inputs.size() != 1 || sm.outputs.size() != 1) return std::nullopt;
  const Shape* scores = shape_of(g, sm.inputs[0]);
  if (!scores || scores->size() < 2) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(scores->size());
  int64_t axis = sm.attrs.get_int("axis", g.opset < 13 ? 1 : -1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1) return std::nullopt;
  AttentionMatch m;
  // P -> MatMul(P, V)
  const int pv = sole_reader_op(g, consumers, sm.outputs[0], "MatMul");
  if (pv < 0 || node_at(g, pv).inputs.size() != 2 || node_at(g, pv).inputs[0] != sm.outputs[0]) return std::nullopt;
  m.v = node_at(g, pv).inputs[1];
  m.output = node_at(g, pv).outputs[0];
  m.absorbed = {softmax, pv};
  // Walk back from the Softmax's input: [Add mask] <- [scaling] <- MatMul(Q', Kt) <- [scaling].
  const int n = private_producer(g, consumers, sm.inputs[0], softmax);
  if (n >= 0 && is_op(node_at(g, n), "Add") && node_at(g, n).domain.empty() && node_at(g, n).inputs.size() == 2) {
    // The scores are the side the product chain gives; the other side is the mask.
    bool found = false;
    for (size_t side : {0u, 1u}) {
      AttentionMatch t = m;
      t.mask = node_at(g, n).inputs[1 - side];
      t.absorbed.push_back(n);
      if (match_product(g, consumers, node_at(g, n).inputs[side], n, t)) {
        m = std::move(t);
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
  } else if (!match_product(g, consumers, sm.inputs[0], softmax, m)) {
    return std::nullopt;
  }
  // Shapes and dtypes FusedAttention accepts, the scores keeping the Softmax's shape.
  const Shape *q = shape_of(g, m.q), *kt = shape_of(g, m.kt), *v = shape_of(g, m.v), *y = shape_of(g, m.output);
  if (!q || !kt || !v || !y || q->size() != scores->size() || kt->size() != q->size() || v->size() != q->size())
    return std::nullopt;
  const size_t r = q->size();
  for (size_t i = 0; i + 2 < r; ++i)
    if ((*kt)[i] != (*q)[i] || (*v)[i] != (*q)[i] || (*scores)[i] != (*q)[i]) return std::nullopt;
  if ((*kt)[r - 2] != (*q)[r - 1] || (*v)[r - 2] != (*kt)[r - 1] || (*scores)[r - 2] != (*q)[r - 2] ||
      (*scores)[r - 1] != (*kt)[r - 1])
    return std::nullopt;
  const DType dt = g.values[static_cast<size_t>(m.q)].dtype;
  if (!dtype_is_float(dt)) return std::nullopt;
  for (int val : {m.kt, m.v, m.output, m.mask})
    if (val >= 0 && g.values[static_cast<size_t>(val)].dtype != dt) return std::nullopt;
  if (m.mask >= 0) {
    const Shape* ms = shape_of(g, m.mask);
    if (!ms || !mask_fits(*ms, *scores)) return std::nullopt;
  }
  return m;
}

std::optional<PatternMatch> find(const Graph& g, const std::vector<std::vector<int>>& consumers, int softmax) {
  const auto m = match(g, consumers, softmax);
  if (!m) return std::nullopt;
  std::vector<int> nodes{m->qk};
  nodes.insert(nodes.end(), m->absorbed.begin(), m->absorbed.end());
  return PatternMatch{std::move(nodes), m->output, [a = *m](Graph&, Node& node) {
                        node.op_type = kFusedAttention;
                        node.domain = kFusedDomain;
                        node.inputs = {a.q, a.kt, a.v};
                        if (a.mask >= 0) node.inputs.push_back(a.mask);
                        node.attrs = Attributes{};
                        set_float_attr(node, "scale", static_cast<float>(a.scale));
                        return true;
                      }};
}

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_anchored_patterns(g, "Softmax", find); }

}  // namespace

const Pass kFlashAttentionScoreFusionPass{"FlashAttentionScoreFusionPass", "graph", run};

}  // namespace openge::passes
