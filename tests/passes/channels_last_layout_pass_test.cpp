// ChannelsLastLayoutPass: a Conv -> MaxPool -> Conv -> GlobalAveragePool chain runs in NHWC with
// exactly one conversion in and one out, and computes what the NCHW graph computes. The one out,
// after the global pool, moves only size-1 dimensions, so TransposeToReshapePass makes it a view.
#include "../kernels/kernel_test_util.h"
#include "ops/op_registry.h"
#include "pass_test_util.h"
#include "passes/pass_util.h"
#include "passes/stored_format_test_util.h"

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
    auto r = p.run(b.g, PassContext{});
    ASSERT_TRUE(r.ok()) << p.name << ": " << r.status().message();
  }
  EXPECT_EQ(count_ops(b.g, "Transpose"), 1);
  EXPECT_EQ(count_ops(b.g, "Reshape"), 1);
  EXPECT_EQ(count_ops_in_format(b.g, "MaxPool", ActivationFormat::kNhwc), 1);
  EXPECT_EQ(count_ops_in_format(b.g, "GlobalAveragePool", ActivationFormat::kNhwc), 1);
  EXPECT_EQ(count_ops(b.g, "FusedConv"), 2);
  EXPECT_EQ(count_ops(b.g, "Add"), 0);
  for (const Node& n : b.g.nodes)
    if (n.op_type == "FusedConv") {
      EXPECT_EQ(n.attrs.get_int("channels_last", 0), 1);
    }
  const auto after = eval_graph(b.g, in);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

Attributes resize_attrs() {
  Attributes a;
  Attribute mode;
  mode.kind = Attribute::Kind::kString;
  mode.s = "linear";
  a.set("mode", mode);
  return a;
}

Tensor sizes_of(std::vector<int64_t> v) {
  Tensor t(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

const Node* only_node(const Graph& g, const std::string& op) {
  const Node* found = nullptr;
  for (const Node& n : g.nodes)
    if (n.op_type == op) found = &n;
  return found;
}

// LR-ASPP's middle upsampling (Conv -> Resize -> Conv): the Resize runs on the NHWC value with its
// sizes permuted, so the region needs no conversion around it.
TEST(ChannelsLastLayoutPass, ResizeBetweenConvsRunsInNhwc) {
  GraphBuilder b;
  const int x = b.input("x");
  int y = b.node("Conv", {x, b.constant("w1", random_tensor({8, 3, 1, 1}, 1))});
  y = b.node("Resize", {y, -1, -1, b.constant("sizes", sizes_of({1, 8, 12, 10}))}, resize_attrs());
  y = b.node("Conv", {y, b.constant("w2", random_tensor({4, 8, 3, 3}, 2))}, ints_attr("pads", {1, 1, 1, 1}));
  b.g.outputs = {y};
  const std::vector<Tensor> in{random_tensor({1, 3, 6, 5}, 3)};
  const PassResult r = fuse_and_compare(b.g, "ChannelsLastLayoutPass", in, 1e-5);
  EXPECT_EQ(r.applied, 3);
  EXPECT_EQ(count_ops(b.g, "Transpose"), 2);  // the model's input and output only
  const Node* resize = only_node(b.g, "Resize");
  ASSERT_NE(resize, nullptr);
  EXPECT_EQ(*b.g.values[static_cast<size_t>(resize->outputs[0])].shape, Shape({1, 12, 10, 8}));
  const Tensor* sizes = passes::constant_of(b.g, resize->inputs[3]);
  ASSERT_NE(sizes, nullptr);
  EXPECT_EQ(std::vector<int64_t>(sizes->data<int64_t>(), sizes->data<int64_t>() + 4),
            std::vector<int64_t>({1, 12, 10, 8}));
}

// The final upsampling of a segmentation model writes the graph output: it stays NCHW, so the
// region converts its small input rather than its large output.
TEST(ChannelsLastLayoutPass, ResizeToTheGraphOutputStaysNchw) {
  GraphBuilder b;
  const int x = b.input("x");
  int y = b.node("Conv", {x, b.constant("w1", random_tensor({8, 3, 1, 1}, 1))});
  y = b.node("Resize", {y, -1, -1, b.constant("sizes", sizes_of({1, 8, 24, 20}))}, resize_attrs());
  b.g.outputs = {y};
  const std::vector<Tensor> in{random_tensor({1, 3, 6, 5}, 3)};
  fuse_and_compare(b.g, "ChannelsLastLayoutPass", in, 1e-5);
  const Node* resize = only_node(b.g, "Resize");
  ASSERT_NE(resize, nullptr);
  EXPECT_EQ(*b.g.values[static_cast<size_t>(resize->inputs[0])].shape, Shape({1, 8, 6, 5}));
}

// DenseNet's transition (Conv -> Pad -> AveragePool, PyTorch's export of AvgPool2d): the Pad runs
// on the NHWC value with its begins and ends permuted (N, H, W, C each).
TEST(ChannelsLastLayoutPass, PadBetweenConvAndPoolRunsInNhwc) {
  GraphBuilder b;
  const int x = b.input("x");
  int y = b.node("Conv", {x, b.constant("w1", random_tensor({8, 3, 1, 1}, 1))});
  y = b.node("Pad", {y, b.constant("pads", sizes_of({0, 0, 1, 2, 0, 0, 3, 0}))});
  y = b.node("AveragePool", {y}, ints_attr("kernel_shape", {2, 2}, ints_attr("strides", {2, 2})));
  b.g.outputs = {y};
  const std::vector<Tensor> in{random_tensor({1, 3, 6, 5}, 3)};
  const PassResult r = fuse_and_compare(b.g, "ChannelsLastLayoutPass", in, 1e-5);
  EXPECT_EQ(r.applied, 3);
  EXPECT_EQ(count_ops(b.g, "Transpose"), 2);
  const Node* pad = only_node(b.g, "Pad");
  ASSERT_NE(pad, nullptr);
  const Tensor* pads = passes::constant_of(b.g, pad->inputs[1]);
  ASSERT_NE(pads, nullptr);
  EXPECT_EQ(std::vector<int64_t>(pads->data<int64_t>(), pads->data<int64_t>() + 8),
            std::vector<int64_t>({0, 1, 2, 0, 0, 3, 0, 0}));
}

}  // namespace
}  // namespace openge::testing
