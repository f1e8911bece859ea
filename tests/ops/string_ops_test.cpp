// String tensors: Cast to and from strings, StringNormalizer. Expected texts are NumPy's
// str() of float32 values (worked out by hand: the shortest text that reads back exactly).
#include <gtest/gtest.h>

#include <cmath>

#include "ops/op_test_util.h"

namespace openge {
namespace {
using testing::make_node;
using testing::run_node;
using testing::set_int;
using testing::set_string;

Tensor strings(Shape shape, std::vector<std::string> v) {
  Tensor t(DType::kString, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

std::vector<std::string> texts(const Tensor& t) {
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.numel());
}

void set_strings(Node& n, const std::string& name, std::vector<std::string> v) {
  Attribute a;
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
  n.attrs.set(name, a);
}

TEST(StringOps, CastFloatToStringIsTheShortestRoundTripText) {
  Tensor x = testing::make_tensor<float>(DType::kFloat32, {5}, {1.0f, 0.5f, -2.25f, 1e-5f, 0.1f});
  Node cast = make_node("Cast", 1);
  set_int(cast, "to", static_cast<int64_t>(DType::kString));
  auto r = run_node(cast, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(texts((*r)[0]), (std::vector<std::string>{"1.0", "0.5", "-2.25", "1e-05", "0.1"}));
}

TEST(StringOps, CastStringToNumbers) {
  Tensor x = strings({3}, {"0.25", "-3", "inf"});
  Node cast = make_node("Cast", 1);
  set_int(cast, "to", static_cast<int64_t>(DType::kFloat32));
  auto r = run_node(cast, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].data<float>()[0], 0.25f);
  EXPECT_EQ((*r)[0].data<float>()[1], -3.0f);
  EXPECT_TRUE(std::isinf((*r)[0].data<float>()[2]));

  Tensor bad = strings({1}, {"abc"});
  EXPECT_FALSE(run_node(cast, {&bad}).ok());
  Node to_int = make_node("Cast", 1);
  set_int(to_int, "to", static_cast<int64_t>(DType::kInt64));
  Tensor big = strings({2}, {"123456789012", "99999999999999999999999"});
  EXPECT_FALSE(run_node(to_int, {&big}).ok());  // the second one overflows int64
}

TEST(StringOps, StringNormalizerRemovesStopwordsAndChangesCase) {
  Tensor x = strings({1, 4}, {"Monday", "tuesday", "MONDAY", "Wed"});
  Node n = make_node("StringNormalizer", 1);
  set_string(n, "case_change_action", "UPPER");
  set_strings(n, "stopwords", {"monday"});
  auto r = run_node(n, {&x});  // case-insensitive by default
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(texts((*r)[0]), (std::vector<std::string>{"TUESDAY", "WED"}));

  set_int(n, "is_case_sensitive", 1);
  auto sensitive = run_node(n, {&x});
  ASSERT_TRUE(sensitive.ok()) << sensitive.status().message();
  EXPECT_EQ(texts((*sensitive)[0]), (std::vector<std::string>{"MONDAY", "TUESDAY", "MONDAY", "WED"}));
}

TEST(StringOps, StringNormalizerLeavesOneEmptyStringWhenAllAreRemoved) {
  Tensor x = strings({2}, {"monday", "monday"});
  Node n = make_node("StringNormalizer", 1);
  set_strings(n, "stopwords", {"monday"});
  auto r = run_node(n, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{1}));
  EXPECT_EQ(texts((*r)[0]), (std::vector<std::string>{""}));
}

TEST(StringOps, StringNormalizerRefusesBadInput) {
  Tensor x = strings({2, 2}, {"a", "b", "c", "d"});
  EXPECT_FALSE(run_node(make_node("StringNormalizer", 1), {&x}).ok());  // [2,2] is neither [C] nor [1,C]
  Tensor numbers = testing::make_tensor<float>(DType::kFloat32, {1}, {1.0f});
  EXPECT_FALSE(run_node(make_node("StringNormalizer", 1), {&numbers}).ok());
  Node bad = make_node("StringNormalizer", 1);
  set_string(bad, "case_change_action", "TITLE");
  Tensor ok = strings({1}, {"a"});
  EXPECT_FALSE(run_node(bad, {&ok}).ok());
}

TEST(StringOps, StringTensorsCloneTheirText) {
  Tensor x = strings({2}, {"a", "b"});
  Tensor copy = x.clone();
  copy.data<std::string>()[0] = "changed";
  EXPECT_EQ(x.data<std::string>()[0], "a");
  EXPECT_EQ(x.nbytes(), 0u);  // no raw bytes: nothing may memcpy a string tensor
}

}  // namespace
}  // namespace openge
