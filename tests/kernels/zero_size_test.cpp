// A zero-sized dimension (a dynamic batch of 0) never reaches oneDNN, which divides by it while
// blocking (SIGFPE in matmul): MatMul, Gemm and Conv with an empty batch run and give empty outputs.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "openge/session.h"

namespace openge {
namespace {

void add_weight(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f);
}

// x [N, 4] -> MatMul, Gemm; image [N, 2, 5, 5] -> Conv 3x3, MaxPool.
std::string model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("zero_batch");
  auto input = [&](const char* name, std::vector<int64_t> dims) {
    auto* v = g->add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_param("N");
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  input("x", {4});
  input("image", {2, 5, 5});
  add_weight(g, "w", {4, 3});
  add_weight(g, "k", {3, 2, 3, 3});
  auto node = [&](const char* op, std::vector<std::string> in, const char* out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  node("MatMul", {"x", "w"}, "mm");
  node("Gemm", {"x", "w"}, "gemm");
  node("Conv", {"image", "k"}, "conv");
  auto* pool = node("MaxPool", {"image"}, "pool");
  auto* ks = pool->add_attribute();
  ks->set_name("kernel_shape");
  ks->set_type(onnx::AttributeProto::INTS);
  ks->add_ints(2);
  ks->add_ints(2);
  for (const char* o : {"mm", "gemm", "conv", "pool"}) g->add_output()->set_name(o);
  return m.SerializeAsString();
}

TEST(ZeroSize, EmptyBatchRunsWithoutReachingOneDnn) {
  const std::string bytes = model();
  auto session = Session::open_from_memory(bytes.data(), bytes.size());
  ASSERT_TRUE(session.ok()) << session.status().message();
  RunInfo info;
  auto out = (*session)->run({Tensor(DType::kFloat32, {0, 4}), Tensor(DType::kFloat32, {0, 2, 5, 5})}, &info);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3}));
  EXPECT_EQ((*out)[1].shape(), (Shape{0, 3}));
  EXPECT_EQ((*out)[2].shape(), (Shape{0, 3, 3, 3}));
  EXPECT_EQ((*out)[3].shape(), (Shape{0, 2, 4, 4}));
  EXPECT_EQ(info.aicore_nodes, 0);
  // The same session with a batch of 2 still runs them on the AI Core engine.
  auto two = (*session)->run({Tensor(DType::kFloat32, {2, 4}), Tensor(DType::kFloat32, {2, 2, 5, 5})}, &info);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_GE(info.aicore_nodes, 3);
  EXPECT_FLOAT_EQ((*two)[0].data<float>()[0], 0.0f);
}

}  // namespace
}  // namespace openge
