// Sequence and optional ops on the reference engine; expected values worked out by hand.
#include <gtest/gtest.h>

#include "ops/op_test_util.h"

namespace openge {
namespace {
using testing::make_node;
using testing::make_tensor;
using testing::run_node;
using testing::set_int;

Tensor ints(Shape shape, std::initializer_list<int64_t> v) {
  return make_tensor<int64_t>(DType::kInt64, std::move(shape), v);
}
Tensor floats(Shape shape, std::initializer_list<float> v) {
  return make_tensor<float>(DType::kFloat32, std::move(shape), v);
}
Tensor scalar(int64_t v) { return ints({}, {v}); }

std::vector<int64_t> values(const Tensor& t) { return t.to_int64_vector(); }

Tensor seq_of(std::vector<Tensor> items) { return Tensor::sequence(DType::kInt64, std::move(items)); }

TEST(SequenceOps, ConstructAtLengthAndNegativePositions) {
  Tensor a = ints({2}, {1, 2}), b = ints({3}, {3, 4, 5});
  auto seq = run_node(make_node("SequenceConstruct", 2), {&a, &b});
  ASSERT_TRUE(seq.ok()) << seq.status().message();
  const Tensor& s = (*seq)[0];
  ASSERT_EQ(s.kind(), ValueKind::kSequence);
  ASSERT_EQ(s.elements().size(), 2u);

  auto len = run_node(make_node("SequenceLength", 1), {&s});
  ASSERT_TRUE(len.ok()) << len.status().message();
  EXPECT_EQ((*len)[0].scalar_as_int(), 2);

  Tensor last = scalar(-1);
  auto at = run_node(make_node("SequenceAt", 2), {&s, &last});
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ((*at)[0].shape(), (Shape{3}));
  EXPECT_EQ(values((*at)[0]), (std::vector<int64_t>{3, 4, 5}));

  Tensor out_of_range = scalar(2);
  EXPECT_FALSE(run_node(make_node("SequenceAt", 2), {&s, &out_of_range}).ok());
  Tensor too_negative = scalar(-3);
  EXPECT_FALSE(run_node(make_node("SequenceAt", 2), {&s, &too_negative}).ok());
}

TEST(SequenceOps, ConstructRefusesMixedDtypes) {
  Tensor a = ints({1}, {1});
  Tensor b = floats({1}, {1.0f});
  EXPECT_FALSE(run_node(make_node("SequenceConstruct", 2), {&a, &b}).ok());
}

TEST(SequenceOps, InsertAtBackFrontAndErase) {
  Tensor s = seq_of({ints({1}, {1}), ints({1}, {2})});
  Tensor t = ints({1}, {9});
  auto back = run_node(make_node("SequenceInsert", 2), {&s, &t});
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ((*back)[0].elements().size(), 3u);
  EXPECT_EQ(values((*back)[0].elements()[2]), (std::vector<int64_t>{9}));

  Tensor front_pos = scalar(-2);  // before element 0 of a 2-element sequence
  auto front = run_node(make_node("SequenceInsert", 3), {&s, &t, &front_pos});
  ASSERT_TRUE(front.ok()) << front.status().message();
  EXPECT_EQ(values((*front)[0].elements()[0]), (std::vector<int64_t>{9}));
  EXPECT_EQ(s.elements().size(), 2u);  // the input sequence is unchanged

  Tensor past_end = scalar(3);
  EXPECT_FALSE(run_node(make_node("SequenceInsert", 3), {&s, &t, &past_end}).ok());

  auto erased = run_node(make_node("SequenceErase", 1), {&s});  // default: the last one
  ASSERT_TRUE(erased.ok()) << erased.status().message();
  ASSERT_EQ((*erased)[0].elements().size(), 1u);
  EXPECT_EQ(values((*erased)[0].elements()[0]), (std::vector<int64_t>{1}));

  Tensor empty = seq_of({});
  EXPECT_FALSE(run_node(make_node("SequenceErase", 1), {&empty}).ok());
}

TEST(SequenceOps, InsertRefusesOtherDtype) {
  Tensor s = seq_of({});
  Tensor t = floats({1}, {1.0f});
  EXPECT_FALSE(run_node(make_node("SequenceInsert", 2), {&s, &t}).ok());
}

TEST(SequenceOps, EmptyHasTheDtypeAttribute) {
  Node n = make_node("SequenceEmpty", 0);
  set_int(n, "dtype", static_cast<int64_t>(DType::kInt32));
  auto s = run_node(n, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)[0].dtype(), DType::kInt32);
  EXPECT_TRUE((*s)[0].elements().empty());
}

TEST(SequenceOps, SplitToSequenceForms) {
  Tensor x = ints({3, 2}, {0, 1, 2, 3, 4, 5});
  auto ones = run_node(make_node("SplitToSequence", 1), {&x});  // pieces of 1 along axis 0
  ASSERT_TRUE(ones.ok()) << ones.status().message();
  ASSERT_EQ((*ones)[0].elements().size(), 3u);
  EXPECT_EQ((*ones)[0].elements()[1].shape(), (Shape{1, 2}));
  EXPECT_EQ(values((*ones)[0].elements()[1]), (std::vector<int64_t>{2, 3}));

  Node squeeze = make_node("SplitToSequence", 1);
  set_int(squeeze, "axis", 1);
  set_int(squeeze, "keepdims", 0);
  auto cols = run_node(squeeze, {&x});
  ASSERT_TRUE(cols.ok()) << cols.status().message();
  ASSERT_EQ((*cols)[0].elements().size(), 2u);
  EXPECT_EQ((*cols)[0].elements()[1].shape(), (Shape{3}));
  EXPECT_EQ(values((*cols)[0].elements()[1]), (std::vector<int64_t>{1, 3, 5}));

  Tensor two = scalar(2);  // pieces of 2, the last one shorter
  auto chunks = run_node(make_node("SplitToSequence", 2), {&x, &two});
  ASSERT_TRUE(chunks.ok()) << chunks.status().message();
  ASSERT_EQ((*chunks)[0].elements().size(), 2u);
  EXPECT_EQ((*chunks)[0].elements()[1].shape(), (Shape{1, 2}));
  EXPECT_EQ(values((*chunks)[0].elements()[1]), (std::vector<int64_t>{4, 5}));

  Tensor lengths = ints({2}, {1, 2});
  auto listed = run_node(make_node("SplitToSequence", 2), {&x, &lengths});
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_EQ((*listed)[0].elements()[1].shape(), (Shape{2, 2}));

  Tensor bad_sum = ints({2}, {1, 1});
  EXPECT_FALSE(run_node(make_node("SplitToSequence", 2), {&x, &bad_sum}).ok());
  Tensor negative = ints({2}, {4, -1});
  EXPECT_FALSE(run_node(make_node("SplitToSequence", 2), {&x, &negative}).ok());
  Tensor zero = scalar(0);
  EXPECT_FALSE(run_node(make_node("SplitToSequence", 2), {&x, &zero}).ok());
}

TEST(SequenceOps, ConcatFromSequenceConcatenatesAndStacks) {
  Tensor s = seq_of({ints({2, 1}, {1, 2}), ints({2, 2}, {3, 4, 5, 6})});
  Node concat = make_node("ConcatFromSequence", 1);
  set_int(concat, "axis", 1);
  auto joined = run_node(concat, {&s});
  ASSERT_TRUE(joined.ok()) << joined.status().message();
  EXPECT_EQ((*joined)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values((*joined)[0]), (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));

  Tensor same = seq_of({ints({2}, {1, 2}), ints({2}, {3, 4})});
  Node stack = make_node("ConcatFromSequence", 1);
  set_int(stack, "axis", -1);  // new_axis: the output has rank 2, -1 is the new last axis
  set_int(stack, "new_axis", 1);
  auto stacked = run_node(stack, {&same});
  ASSERT_TRUE(stacked.ok()) << stacked.status().message();
  EXPECT_EQ((*stacked)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values((*stacked)[0]), (std::vector<int64_t>{1, 3, 2, 4}));

  Node axis0 = make_node("ConcatFromSequence", 1);
  set_int(axis0, "axis", 0);
  EXPECT_FALSE(run_node(axis0, {&s}).ok());  // [2,1] and [2,2] differ along axis 1
  Tensor empty = seq_of({});
  EXPECT_FALSE(run_node(axis0, {&empty}).ok());
  Node no_axis = make_node("ConcatFromSequence", 1);
  EXPECT_FALSE(run_node(no_axis, {&same}).ok());
}

TEST(OptionalOps, WrapTestAndUnwrap) {
  Tensor x = floats({2}, {1.5f, -2.0f});
  auto opt = run_node(make_node("Optional", 1), {&x});
  ASSERT_TRUE(opt.ok()) << opt.status().message();
  ASSERT_EQ((*opt)[0].kind(), ValueKind::kOptional);
  auto has = run_node(make_node("OptionalHasElement", 1), {&(*opt)[0]}, 15);
  ASSERT_TRUE(has.ok()) << has.status().message();
  EXPECT_TRUE(*(*has)[0].data<bool>());
  auto got = run_node(make_node("OptionalGetElement", 1), {&(*opt)[0]}, 15);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*got)[0].data<float>()[1], -2.0f);

  Tensor empty = Tensor::optional(ValueKind::kOptional, DType::kFloat32, Tensor());
  auto has_not = run_node(make_node("OptionalHasElement", 1), {&empty}, 15);
  ASSERT_TRUE(has_not.ok()) << has_not.status().message();
  EXPECT_FALSE(*(*has_not)[0].data<bool>());
  EXPECT_FALSE(run_node(make_node("OptionalGetElement", 1), {&empty}, 15).ok());
  // Opset 15 takes optionals only.
  EXPECT_FALSE(run_node(make_node("OptionalHasElement", 1), {&x}, 15).ok());
}

