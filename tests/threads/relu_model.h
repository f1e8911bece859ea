// A one-node ONNX model, y = Relu(x) with x float32 of any rank-2 shape, serialized as a
// ModelProto: the smallest real model whose every new input shape means a new compile.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "openge/tensor.h"

namespace openge::testing {

inline std::string relu_model_bytes() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("relu");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("rows");
  tt->mutable_shape()->add_dim()->set_dim_param("cols");
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("relu1");
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

// rows x cols values cycling through -3 .. 3 from `offset`: Relu of it is known by hand.
inline Tensor ramp(int64_t rows, int64_t cols, int64_t offset = 0) {
  Tensor t(DType::kFloat32, {rows, cols});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>((i + offset) % 7 - 3);
  return t;
}

// Whether y is Relu(ramp(rows, cols, offset)), element by element.
inline bool is_relu_of_ramp(const Tensor& y, int64_t rows, int64_t cols, int64_t offset = 0) {
  if (y.shape() != Shape{rows, cols}) return false;
  for (int64_t i = 0; i < y.numel(); ++i) {
    const float x = static_cast<float>((i + offset) % 7 - 3);
    if (y.data<float>()[i] != (x > 0 ? x : 0.0f)) return false;
  }
  return true;
}

}  // namespace openge::testing
