// Which model node each output of a fused node is: fusion merges either way (a producer takes in
// its consumer and its output value, or the last node of a chain takes in the ones before it), and
// only the output value says which merged node computed it.
#include "ir/original_outputs.h"

#include <gtest/gtest.h>

namespace openge {
namespace {

Node node(const std::string& name, std::vector<int> outputs) {
  Node n;
  n.name = name;
  n.outputs = std::move(outputs);
  return n;
}

TEST(OriginalOutputs, ANodeNoPassMergedIsItsOwnOriginal) {
  const auto o = original_outputs(node("split", {3, 4}));
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[1].node, "split");
  EXPECT_EQ(o[1].index, 1);
}

TEST(OriginalOutputs, AProducerThatTakesInItsConsumersOutputStandsForTheConsumer) {
  Node conv = node("conv", {9});  // set_output gave it the Relu's value 9
  const Node relu = node("relu", {9});
  inherit_original_outputs(conv, relu);
  const auto o = original_outputs(conv);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].node, "relu");
  EXPECT_EQ(o[0].index, 0);
}

TEST(OriginalOutputs, AConsumerThatTakesInItsProducersStaysItself) {
  Node add = node("add", {7});
  inherit_original_outputs(add, node("mul", {6}));
  EXPECT_EQ(original_outputs(add)[0].node, "add");
}

TEST(OriginalOutputs, ChainsCarryTheOriginalThrough) {
  // matmul takes in add (value 5), then the fused node is taken into another: the original of
  // value 5 stays 'add', output index 1 of a two-output node kept.
  Node inner = node("matmul", {5});
  inherit_original_outputs(inner, node("add", {8, 5}));
  EXPECT_EQ(original_outputs(inner)[0].node, "add");
  EXPECT_EQ(original_outputs(inner)[0].index, 1);
  Node outer = node("outer", {5});
  inherit_original_outputs(outer, inner);
  EXPECT_EQ(original_outputs(outer)[0].node, "add");
  EXPECT_EQ(original_outputs(outer)[0].index, 1);
}

}  // namespace
}  // namespace openge
