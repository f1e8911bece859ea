// Small ONNX models written as real files for the compiled-model (.oge) tests.
#pragma once
#include <onnx/onnx_pb.h>

#include <fstream>
#include <string>
#include <vector>

namespace openge::oge::test {

// Node `op` named "<op>_<out>", reading `in` and writing `out`.
inline void add_node(onnx::GraphProto* g, const char* op, const std::vector<std::string>& in, const char* out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(std::string(op) + "_" + out);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
}

// A model at opset 13 whose graph `name` has one float input "x"; returns that input's shape,
// for the caller's dims.
inline onnx::TensorShapeProto* start_model(onnx::ModelProto& m, const char* name) {
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name(name);
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  return tt->mutable_shape();
}

inline std::string save_model(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

// y = Relu(x @ W + b), x [batch, 4] with the batch left open: MatMulBiasAddFusionPass and the
// bias+activation fusion make one internal op of the three.
inline std::string matmul_model(const std::string& dir) {
  onnx::ModelProto m;
  onnx::TensorShapeProto* x = start_model(m, "mlp");
  x->add_dim()->set_dim_param("batch");
  x->add_dim()->set_dim_value(4);
  auto* g = m.mutable_graph();
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(3);
  for (int i = 0; i < 12; ++i) w->add_float_data(static_cast<float>(i % 5) - 2.0f);
  auto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto::FLOAT);
  b->add_dims(3);
  for (int i = 0; i < 3; ++i) b->add_float_data(0.5f * static_cast<float>(i) - 0.5f);
  add_node(g, "MatMul", {"x", "W"}, "xw");
  add_node(g, "Add", {"xw", "b"}, "xwb");
  add_node(g, "Relu", {"xwb"}, "y");
  g->add_output()->set_name("y");
  return save_model(m, dir + "/mlp.onnx");
}

// y = Relu((x + 1) * 0.5), x [4, 8]: one group of vector ops, a FusedElementwise node for
// TbeEltwiseFusionPass and one kernel for the online compiler.
inline std::string eltwise_model(const std::string& dir) {
  onnx::ModelProto m;
  onnx::TensorShapeProto* x = start_model(m, "eltwise");
  x->add_dim()->set_dim_value(4);
  x->add_dim()->set_dim_value(8);
  auto* g = m.mutable_graph();
  for (auto [name, value] : {std::pair{"one", 1.0f}, std::pair{"half", 0.5f}}) {
    auto* c = g->add_initializer();
    c->set_name(name);
    c->set_data_type(onnx::TensorProto::FLOAT);
    c->add_float_data(value);
  }
  add_node(g, "Add", {"x", "one"}, "x1");
  add_node(g, "Mul", {"x1", "half"}, "xh");
  add_node(g, "Relu", {"xh"}, "y");
  g->add_output()->set_name("y");
  return save_model(m, dir + "/eltwise.onnx");
}

}  // namespace openge::oge::test
