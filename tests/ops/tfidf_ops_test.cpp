// TfIdfVectorizer: n-gram counts with skips, the three weightings, string pools, bad attributes.
// Expected counts are worked out by hand in each test's comment.
#include <gtest/gtest.h>

#include <cstdint>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

// Pool: unigrams 94, 36 (columns 0, 1); bigrams (94,12) (17,28) (17,36) (columns 2, 3, 4).
Node tfidf_node(const std::string& mode, int64_t min_n, int64_t max_n, int64_t max_skip) {
  Node n = make_node("TfIdfVectorizer", 1);
  set_string(n, "mode", mode);
  set_int(n, "min_gram_length", min_n);
  set_int(n, "max_gram_length", max_n);
  set_int(n, "max_skip_count", max_skip);
  set_ints(n, "ngram_counts", {0, 2});
  set_ints(n, "ngram_indexes", {0, 1, 2, 3, 4});
  set_ints(n, "pool_int64s", {94, 36, 94, 12, 17, 28, 17, 36});
  return n;
}

void set_weights(Node& n, std::vector<float> w) {
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(w);
  n.attrs.set("weights", a);
}

// Row 0: 94 17 36 12 28. Unigrams (counted at distance 1 only): 94, 36. Bigrams at distance 1:
// (17,36); distance 2: none of the pool; distance 3: (94,12), (17,28).
// Row 1: 17 36 17 36 94. Unigrams: 94 once, 36 twice. (17,36) at distance 1 twice (starts 0, 2)
// and at distance 3 once (start 0): 3.
const Tensor kRows = i64({2, 5}, {94, 17, 36, 12, 28, 17, 36, 17, 36, 94});

TEST(OpTfIdfVectorizer, CountsUnigramsOnceAndBigramsAtEverySkipDistance) {
  const Tensor y = run_ok(tfidf_node("TF", 1, 2, 2), {&kRows});
  ASSERT_EQ(y.dtype(), DType::kFloat32);
  ASSERT_EQ(y.shape(), (Shape{2, 5}));
  EXPECT_EQ(values(y), (V{1, 1, 1, 1, 1, 1, 2, 0, 0, 3}));
}

TEST(OpTfIdfVectorizer, MaxSkipCountLimitsTheDistance) {
  // max_skip_count 0: only distance 1, so (94,12) and (17,28) are not found; row 1 keeps the
  // two adjacent (17,36).
  const Tensor y = run_ok(tfidf_node("TF", 1, 2, 0), {&kRows});
  EXPECT_EQ(values(y), (V{1, 1, 0, 0, 1, 1, 2, 0, 0, 2}));
}

TEST(OpTfIdfVectorizer, MinGramLengthTwoLeavesUnigramColumnsZero) {
  const Tensor x = i32({5}, {94, 17, 36, 12, 28});  // int32 input, 1-D: output [5]
  const Tensor y = run_ok(tfidf_node("TF", 2, 2, 2), {&x});
  ASSERT_EQ(y.shape(), (Shape{5}));
  EXPECT_EQ(values(y), (V{0, 0, 1, 1, 1}));
}

TEST(OpTfIdfVectorizer, IdfAndTfIdfWeighByOutputColumn) {
  Node idf = tfidf_node("IDF", 1, 2, 2);
  set_weights(idf, {0.5f, 1, 2, 3, 4});
  EXPECT_EQ(values(run_ok(idf, {&kRows})), (V{0.5, 1, 2, 3, 4, 0.5, 1, 0, 0, 4}));
  Node tfidf = tfidf_node("TFIDF", 1, 2, 2);
  set_weights(tfidf, {0.5f, 1, 2, 3, 4});
  EXPECT_EQ(values(run_ok(tfidf, {&kRows})), (V{0.5, 1, 2, 3, 4, 0.5, 2, 0, 0, 12}));
  // IDF without weights: 1 where the n-gram occurs.
  EXPECT_EQ(values(run_ok(tfidf_node("IDF", 1, 2, 2), {&kRows})), (V{1, 1, 1, 1, 1, 1, 1, 0, 0, 1}));
}

TEST(OpTfIdfVectorizer, StringPoolMapsToItsColumns) {
  // Pool: unigram "c" (column 1), bigram ("a","b") (column 0). Tokens a b c a b: "a b" twice, "c" once.
  Node n = make_node("TfIdfVectorizer", 1);
  set_string(n, "mode", "TF");
  set_int(n, "min_gram_length", 1);
  set_int(n, "max_gram_length", 2);
  set_int(n, "max_skip_count", 0);
  set_ints(n, "ngram_counts", {0, 1});
  set_ints(n, "ngram_indexes", {1, 0});
  Attribute pool;
  pool.kind = Attribute::Kind::kStrings;
  pool.strings = {"c", "a", "b"};
  n.attrs.set("pool_strings", pool);
  Tensor x(DType::kString, {5});
  const char* tokens[] = {"a", "b", "c", "a", "b"};
  for (int i = 0; i < 5; ++i) x.data<std::string>()[i] = tokens[i];
  EXPECT_EQ(values(run_ok(n, {&x})), (V{2, 1}));
}

TEST(OpTfIdfVectorizer, HugeMaxSkipCountIsBoundedByTheRow) {
  const Tensor y = run_ok(tfidf_node("TF", 1, 2, INT64_MAX), {&kRows});
  EXPECT_EQ(values(y), (V{1, 1, 1, 1, 1, 1, 2, 0, 0, 3}));  // distance 4 adds nothing here
}

TEST(OpTfIdfVectorizer, BadAttributesAreErrorsNamingTheNode) {
  auto expect_error = [](const Node& n, const Tensor& x, const std::string& fragment) {
    auto r = run_node(n, {&x});
    ASSERT_FALSE(r.ok()) << fragment;
    EXPECT_NE(r.status().message().find("TfIdfVectorizer 'TfIdfVectorizer_test'"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  };
  expect_error(tfidf_node("BM25", 1, 2, 0), kRows, "mode must be TF, IDF or TFIDF");
  expect_error(tfidf_node("TF", 2, 1, 0), kRows, "1 <= min <= max");
  Node past_pool = tfidf_node("TF", 1, 2, 0);
  set_ints(past_pool, "ngram_counts", {0, 9});
  expect_error(past_pool, kRows, "offsets into the pool of 8 entries");
  Node odd = tfidf_node("TF", 1, 2, 0);
  set_ints(odd, "ngram_counts", {0, 1});
  expect_error(odd, kRows, "not a multiple of 2");
  Node few_indexes = tfidf_node("TF", 1, 2, 0);
  set_ints(few_indexes, "ngram_indexes", {0, 1});
  expect_error(few_indexes, kRows, "fewer than the n-grams in the pool");
  Node short_weights = tfidf_node("IDF", 1, 2, 0);
  set_weights(short_weights, {1, 2});
  expect_error(short_weights, kRows, "weights has 2 entries for 5 output columns");
  expect_error(tfidf_node("TF", 1, 2, 0), f32({2}, {1, 2}), "must be string, int32 or int64");
  expect_error(tfidf_node("TF", 1, 2, 0), i64({1, 1, 2}, {1, 2}), "shape [C] or [N, C]");
}

}  // namespace
}  // namespace openge::testing
