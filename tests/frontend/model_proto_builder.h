// Small builders for ONNX ModelProtos written by tests: a float input (a -1 dim becomes the
// symbolic batch "N"), a float initializer filled by a function of the element index, a node.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace openge::test {

inline void add_float_input(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims) {
  auto* v = g->add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) {
    if (d < 0)
      tt->mutable_shape()->add_dim()->set_dim_param("N");
    else
      tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
}

// `value(i)` gives element i (float_data, the typed form).
template <class ValueFn>
void add_float_initializer(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                           ValueFn&& value) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(value(i));
}

// A node named after its first output.
inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs, const std::string& domain = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->set_name(outputs.at(0));
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

}  // namespace openge::test
