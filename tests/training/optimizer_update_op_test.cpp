// The in-graph optimizer update (ops/training/optimizer_update_op.cpp): compiled into a graph
// beside a node that reads the same weights, it updates them in place, after that reader, to the
// bits training::Optimizer gives; a graph where it would update a computed value is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "autodiff/training_graph.h"
#include "compiler/pipeline.h"
#include "ops/training/optimizer_update_op.h"
#include "training/optimizer.h"

namespace openge {
namespace {

Attribute float_attr(float f) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = f;
  return a;
}

Node update_node(const training::OptimizerConfig& c, std::vector<int> inputs, int output) {
  Node n{"update", std::string(kOptimizerUpdateOp), "", std::move(inputs), {output}, {}, {}, false, ""};
  Attribute rule;
  rule.kind = Attribute::Kind::kString;
  rule.s = training::optimizer_name(c.kind);
  n.attrs.set("rule", rule);
  n.attrs.set("momentum", float_attr(c.momentum));
  n.attrs.set("weight_decay", float_attr(c.weight_decay));
  n.attrs.set("beta1", float_attr(c.beta1));
  n.attrs.set("beta2", float_attr(c.beta2));
  n.attrs.set("epsilon", float_attr(c.epsilon));
  return n;
}

// Inputs hyper, step, w, g and the rule's states; the update node first in the list, then
// y = w * w, which reads the weights the update overwrites. Outputs y and the update's step.
Graph update_graph(const training::OptimizerConfig& c, const Shape& shape) {
  Graph g;
  g.opset = 17;
  std::vector<int> in = {autodiff::add_graph_input(g, "hyper", DType::kFloat32, {2}),
                         autodiff::add_graph_input(g, "step", DType::kInt64, {}),
                         autodiff::add_graph_input(g, "w", DType::kFloat32, shape),
                         autodiff::add_graph_input(g, "g", DType::kFloat32, shape)};
  for (size_t k = 0; k < optimizer_rule_states(c.kind); ++k)
    in.push_back(autodiff::add_graph_input(g, "state" + std::to_string(k), DType::kFloat32, shape));
  const int w = in[2], done = g.add_value("done"), y = g.add_value("y");
  g.nodes.push_back(update_node(c, in, done));
  g.nodes.push_back(Node{"square", "Mul", "", {w, w}, {y}, {}, {}, false, ""});
  g.outputs = {y, done};
  return g;
}

Tensor random_tensor(const Shape& shape, std::mt19937& rng) {
  Tensor t(DType::kFloat32, shape);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(OptimizerUpdateOp, UpdatesInPlaceAfterEveryReaderToTheOptimizersBits) {
  using training::OptimizerKind;
  const Shape shape = {5, 7};
  const float grad_scale = 0.5f;
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kMomentum, OptimizerKind::kNesterov,
                             OptimizerKind::kAdam, OptimizerKind::kAdamW, OptimizerKind::kLamb}) {
    SCOPED_TRACE(training::optimizer_name(kind));
    training::OptimizerConfig c;
    c.kind = kind;
    c.lr = 0.05f;
    c.weight_decay = 0.01f;
    const size_t per = optimizer_rule_states(kind);
    std::vector<Shape> shapes = {{2}, {}, shape, shape};
    for (size_t k = 0; k < per; ++k) shapes.push_back(shape);
    auto exe = compiler::compile(update_graph(c, shape), shapes, CompileOptions{});
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    EXPECT_EQ((*exe)->nodes().back().node.op_type, kOptimizerUpdateOp) << "the update runs last";

    std::mt19937 rng(7);
    Tensor w = random_tensor(shape, rng);
    const float* storage = w.data<float>();
    std::vector<Tensor> states;
    for (size_t k = 0; k < per; ++k) states.emplace_back(DType::kFloat32, shape);
    training::Optimizer reference(c);
    std::vector<Tensor> reference_w = {w.clone()};
    Tensor hyper(DType::kFloat32, {2}), step(DType::kInt64, {});
    hyper.data<float>()[0] = c.lr;
    hyper.data<float>()[1] = grad_scale;
    for (int64_t s = 1; s <= 3; ++s) {
      const Tensor grad = random_tensor(shape, rng);
      const Tensor before = w.clone();
      step.data<int64_t>()[0] = s;
      std::vector<Tensor> inputs = {hyper, step, w, grad};
      inputs.insert(inputs.end(), states.begin(), states.end());
      auto out = (*exe)->run(inputs);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_EQ((*out)[1].scalar_as_int(), s);
      for (int64_t i = 0; i < w.numel(); ++i)
        ASSERT_EQ((*out)[0].data<float>()[i], before.data<float>()[i] * before.data<float>()[i])
            << "the reader of w saw the updated weights, step " << s;
      ASSERT_TRUE(reference.step(reference_w, {grad}, grad_scale).ok());
      EXPECT_EQ(w.data<float>(), storage) << "the weights stay where they are";
      EXPECT_FALSE(same_bits(w, before)) << "step " << s << " left the weights as they were";
      EXPECT_TRUE(same_bits(w, reference_w[0])) << "step " << s;
      for (size_t k = 0; k < per; ++k) EXPECT_TRUE(same_bits(states[k], reference.state()[k])) << "state " << k;
    }
  }
}

TEST(OptimizerUpdateOp, CompileRefusesAnUpdateOfAComputedValue) {
  training::OptimizerConfig c;
  Graph g;
  g.opset = 17;
  const int hyper = autodiff::add_graph_input(g, "hyper", DType::kFloat32, {2}),
            step = autodiff::add_graph_input(g, "step", DType::kInt64, {});
  const int w = autodiff::add_graph_input(g, "w", DType::kFloat32, {4}),
            grad = autodiff::add_graph_input(g, "g", DType::kFloat32, {4});
  const int relu = g.add_value("relu_w"), done = g.add_value("done");
  g.nodes.push_back(Node{"relu", "Relu", "", {w}, {relu}, {}, {}, false, ""});
  g.nodes.push_back(update_node(c, {hyper, step, relu, grad}, done));
  g.outputs = {done};
  auto exe = compiler::compile(std::move(g), {{2}, {}, {4}, {4}}, CompileOptions{});
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("'relu_w' in place, which is not a graph input"), std::string::npos)
      << exe.status().message();
}

}  // namespace
}  // namespace openge
