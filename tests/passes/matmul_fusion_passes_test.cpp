// MatMul fusion passes on a BERT-like feed-forward block: MatMul + bias -> GELU (erf form, made
// one Gelu node by GeluONNXFusionPass) -> MatMul + bias -> + residual. The fused graph computes what the unfused graph
// computes.
#include "../kernels/kernel_test_util.h"
#include "ops/op_registry.h"
#include "pass_test_util.h"

namespace openge::testing {
namespace {

// variant 0: Div -> Erf -> Add -> Mul(x, ·) -> Mul(0.5); variant 1: Mul(x, 0.5) -> Mul(·, 1+erf).
Graph ffn(int gelu_variant) {
  GraphBuilder b;
  const int x = b.input("x");
  int h = b.node("MatMul", {x, b.constant("w1", random_tensor({16, 32}, 1))});
  h = b.node("Add", {b.constant("b1", random_tensor({32}, 2)), h});  // bias first: either order
  const int d = b.node("Div", {h, b.constant("sqrt2", scalar(1.4142135f))});
  const int e = b.node("Erf", {d});
  const int one_plus = b.node("Add", {e, b.constant("one", scalar(1.0f))});
  int g;
  if (gelu_variant == 0) {
    const int m = b.node("Mul", {h, one_plus});
    g = b.node("Mul", {m, b.constant("half", scalar(0.5f))});
  } else {
    const int m = b.node("Mul", {h, b.constant("half", scalar(0.5f))});
    g = b.node("Mul", {m, one_plus});
  }
  int y = b.node("MatMul", {g, b.constant("w2", random_tensor({32, 16}, 3))});
  Tensor b2 = random_tensor({1, 16}, 4);
  y = b.node("Add", {y, b.constant("b2", b2)});
  y = b.node("Add", {y, x});  // residual
  b.g.outputs = {y};
  return std::move(b.g);
}

bool have_reference_ops() {
  for (const char* op : {"MatMul", "Add", "Div", "Erf", "Mul"})
    if (!find_op_schema(op)) return false;
  return true;
}

TEST(MatMulFusionPasses, FeedForwardBlockBecomesTwoFusedMatMuls) {
  if (!have_reference_ops()) GTEST_SKIP() << "reference MatMul/elementwise ops not registered";
  for (int variant : {0, 1}) {
    Graph g = ffn(variant);
    const std::vector<Tensor> in{random_tensor({2, 5, 16}, 9)};
    const auto before = eval_graph(g, in, true);
    EXPECT_EQ(run_pass(g, "MatMulBiasAddFusionPass").applied, 2);
    EXPECT_EQ(run_pass(g, "GeluONNXFusionPass").applied, 1);
    EXPECT_EQ(run_pass(g, "TbeBatchMatmulElementWiseFusionPass").applied, 1);
    EXPECT_EQ(run_pass(g, "ATbeMatMulElemwiseFusionPass").applied, 1);
    ASSERT_EQ(g.nodes.size(), 2u) << variant;
    EXPECT_EQ(count_ops(g, "FusedMatMul"), 2);
    const auto after = eval_graph(g, in);
    EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5) << variant;
  }
}

TEST(MatMulBiasAddFusionPass, IgnoresNonRowBias) {
  if (!have_reference_ops()) GTEST_SKIP();
  GraphBuilder b;
  const int x = b.input("x");
  int y = b.node("MatMul", {x, b.constant("w", random_tensor({4, 3}, 1))});
  y = b.node("Add", {y, b.constant("c", random_tensor({2, 1}, 2))});  // broadcast along rows, not a bias
  b.g.outputs = {y};
  eval_graph(b.g, {random_tensor({2, 4}, 3)}, true);
  const PassResult r = run_pass(b.g, "MatMulBiasAddFusionPass");
  EXPECT_EQ(r.applied, 0);
  EXPECT_EQ(count_ops(b.g, "Add"), 1);
}

TEST(GeluONNXFusionPass, GeluWithExtraReaderIsNotFused) {
  if (!have_reference_ops()) GTEST_SKIP();
  Graph g = ffn(0);
  eval_graph(g, {random_tensor({2, 5, 16}, 9)}, true);
  // Expose the Erf output: the pattern is no longer private to the fused op.
  for (const Node& n : g.nodes)
    if (n.op_type == "Erf") g.outputs.push_back(n.outputs[0]);
  run_pass(g, "MatMulBiasAddFusionPass");
  EXPECT_EQ(run_pass(g, "GeluONNXFusionPass").applied, 0);
  EXPECT_EQ(run_pass(g, "ATbeMatMulElemwiseFusionPass").applied, 0);
  EXPECT_EQ(count_ops(g, "Erf"), 1);
}

}  // namespace
}  // namespace openge::testing