TEST(OptionalOps, OptionalOfASequenceGivesTheSequenceBack) {
  Tensor s = seq_of({ints({1}, {7})});
  auto opt = run_node(make_node("Optional", 1), {&s});
  ASSERT_TRUE(opt.ok()) << opt.status().message();
  EXPECT_EQ((*opt)[0].kind(), ValueKind::kOptionalSequence);
  auto got = run_node(make_node("OptionalGetElement", 1), {&(*opt)[0]}, 15);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ((*got)[0].kind(), ValueKind::kSequence);
  EXPECT_EQ(values((*got)[0].elements()[0]), (std::vector<int64_t>{7}));
}

TEST(SequenceOps, TensorOpsRefuseSequences) {
  Tensor s = seq_of({ints({1}, {1})});
  Tensor t = ints({1}, {1});
  auto r = run_node(make_node("Add", 2), {&s, &t});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is a sequence"), std::string::npos) << r.status().message();
}

TEST(SequenceOps, IdentityPassesASequence) {
  Tensor s = seq_of({ints({2}, {1, 2})});
  auto r = run_node(make_node("Identity", 1), {&s});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ((*r)[0].kind(), ValueKind::kSequence);
  EXPECT_EQ(values((*r)[0].elements()[0]), (std::vector<int64_t>{1, 2}));
}

}  // namespace
}  // namespace openge
