// The AI Core kernels of training graphs (kernels/onednn_conv_train.cpp): a Conv whose weights
// are an input, and ConvGrad, run on oneDNN and agree with the reference kernels (float32).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autodiff/training_graph.h"
#include "compiler/pipeline.h"
#include "ops/gradient.h"

namespace openge {
namespace {

Tensor random_tensor(Shape shape, std::mt19937& rng) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

int add_constant(Graph& g, const std::string& name, Tensor t) {
  const int v = g.add_value(name);
  g.values[static_cast<size_t>(v)].dtype = t.dtype();
  g.values[static_cast<size_t>(v)].shape = t.shape();
  g.values[static_cast<size_t>(v)].constant = std::move(t);
  return v;
}

// y = Conv(x, w, b) (group 2, stride 2, pads), loss = sum(y * r); with `relu`, sum(Relu(y) * r).
Graph conv_model(std::mt19937& rng, bool relu = false) {
  Graph g;
  g.opset = 17;
  const int x = add_constant(g, "x", random_tensor({4, 8, 11, 9}, rng));
  const int w = add_constant(g, "w", random_tensor({6, 4, 3, 3}, rng));
  const int b = add_constant(g, "b", random_tensor({6}, rng));
  const int y = g.add_value("y"), yr = g.add_value("yr"), loss = g.add_value("loss");
  Node conv{"conv", "Conv", "", {x, w, b}, {y}, {}, {}, false, ""};
  conv.attrs.set("group", int_attr(2));
  conv.attrs.set("strides", ints_attr({2, 2}));
  conv.attrs.set("pads", ints_attr({1, 0, 1, 1}));
  g.nodes.push_back(conv);
  int activated = y;
  if (relu) {
    activated = g.add_value("y_relu");
    g.nodes.push_back(Node{"relu", "Relu", "", {y}, {activated}, {}, {}, false, ""});
  }
  const int r = add_constant(g, "r", random_tensor({4, 6, 6, 4}, rng));
  g.nodes.push_back(Node{"mul", "Mul", "", {activated, r}, {yr}, {}, {}, false, ""});
  Node sum{"sum", "ReduceSum", "", {yr}, {loss}, {}, {}, false, ""};
  sum.attrs.set("keepdims", int_attr(0));
  g.nodes.push_back(sum);
  g.outputs = {loss};
  return g;
}

TEST(AiCoreTrainingKernels, ConvAndConvGradRunOnOneDnnAndAgreeWithTheReference) {
  std::mt19937 rng(3);
  autodiff::TrainingSpec spec;
  spec.output = "loss";
  spec.trainable = {"x", "w", "b"};
  auto tg = autodiff::build_training_graph(conv_model(rng), {}, spec);
  ASSERT_TRUE(tg.ok()) << tg.status().message();
  std::vector<Shape> shapes;
  for (const Tensor& t : tg->initial_values) shapes.push_back(t.shape());
  std::vector<Tensor> inputs = tg->initial_values;
  inputs.push_back(autodiff::loss_scale_tensor(tg->graph, 1.0f));
  shapes.push_back(inputs.back().shape());
  std::vector<std::vector<Tensor>> results;
  for (bool aicore : {true, false}) {
    CompileOptions co;
    co.use_aicore = aicore;
    auto exe = compiler::compile(tg->graph, shapes, co);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    if (aicore) {
      int on_aicore = 0;
      for (const CompiledNode& n : (*exe)->nodes())
        if ((n.node.op_type == "Conv" || n.node.op_type == "ConvGrad") && n.engine == Engine::kAiCore) ++on_aicore;
      EXPECT_EQ(on_aicore, 2) << "Conv with input weights and ConvGrad on the AI Core engine";
    }
    auto out = (*exe)->run(inputs);
    ASSERT_TRUE(out.ok()) << out.status().message();
    results.push_back(std::move(out.value()));
  }
  for (size_t o = 0; o < results[0].size(); ++o) {
    const Tensor &a = results[0][o], &b = results[1][o];
    ASSERT_EQ(a.shape(), b.shape());
    double scale = 1e-6;
    for (int64_t i = 0; i < b.numel(); ++i) scale = std::max(scale, std::fabs(static_cast<double>(b.data<float>()[i])));
    for (int64_t i = 0; i < b.numel(); ++i)
      ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-4 * scale) << "output " << o << " element " << i;
  }
}

// A Conv whose trainable weights are an input keeps its Relu apart: oneDNN's fused convolution
// packs constant weights, and a FusedConv with run-time weights would run on the reference engine.
TEST(AiCoreTrainingKernels, ConvWithTrainedWeightsKeepsItsActivationApartAndRunsOnOneDnn) {
  std::mt19937 rng(5);
  autodiff::TrainingSpec spec;
  spec.output = "loss";
  spec.trainable = {"w", "b"};
  auto tg = autodiff::build_training_graph(conv_model(rng, /*relu=*/true), {}, spec);
  ASSERT_TRUE(tg.ok()) << tg.status().message();
  std::vector<Shape> shapes;
  for (const Tensor& t : tg->initial_values) shapes.push_back(t.shape());
  shapes.push_back(autodiff::loss_scale_tensor(tg->graph, 1.0f).shape());
  auto exe = compiler::compile(tg->graph, shapes, CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int convs = 0;
  for (const CompiledNode& n : (*exe)->nodes()) {
    if (n.node.op_type != "Conv" && n.node.op_type != "FusedConv") continue;
    ++convs;
    EXPECT_EQ(n.node.op_type, "Conv") << "the Relu was fused into a convolution whose weights change every step";
    EXPECT_EQ(n.engine, Engine::kAiCore) << n.node.op_type << " on the reference engine";
  }
  EXPECT_EQ(convs, 1);
}

}  // namespace
}  // namespace openge
