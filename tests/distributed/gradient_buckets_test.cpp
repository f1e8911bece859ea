// The gradient split of data-parallel training (distributed/gradient_buckets.h) and the check of
// CANN's rank variables against MPI's world (distributed/world.h).
#include "distributed/gradient_buckets.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "distributed/world.h"
#include "aoe/knowledge_base.h"

namespace openge::distributed {
namespace {

std::vector<std::pair<size_t, size_t>> ranges(const std::vector<Bucket>& buckets) {
  std::vector<std::pair<size_t, size_t>> r;
  for (const Bucket& b : buckets) r.emplace_back(b.first, b.last);
  return r;
}

TEST(GradientBuckets, SplitByIndexEndsEachBucketAtTheGivenGradient) {
  auto b = plan_buckets({4, 4, 4, 4, 4}, {{1, 3, 4}, {}});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(ranges(*b), (std::vector<std::pair<size_t, size_t>>{{0, 1}, {2, 3}, {4, 4}}));
  EXPECT_EQ((*b)[1].offsets, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ((*b)[1].elements, 8);
}

TEST(GradientBuckets, SplitByIndexMustEndAtTheLastGradientAndRise) {
  EXPECT_FALSE(plan_buckets({1, 1, 1}, {{0, 1}, {}}).ok());     // does not reach gradient 2
  EXPECT_FALSE(plan_buckets({1, 1, 1}, {{1, 1, 2}, {}}).ok());  // not rising
  EXPECT_FALSE(plan_buckets({1, 1, 1}, {{0, 5}, {}}).ok());     // past the last gradient
}

TEST(GradientBuckets, SplitBySizeFollowsThePercentagesOfTheBytes) {
  // 100 elements: 60 / 20 / 20 percent.
  auto b = plan_buckets({30, 30, 10, 10, 10, 10}, {{}, {60, 20, 20}});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(ranges(*b), (std::vector<std::pair<size_t, size_t>>{{0, 1}, {2, 3}, {4, 5}}));
}

TEST(GradientBuckets, DefaultIsHcclsTwoSegmentsBySize) {
  // 96.54 % of 1000 elements is reached with the tenth parameter (965 elements); the eleventh
  // is the second segment.
  std::vector<int64_t> sizes(9, 100);
  sizes.push_back(65);
  sizes.push_back(35);
  auto b = plan_buckets(sizes, {});
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].last, 9u);
  EXPECT_EQ((*b)[1].first, 10u);
}

TEST(GradientBuckets, SizesMustBePositiveAndSumTo100) {
  EXPECT_FALSE(plan_buckets({1, 1}, {{}, {50, 40}}).ok());
  EXPECT_FALSE(plan_buckets({1, 1}, {{}, {120, -20}}).ok());
  EXPECT_FALSE(plan_buckets({1, 1}, {{1}, {100}}).ok());  // both ways at once
}

TEST(GradientBuckets, ListsParseAndBadEntriesAreNamed) {
  EXPECT_EQ(*parse_split_indices("20,100,159"), (std::vector<int64_t>{20, 100, 159}));
  EXPECT_EQ(*parse_split_sizes("60,20,20"), (std::vector<double>{60, 20, 20}));
  auto bad = parse_split_indices("20,x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'x'"), std::string::npos);
  EXPECT_FALSE(parse_split_sizes("").ok());
}

TEST(GradientBuckets, TuningCandidatesAreDistinctSplitsEndingAtTheLastGradient) {
  std::vector<int64_t> sizes(20, 1000);
  const auto candidates = split_candidates(sizes);
  ASSERT_GE(candidates.size(), 4u);
  EXPECT_EQ(candidates.front(), (std::vector<int64_t>{19}));  // one bucket
  for (size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_EQ(candidates[i].back(), 19) << i;
    EXPECT_TRUE(plan_buckets(sizes, {candidates[i], {}}).ok()) << i;
    for (size_t j = 0; j < i; ++j) EXPECT_NE(candidates[i], candidates[j]) << i << " repeats " << j;
  }
  // Never more buckets than gradients.
  for (const auto& c : split_candidates({5, 5})) EXPECT_LE(c.size(), 2u);
}

TEST(RankEnvironment, RankIdAndRankSizeMustAgreeWithMpi) {
  World w;
  w.rank = 1;
  w.size = 2;
  EXPECT_TRUE(check_rank_environment(w, nullptr, nullptr).ok());
  EXPECT_TRUE(check_rank_environment(w, "1", "2").ok());
  Status id = check_rank_environment(w, "0", "2");
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.message().find("RANK_ID=0"), std::string::npos) << id.message();
  Status size = check_rank_environment(w, nullptr, "8");
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.message().find("RANK_SIZE=8"), std::string::npos) << size.message();
  EXPECT_FALSE(check_rank_environment(w, "one", nullptr).ok());
}

TEST(GradientBuckets, OPT_aoe_config_aoe_mode_5_TunedSplitSurvivesTheKnowledgeBase) {
  const std::string dir = ::testing::TempDir() + "/kb_split_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string key = aoe::gradient_split_key({"w", "b"}, {10, 2}, 4, 1);
  EXPECT_NE(key, aoe::gradient_split_key({"w", "b"}, {10, 2}, 2, 1));  // the rank count is part of it
  aoe::KnowledgeBase kb = aoe::KnowledgeBase::load(dir + "/" + aoe::kKnowledgeBaseFile);
  aoe::KnowledgeEntry e;
  e.op_type = aoe::kGradientSplitEntry;
  e.split_by_index = {0, 1};
  e.default_us = 2000;
  e.tuned_us = 1500;
  kb.put(key, e);
  ASSERT_TRUE(kb.save().ok());
  const aoe::KnowledgeBase again = aoe::KnowledgeBase::load(dir + "/" + aoe::kKnowledgeBaseFile);
  EXPECT_EQ(again.problem(), "");
  const aoe::KnowledgeEntry* found = again.find(key);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->split_by_index, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(found->tuned_us, 1500);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace openge::distributed
