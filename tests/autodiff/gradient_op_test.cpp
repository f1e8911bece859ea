// The ONNX preview-training domain's Gradient op runs on autodiff's machinery: a model that asks
// for d y / d x and d y / d w through a Gradient node gets them from a Session.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "frontend/model_proto_builder.h"
#include "openge/session.h"

namespace openge {
namespace {

// y = sum(tanh(x * w)), and Gradient(xs = [x, w], y = y) -> dx, dw.
std::string gradient_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* training = m.add_opset_import();
  training->set_domain("ai.onnx.preview.training");
  training->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("gradient");
  test::add_float_input(g, "x", {2, 3});
  test::add_float_input(g, "w", {2, 3});
  test::add_node(g, "Mul", {"x", "w"}, {"p"});
  test::add_node(g, "Tanh", {"p"}, {"t"});
  auto* sum = test::add_node(g, "ReduceSum", {"t"}, {"y"});
  auto* keep = sum->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  auto* grad = test::add_node(g, "Gradient", {"x", "w"}, {"dx", "dw"}, "ai.onnx.preview.training");
  auto* xs = grad->add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("x");
  xs->add_strings("w");
  auto* y = grad->add_attribute();
  y->set_name("y");
  y->set_type(onnx::AttributeProto::STRING);
  y->set_s("y");
  for (const char* o : {"y", "dx", "dw"}) g->add_output()->set_name(o);
  return m.SerializeAsString();
}

TEST(GradientOp, PreviewTrainingGradientGivesTheAnalyticGradients) {
  const std::string bytes = gradient_model();
  auto session = Session::open_from_memory(bytes.data(), bytes.size());
  ASSERT_TRUE(session.ok()) << session.status().message();
  Tensor x(DType::kFloat32, {2, 3}), w(DType::kFloat32, {2, 3});
  for (int i = 0; i < 6; ++i) {
    x.data<float>()[i] = 0.3f * static_cast<float>(i) - 0.8f;
    w.data<float>()[i] = 0.5f - 0.2f * static_cast<float>(i);
  }
  auto out = (*session)->run({x, w});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 3u);
  for (int i = 0; i < 6; ++i) {
    const double xi = x.data<float>()[i], wi = w.data<float>()[i];
    const double d = 1 - std::tanh(xi * wi) * std::tanh(xi * wi);
    EXPECT_NEAR((*out)[1].data<float>()[i], wi * d, 1e-5) << "dx " << i;
    EXPECT_NEAR((*out)[2].data<float>()[i], xi * d, 1e-5) << "dw " << i;
  }
}

}  // namespace
}  // namespace openge
