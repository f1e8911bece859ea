// ShuffleChannelFusionPass: ShuffleNet's Reshape -> Transpose -> Reshape becomes one
// ShuffleChannel, and the unfused graph on the reference engine (Reshape and Transpose kernels)
// is the oracle: a shuffle moves elements, so the outputs must match exactly.
#include "../kernels/kernel_test_util.h"
#include "pass_test_util.h"

namespace openge::testing {
namespace {

constexpr double kExact = 1e-30;

Tensor i64s(std::vector<int64_t> v) {
  Tensor t(DType::kInt64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

// x (1, C, H, W) -> Conv -> Reshape (1, g, C/g, H, W) -> Transpose(perm) -> Reshape (1, C, H, W) -> Relu
Graph shuffle_graph(int64_t c, int64_t groups, std::vector<int64_t> perm, bool extra_reader = false) {
  GraphBuilder b;
  const int x = b.input("x");
  const int y = b.node("Conv", {x, b.constant("w", random_tensor({c, 3, 1, 1}, 1))});
  // Written as exporters do: 0 keeps a dimension, -1 is inferred.
  const int split = b.node("Reshape", {y, b.constant("split_shape", i64s({0, groups, -1, 5, 4}))});
  const int t = b.node("Transpose", {split}, ints_attr("perm", perm));
  const int merged = b.node("Reshape", {t, b.constant("merge_shape", i64s({1, -1, 5, 4}))});
  b.g.outputs = {b.node("Relu", {merged})};
  if (extra_reader) b.g.outputs.push_back(t);
  return b.g;
}

const std::vector<Tensor> kInput{random_tensor({1, 3, 5, 4}, 2)};

TEST(ShuffleChannelFusionPass, ReshapeTransposeReshapeBecomesOneShuffleChannel) {
  Graph g = shuffle_graph(6, 2, {0, 2, 1, 3, 4});
  const PassResult r = fuse_and_compare(g, "ShuffleChannelFusionPass", kInput, kExact);
  EXPECT_EQ(r.applied, 1);
  EXPECT_EQ(count_ops(g, "Reshape"), 0);
  EXPECT_EQ(count_ops(g, "Transpose"), 0);
  ASSERT_EQ(count_ops(g, "ShuffleChannel"), 1);
  for (const Node& n : g.nodes)
    if (n.op_type == "ShuffleChannel") {
      EXPECT_EQ(n.attrs.get_int("group", 0), 2);
      EXPECT_EQ(n.fused_from.size(), 3u);
    }
}

TEST(ShuffleChannelFusionPass, ThreeGroupsToo) {
  Graph g = shuffle_graph(12, 3, {0, 2, 1, 3, 4});
  EXPECT_EQ(fuse_and_compare(g, "ShuffleChannelFusionPass", kInput, kExact).applied, 1);
}

TEST(ShuffleChannelFusionPass, OtherPermutationsAreNotAShuffle) {
  Graph g = shuffle_graph(6, 2, {0, 1, 2, 4, 3});  // swaps H and W inside each group
  EXPECT_EQ(fuse_and_compare(g, "ShuffleChannelFusionPass", kInput, kExact).applied, 0);
  EXPECT_EQ(count_ops(g, "Transpose"), 1);
}

TEST(ShuffleChannelFusionPass, LeftAloneWhenTheFiveDimensionalValueHasAnotherReader) {
  Graph g = shuffle_graph(6, 2, {0, 2, 1, 3, 4}, /*extra_reader=*/true);
  EXPECT_EQ(fuse_and_compare(g, "ShuffleChannelFusionPass", kInput, kExact).applied, 0);
  EXPECT_EQ(count_ops(g, "ShuffleChannel"), 0);
}

TEST(ShuffleChannelFusionPass, TheLayoutPassKeepsTheShuffleBetweenConvolutionsInNhwc) {
  // Conv -> shuffle -> Conv: after every pass, one conversion in, one out, the shuffle in NHWC.
  GraphBuilder b;
  const int x = b.input("x");
  const int y = b.node("Conv", {x, b.constant("w", random_tensor({6, 3, 1, 1}, 1))});
  const int split = b.node("Reshape", {y, b.constant("split_shape", i64s({1, 2, 3, 5, 4}))});
  const int t = b.node("Transpose", {split}, ints_attr("perm", {0, 2, 1, 3, 4}));
  const int merged = b.node("Reshape", {t, b.constant("merge_shape", i64s({1, 6, 5, 4}))});
  b.g.outputs = {b.node("Conv", {merged, b.constant("w2", random_tensor({4, 6, 1, 1}, 3))})};
  const auto before = eval_graph(b.g, kInput, true);
  for (const Pass& p : all_passes()) ASSERT_TRUE(p.run(b.g, PassContext{}).ok()) << p.name;
  EXPECT_EQ(count_ops(b.g, "Transpose"), 2);
  ASSERT_EQ(count_ops(b.g, "ShuffleChannel"), 1);
  for (const Node& n : b.g.nodes)
    if (n.op_type == "ShuffleChannel") {
      EXPECT_EQ(n.attrs.get_int("channels_last", 0), 1);
    }
  const auto after = eval_graph(b.g, kInput);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

TEST(ShuffleChannelFusionPass, AShuffleNetUnitWithItsChannelSplitStaysInNhwc) {
  // Conv -> Slice channels [0, 4) and [4, 8) (the second with its axes given as -3) -> Conv on
  // the second half -> Concat -> shuffle -> Conv: one conversion in, one out; the Slices read NHWC
  // data with their axis moved to 3.
  GraphBuilder b;
  const int x = b.input("x");
  const int y = b.node("Conv", {x, b.constant("w", random_tensor({8, 3, 1, 1}, 1))});
  const int a =
      b.node("Slice", {y, b.constant("s0", i64s({0})), b.constant("e0", i64s({4})), b.constant("ax0", i64s({1}))});
  const int h =
      b.node("Slice", {y, b.constant("s1", i64s({4})), b.constant("e1", i64s({8})), b.constant("ax1", i64s({-3}))});
  const int c = b.node("Conv", {h, b.constant("w1", random_tensor({4, 4, 3, 3}, 4))}, ints_attr("pads", {1, 1, 1, 1}));
  Attributes axis1;
  set_int_attr_of(axis1, "axis", 1);
  const int cat = b.node("Concat", {a, c}, axis1);
  const int split = b.node("Reshape", {cat, b.constant("split_shape", i64s({1, 2, 4, 5, 4}))});
  const int t = b.node("Transpose", {split}, ints_attr("perm", {0, 2, 1, 3, 4}));
  const int merged = b.node("Reshape", {t, b.constant("merge_shape", i64s({1, 8, 5, 4}))});
  b.g.outputs = {b.node("Conv", {merged, b.constant("w2", random_tensor({4, 8, 1, 1}, 3))})};
  const auto before = eval_graph(b.g, kInput, true);
  for (const Pass& p : all_passes()) ASSERT_TRUE(p.run(b.g, PassContext{}).ok()) << p.name;
  EXPECT_EQ(count_ops(b.g, "Transpose"), 2);
  ASSERT_EQ(count_ops(b.g, "Slice"), 2);
  for (const Node& n : b.g.nodes)
    if (n.op_type == "Slice") {
      ASSERT_EQ(n.inputs.size(), 4u);
      const Value& axes = b.g.values[static_cast<size_t>(n.inputs[3])];
      ASSERT_TRUE(axes.constant);
      EXPECT_EQ(axes.constant->data<int64_t>()[0], 3) << n.name;
    }
  const auto after = eval_graph(b.g, kInput);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

TEST(ShuffleChannelFusionPass, ASliceWithoutAxesGetsTheNhwcPositionsOfTheLeadingAxes) {
  // starts/ends over axes 0 and 1 (implicit): in NHWC they become axes 0 and 3.
  GraphBuilder b;
  const int x = b.input("x");
  const int y = b.node("Conv", {x, b.constant("w", random_tensor({8, 3, 1, 1}, 1))});
  const int s = b.node("Slice", {y, b.constant("s", i64s({0, 2})), b.constant("e", i64s({1, 6}))});
  b.g.outputs = {b.node("Conv", {s, b.constant("w2", random_tensor({4, 4, 1, 1}, 3))})};
  const auto before = eval_graph(b.g, kInput, true);
  for (const Pass& p : all_passes()) ASSERT_TRUE(p.run(b.g, PassContext{}).ok()) << p.name;
  EXPECT_EQ(count_ops(b.g, "Transpose"), 2);
  for (const Node& n : b.g.nodes)
    if (n.op_type == "Slice") {
      const Tensor& axes = *b.g.values[static_cast<size_t>(n.inputs[3])].constant;
      ASSERT_EQ(axes.numel(), 2);
      EXPECT_EQ(axes.data<int64_t>()[0], 0);
      EXPECT_EQ(axes.data<int64_t>()[1], 3);
    }
  const auto after = eval_graph(b.g, kInput);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

}  // namespace
}  // namespace openge::testing
