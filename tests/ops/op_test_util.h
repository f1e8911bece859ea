// Builds a single-node graph fragment and evaluates it with the reference engine.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/node_eval.h"

namespace openge::testing {

inline Node make_node(const std::string& op_type, size_t inputs, size_t outputs = 1) {
  Node n;
  n.op_type = op_type;
  n.name = op_type + "_test";
  for (size_t i = 0; i < inputs; ++i) n.inputs.push_back(static_cast<int>(i));
  for (size_t i = 0; i < outputs; ++i) n.outputs.push_back(static_cast<int>(inputs + i));
  return n;
}

inline void set_int(Node& n, const std::string& name, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  n.attrs.set(name, a);
}
inline void set_float(Node& n, const std::string& name, float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  n.attrs.set(name, a);
}
inline void set_ints(Node& n, const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  n.attrs.set(name, a);
}
inline void set_string(Node& n, const std::string& name, std::string v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = std::move(v);
  n.attrs.set(name, a);
}

template <class T>
Tensor make_tensor(DType dtype, Shape shape, std::initializer_list<T> values) {
  Tensor t(dtype, std::move(shape));
  T* p = t.data<T>();
  for (T v : values) *p++ = v;
  return t;
}

inline Result<std::vector<Tensor>> run_node(const Node& node, const std::vector<const Tensor*>& inputs,
                                            int64_t opset = 17) {
  return evaluate_node(node, opset, inputs);
}

}  // namespace openge::testing
