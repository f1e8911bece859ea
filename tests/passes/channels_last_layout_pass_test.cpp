// ChannelsLastLayoutPass: a Conv -> MaxPool -> Conv -> GlobalAveragePool chain runs in NHWC with
// exactly one conversion in and one out, and computes what the NCHW graph computes. The one out,
// after the global pool, moves only size-1 dimensions, so TransposeToReshapePass makes it a view.
#include "../kernels/kernel_test_util.h"
#include "ops/op_registry.h"
#include "pass_test_util.h"

namespace openge::testing {
namespace {

TEST(ChannelsLastLayoutPass, ConvChainConvertsOnlyAtTheBoundaries) {
  for (const char* op : {"Conv", "MaxPool", "GlobalAveragePool", "Relu", "Transpose", "Flatten"})
    if (!find_op_schema(op)) GTEST_SKIP() << op << " not registered";
  GraphBuilder b;
  const int x = b.input("x");
  int y = b.node("Conv", {x, b.constant("w1", random_tensor({8, 3, 3, 3}, 1))}, ints_attr("pads", {1, 1, 1, 1}));
  y = b.node("Relu", {y});
  Attributes pool = ints_attr("kernel_shape", {3, 3}, ints_attr("strides", {2, 2}, ints_attr("pads", {1, 1, 1, 1})));
  y = b.node("MaxPool", {y}, pool);
  const int branch = y;
  y = b.node("Conv", {y, b.constant("w2", random_tensor({8, 8, 1, 1}, 2)), b.constant("b2", random_tensor({8}, 3))});
  y = b.node("Add", {y, branch});
  y = b.node("GlobalAveragePool", {y});
  y = b.node("Flatten", {y});
  b.g.outputs = {y};
  const std::vector<Tensor> in{random_tensor({1, 3, 10, 10}, 4)};
  const auto before = eval_graph(b.g, in, true);
  for (const Pass& p : all_passes()) {
    auto r = p.run(b.g);
    ASSERT_TRUE(r.ok()) << p.name << ": " << r.status().message();
  }
  EXPECT_EQ(count_ops(b.g, "Transpose"), 1);
  EXPECT_EQ(count_ops(b.g, "Reshape"), 1);
  EXPECT_EQ(count_ops(b.g, "NhwcMaxPool"), 1);
  EXPECT_EQ(count_ops(b.g, "NhwcGlobalAveragePool"), 1);
  EXPECT_EQ(count_ops(b.g, "FusedConv"), 2);
  EXPECT_EQ(count_ops(b.g, "Add"), 0);
  for (const Node& n : b.g.nodes)
    if (n.op_type == "FusedConv") { EXPECT_EQ(n.attrs.get_int("channels_last", 0), 1); }
  const auto after = eval_graph(b.g, in);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

}  // namespace
}  // namespace openge::testing
