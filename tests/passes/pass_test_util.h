// Small graphs for pass tests: a builder, and a reference-engine evaluator that also fills in
// each value's dtype/shape (what inference does before passes run).
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"
#include "ops/node_eval.h"

namespace openge::testing {

struct GraphBuilder {
  Graph g;
  explicit GraphBuilder(int64_t opset = 13) {
    g.opset = opset;
    g.name = "test";
  }
  int input(const std::string& name) {
    const int v = g.add_value(name);
    g.inputs.push_back(v);
    return v;
  }
  // An input whose dtype and shape are known (as a loaded model's are).
  int input(const std::string& name, Shape shape, DType dtype = DType::kFloat32) {
    const int v = input(name);
    g.values[static_cast<size_t>(v)].dtype = dtype;
    g.values[static_cast<size_t>(v)].shape = std::move(shape);
    return v;
  }
  int constant(const std::string& name, Tensor t) {
    const int v = g.add_value(name);
    g.values[static_cast<size_t>(v)].dtype = t.dtype();
    g.values[static_cast<size_t>(v)].shape = t.shape();
    g.values[static_cast<size_t>(v)].constant = std::move(t);
    return v;
  }
  // Adds a node with one output; returns the output value.
  int node(const std::string& op, std::vector<int> inputs, Attributes attrs = {}) {
    Node n;
    n.op_type = op;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.attrs = std::move(attrs);
    return node(std::move(n), std::move(inputs));
  }
  // The same for a node prepared by the caller (its name and attributes).
  int node(Node n, std::vector<int> inputs) {
    n.inputs = std::move(inputs);
    const int out = g.add_value(n.name + "_out");
    n.outputs = {out};
    g.values[static_cast<size_t>(out)].producer = static_cast<int>(g.nodes.size());
    g.nodes.push_back(std::move(n));
    return out;
  }
};

// A float32 scalar constant (the 2, eps, sqrt 2, 0.5 of decomposed patterns).
inline Tensor scalar(float v) {
  Tensor t(DType::kFloat32, {});
  t.data<float>()[0] = v;
  return t;
}

inline void set_int_attr_of(Attributes& a, const std::string& name, int64_t v) {
  Attribute at;
  at.kind = Attribute::Kind::kInt;
  at.i = v;
  a.set(name, at);
}
inline Attributes ints_attr(const std::string& name, std::vector<int64_t> v, Attributes a = {}) {
  Attribute at;
  at.kind = Attribute::Kind::kInts;
  at.ints = std::move(v);
  a.set(name, at);
  return a;
}
inline Attributes int_attr(const std::string& name, int64_t v, Attributes a = {}) {
  set_int_attr_of(a, name, v);
  return a;
}
inline Attributes float_attr(const std::string& name, float f, Attributes a = {}) {
  Attribute at;
  at.kind = Attribute::Kind::kFloat;
  at.f = f;
  a.set(name, at);
  return a;
}

// Runs the graph node by node on the reference engine; with `annotate`, records each value's
// dtype and shape in the graph.
inline std::vector<Tensor> eval_graph(Graph& g, const std::vector<Tensor>& inputs, bool annotate = false) {
  std::vector<Tensor> values(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].constant) values[v] = *g.values[v].constant;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    values[static_cast<size_t>(g.inputs[i])] = inputs[i];
    if (annotate) {
      g.values[static_cast<size_t>(g.inputs[i])].dtype = inputs[i].dtype();
      g.values[static_cast<size_t>(g.inputs[i])].shape = inputs[i].shape();
    }
  }
  auto order = g.topological_order();
  EXPECT_TRUE(order.ok()) << order.status().message();
  if (!order.ok()) return {};
  for (int n : *order) {
    const Node& node = g.nodes[static_cast<size_t>(n)];
    std::vector<const Tensor*> ins;
    for (int in : node.inputs) ins.push_back(in >= 0 ? &values[static_cast<size_t>(in)] : nullptr);
    auto outs = evaluate_node(node, g.opset, ins);
    EXPECT_TRUE(outs.ok()) << node.op_type << ": " << outs.status().message();
    if (!outs.ok()) return {};
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] < 0) continue;
      values[static_cast<size_t>(node.outputs[i])] = (*outs)[i];
      if (annotate) {
        g.values[static_cast<size_t>(node.outputs[i])].dtype = (*outs)[i].dtype();
        g.values[static_cast<size_t>(node.outputs[i])].shape = (*outs)[i].shape();
      }
    }
  }
  std::vector<Tensor> result;
  for (int v : g.outputs) result.push_back(values[static_cast<size_t>(v)]);
  return result;
}

inline const Pass* find_pass(std::string_view name) {
  for (const Pass& p : all_passes())
    if (p.name == name) return &p;
  return nullptr;
}

inline PassResult run_pass(Graph& g, std::string_view name) {
  const Pass* p = find_pass(name);
  EXPECT_NE(p, nullptr) << name;
  if (!p) return {};
  auto r = p->run(g, PassContext{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : PassResult{};
}

inline double max_abs_diff(const Tensor& a, const Tensor& b);

// Runs `pass` on `g` (whose values get annotated by a first run on `inputs`); checks that the
// outputs stay within `tol` of the unfused graph's (reference engine); returns the pass result.
inline PassResult fuse_and_compare(Graph& g, const char* pass, const std::vector<Tensor>& inputs, double tol = 2e-5) {
  const auto before = eval_graph(g, inputs, true);
  const PassResult r = run_pass(g, pass);
  const auto after = eval_graph(g, inputs);
  EXPECT_EQ(after.size(), before.size());
  for (size_t o = 0; o < after.size() && o < before.size(); ++o) EXPECT_LT(max_abs_diff(after[o], before[o]), tol);
  return r;
}

// A file's whole text ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op;
  return n;
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return 1e30;
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, std::abs(a.scalar_as_double(i) - b.scalar_as_double(i)));
  return worst;
}

}  // namespace openge::testing
