// A zero-sized dimension (a dynamic batch of 0) never reaches oneDNN, which divides by it while
// blocking (SIGFPE in matmul): MatMul, Gemm and Conv with an empty batch run and give empty outputs.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "frontend/model_proto_builder.h"
#include "openge/session.h"

namespace openge {
namespace {

// x [N, 4] -> MatMul, Gemm; image [N, 2, 5, 5] -> Conv 3x3, MaxPool.
std::string model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("zero_batch");
  test::add_float_input(g, "x", {-1, 4});
  test::add_float_input(g, "image", {-1, 2, 5, 5});
  auto half = [](int64_t) { return 0.5f; };
  test::add_float_initializer(g, "w", {4, 3}, half);
  test::add_float_initializer(g, "k", {3, 2, 3, 3}, half);
  test::add_node(g, "MatMul", {"x", "w"}, {"mm"});
  test::add_node(g, "Gemm", {"x", "w"}, {"gemm"});
  test::add_node(g, "Conv", {"image", "k"}, {"conv"});
  auto* pool = test::add_node(g, "MaxPool", {"image"}, {"pool"});
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
