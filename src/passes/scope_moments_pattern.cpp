#include "passes/scope_moments_pattern.h"

#include "passes/norm_pattern_util.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

const Node& node_at(const Graph& g, int n) { return g.nodes[static_cast<size_t>(n)]; }

// The only reader of `v` (which is no graph output), whatever the number of times it reads it.
int only_reader(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, const char* op) {
  if (v < 0 || is_graph_output(g, v)) return -1;
  const auto& c = consumers[static_cast<size_t>(v)];
  if (c.empty()) return -1;
  for (int n : c)
    if (n != c[0]) return -1;
  return is_op(node_at(g, c[0]), op) && node_at(g, c[0]).domain.empty() ? c[0] : -1;
}

// The two distinct readers of `v` (no graph output); nullopt for any other count.
std::optional<std::pair<int, int>> two_readers(const Graph& g, const std::vector<std::vector<int>>& consumers, int v) {
  if (is_graph_output(g, v)) return std::nullopt;
  const auto& c = consumers[static_cast<size_t>(v)];
  if (c.size() != 2 || c[0] == c[1]) return std::nullopt;
  return std::pair{c[0], c[1]};
}

bool is_two_input(const Node& n, const char* op) { return is_op(n, op) && n.domain.empty() && n.inputs.size() == 2; }

std::optional<MomentsMatch> match(const Graph& g, const std::vector<std::vector<int>>& consumers, int mean_node) {
  const Node& m1 = node_at(g, mean_node);
  if (m1.inputs.size() != 1 || m1.outputs.size() != 1) return std::nullopt;
  MomentsMatch r;
  r.x = m1.inputs[0];
  const Value& xv = g.values[static_cast<size_t>(r.x)];
  if (!xv.shape || xv.shape->empty() || !dtype_is_float(xv.dtype) || xv.constant) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(xv.shape->size());
  const auto axes = mean_axes(m1, rank);
  if (!axes) return std::nullopt;
  r.axes = *axes;
  const int mean = m1.outputs[0];
  // The mean feeds the centring Sub(x, m) and the Mul(m, inv) of the batchnorm part.
  const auto mean_readers = two_readers(g, consumers, mean);
  if (!mean_readers) return std::nullopt;
  int sub = mean_readers->first, mean_mul = mean_readers->second;
  if (!is_two_input(node_at(g, sub), "Sub")) std::swap(sub, mean_mul);
  if (!is_two_input(node_at(g, sub), "Sub") || node_at(g, sub).inputs != std::vector<int>{r.x, mean} ||
      !is_two_input(node_at(g, mean_mul), "Mul"))
    return std::nullopt;
  // Squared difference: Mul(d, d) or Pow(d, 2).
  const int d = node_at(g, sub).outputs[0];
  int sq = only_reader(g, consumers, d, "Mul");
  if (sq >= 0 && node_at(g, sq).inputs != std::vector<int>{d, d}) return std::nullopt;
  if (sq < 0) {
    sq = sole_reader_op(g, consumers, d, "Pow");
    if (sq < 0 || node_at(g, sq).inputs.size() != 2 || node_at(g, sq).inputs[0] != d ||
        !near_value(scalar_constant(g, node_at(g, sq).inputs[1]), 2.0))
      return std::nullopt;
  }
  const int m2 = sole_reader_op(g, consumers, node_at(g, sq).outputs[0], "ReduceMean");
  if (m2 < 0 || mean_axes(node_at(g, m2), rank) != axes) return std::nullopt;
  const int var = node_at(g, m2).outputs[0];
  const int add_eps = sole_reader_op(g, consumers, var, "Add");
  if (add_eps < 0) return std::nullopt;
  const auto eps = scalar_constant(g, other_input(node_at(g, add_eps), var));
  if (!eps || *eps < 0) return std::nullopt;
  r.epsilon = *eps;
  const int sqrt = sole_reader_op(g, consumers, node_at(g, add_eps).outputs[0], "Sqrt");
  if (sqrt < 0) return std::nullopt;
  const int recip = sole_reader_op(g, consumers, node_at(g, sqrt).outputs[0], "Reciprocal");
  if (recip < 0) return std::nullopt;
  const int rstd = node_at(g, recip).outputs[0];
  const int gamma_mul = sole_reader_op(g, consumers, rstd, "Mul");
  if (gamma_mul < 0) return std::nullopt;
  r.gamma = other_input(node_at(g, gamma_mul), rstd);
  if (!constant_of(g, r.gamma)) return std::nullopt;
  // inv feeds Mul(x, inv) and the Mul(m, inv) found above.
  const int inv = node_at(g, gamma_mul).outputs[0];
  const auto inv_readers = two_readers(g, consumers, inv);
  if (!inv_readers) return std::nullopt;
  const int x_mul = inv_readers->first == mean_mul ? inv_readers->second : inv_readers->first;
  if ((inv_readers->first != mean_mul && inv_readers->second != mean_mul) || !is_two_input(node_at(g, x_mul), "Mul") ||
      other_input(node_at(g, x_mul), inv) != r.x || other_input(node_at(g, mean_mul), inv) != mean)
    return std::nullopt;
  // offset = Sub(beta, Mul(m, inv)); y = Add(Mul(x, inv), offset).
  const int off = sole_reader_op(g, consumers, node_at(g, mean_mul).outputs[0], "Sub");
  if (off < 0 || node_at(g, off).inputs.size() != 2 || node_at(g, off).inputs[1] != node_at(g, mean_mul).outputs[0])
    return std::nullopt;
  r.beta = node_at(g, off).inputs[0];
  if (!constant_of(g, r.beta)) return std::nullopt;
  const int add = sole_reader_op(g, consumers, node_at(g, x_mul).outputs[0], "Add");
  if (add < 0 || sole_reader_op(g, consumers, node_at(g, off).outputs[0], "Add") != add ||
      other_input(node_at(g, add), node_at(g, x_mul).outputs[0]) != node_at(g, off).outputs[0])
    return std::nullopt;
  r.output = node_at(g, add).outputs[0];
  // The output keeps x's shape (gamma or beta must not broadcast it bigger).
  const Value& yv = g.values[static_cast<size_t>(r.output)];
  if (!yv.shape || *yv.shape != *xv.shape || yv.dtype != xv.dtype) return std::nullopt;
  r.nodes = {mean_node, sub, sq, m2, add_eps, sqrt, recip, gamma_mul, x_mul, mean_mul, off, add};
  return r;
}

}  // namespace

Result<PassResult> fuse_moments_patterns(Graph& g, const MomentsRewrite& rewrite) {
  return fuse_anchored_patterns(g, "ReduceMean",
                                [&rewrite](const Graph& graph, const std::vector<std::vector<int>>& consumers,
                                           int node) -> std::optional<PatternMatch> {
                                  const auto m = match(graph, consumers, node);
                                  if (!m) return std::nullopt;
                                  return PatternMatch{m->nodes, m->output, [&rewrite, mm = *m](Graph& g2, Node& into) {
                                                        return rewrite(g2, mm, into);
                                                      }};
                                });
}

}  // namespace openge::passes
