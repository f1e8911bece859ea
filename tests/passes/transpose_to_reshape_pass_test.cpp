// TransposeToReshapePass: a Transpose that moves only size-1 dimensions becomes a Reshape (a view:
// no kernel, no copy); one that reorders two larger dimensions stays. The reference engine's
// Transpose kernel on the unrewritten graph is the oracle: the outputs must be bit-identical.
#include "../kernels/kernel_test_util.h"
#include "pass_test_util.h"

namespace openge::testing {
namespace {

constexpr double kExact = 1e-30;  // the rewrite moves no element: only an exact match passes

Graph transpose_of(Shape shape, std::optional<std::vector<int64_t>> perm) {
  GraphBuilder b;
  const int x = b.input("x", shape);
  const int y = b.node("Transpose", {x}, perm ? ints_attr("perm", *perm) : Attributes{});
  b.g.outputs = {b.node("Relu", {y})};  // a reader, so the view is consumed inside the graph
  return b.g;
}

TEST(TransposeToReshapePass, BertsBatchAndSequenceSwapOfBatchOneIsAView) {
  Graph g = transpose_of({1, 5, 6}, std::vector<int64_t>{1, 0, 2});  // (1,128,768) -> (128,1,768)
  const PassResult r = fuse_and_compare(g, "TransposeToReshapePass", {random_tensor({1, 5, 6}, 1)}, kExact);
  EXPECT_EQ(r.matched, 1);
  EXPECT_EQ(r.applied, 1);
  EXPECT_EQ(count_ops(g, "Transpose"), 0);
  ASSERT_EQ(count_ops(g, "Reshape"), 1);
  const Node& reshape = g.nodes[0];
  ASSERT_EQ(reshape.inputs.size(), 2u);
  const Value& shape_value = g.values[static_cast<size_t>(reshape.inputs[1])];
  ASSERT_TRUE(shape_value.constant);
  const Tensor* shape = &*shape_value.constant;
  ASSERT_EQ(shape->shape(), (Shape{3}));
  EXPECT_EQ(shape->data<int64_t>()[0], 5);
  EXPECT_EQ(shape->data<int64_t>()[1], 1);
  EXPECT_EQ(shape->data<int64_t>()[2], 6);
}

TEST(TransposeToReshapePass, GlobalPoolBackToNchwIsAView) {
  Graph g = transpose_of({1, 1, 1, 7}, std::vector<int64_t>{0, 3, 1, 2});  // the layout pass's (1,1,1,C) -> (1,C,1,1)
  EXPECT_EQ(fuse_and_compare(g, "TransposeToReshapePass", {random_tensor({1, 1, 1, 7}, 2)}, kExact).applied, 1);
  EXPECT_EQ(count_ops(g, "Transpose"), 0);
}

TEST(TransposeToReshapePass, DefaultPermutationReversingAroundOneLargeDimIsAView) {
  Graph g = transpose_of({1, 9, 1}, std::nullopt);  // reversed: (1,9,1) -> (1,9,1)
  EXPECT_EQ(fuse_and_compare(g, "TransposeToReshapePass", {random_tensor({1, 9, 1}, 3)}, kExact).applied, 1);
}

TEST(TransposeToReshapePass, ReorderingTwoLargerDimensionsIsLeftAlone) {
  Graph a = transpose_of({1, 4, 6}, std::vector<int64_t>{0, 2, 1});
  EXPECT_EQ(fuse_and_compare(a, "TransposeToReshapePass", {random_tensor({1, 4, 6}, 4)}, kExact).matched, 0);
  EXPECT_EQ(count_ops(a, "Transpose"), 1);
  Graph b = transpose_of({2, 1, 3}, std::vector<int64_t>{2, 1, 0});  // the unit dim stays, 2 and 3 swap
  EXPECT_EQ(fuse_and_compare(b, "TransposeToReshapePass", {random_tensor({2, 1, 3}, 5)}, kExact).matched, 0);
  EXPECT_EQ(count_ops(b, "Transpose"), 1);
}

TEST(TransposeToReshapePass, UnknownOrEmptyShapesAreLeftAlone) {
  Graph g = transpose_of({1, 4, 6}, std::vector<int64_t>{1, 0, 2});
  g.values[static_cast<size_t>(g.inputs[0])].shape.reset();  // the pass runs on inferred shapes only
  EXPECT_EQ(run_pass(g, "TransposeToReshapePass").matched, 0);
  Graph empty = transpose_of({1, 0, 6}, std::vector<int64_t>{1, 0, 2});  // Reshape would read the 0 as "keep"
  EXPECT_EQ(fuse_and_compare(empty, "TransposeToReshapePass", {Tensor(DType::kFloat32, {1, 0, 6})}, kExact).matched, 0);
}

}  // namespace
}  // namespace openge::testing
