// Batches of a training epoch: every sample exactly once, the order a function of (seed, epoch).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "openge/training_data.h"

namespace openge::training {
namespace {

std::vector<int64_t> flat(const std::vector<std::vector<int64_t>>& batches) {
  std::vector<int64_t> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  return all;
}

TEST(Dataset, EpochVisitsEverySampleOnceInASeededOrder) {
  BatchPlan plan;
  plan.batch = 8;
  plan.seed = 3;
  const auto a = epoch_batches(50, plan, 1);
  EXPECT_EQ(a.size(), 7u);
  EXPECT_EQ(a.back().size(), 2u);
  std::vector<int64_t> all = flat(a);
  std::vector<int64_t> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> expect(50);
  std::iota(expect.begin(), expect.end(), 0);
  EXPECT_EQ(sorted, expect);
  EXPECT_NE(all, expect) << "shuffled";
  EXPECT_EQ(flat(epoch_batches(50, plan, 1)), all) << "same seed and epoch, same order";
  EXPECT_NE(flat(epoch_batches(50, plan, 2)), all) << "another epoch, another order";
  plan.drop_last = true;
  EXPECT_EQ(epoch_batches(50, plan, 1).size(), 6u);
}

TEST(Dataset, GatherStacksTheChosenSamples) {
  Tensor x(DType::kFloat32, {4, 2});
  for (int i = 0; i < 8; ++i) x.data<float>()[i] = static_cast<float>(i);
  Tensor y(DType::kInt64, {4});
  for (int i = 0; i < 4; ++i) y.data<int64_t>()[i] = 10 + i;
  auto d = Dataset::from_tensors({"x", "labels"}, {x, y});
  ASSERT_TRUE(d.ok());
  auto batch = d->gather({3, 1});
  EXPECT_EQ(batch[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(batch[0].data<float>()[0], 6.0f);
  EXPECT_EQ(batch[0].data<float>()[3], 3.0f);
  EXPECT_EQ(batch[1].data<int64_t>()[1], 11);
  Prefetcher p(*d, {{0, 1}, {2, 3}});
  EXPECT_EQ((*p.next())[1].data<int64_t>()[0], 10);
  EXPECT_EQ((*p.next())[1].data<int64_t>()[1], 13);
  EXPECT_FALSE(p.next().has_value());
}

TEST(Dataset, ArraysOfDifferentSampleCountsAreRefused) {
  auto d = Dataset::from_tensors({"x", "labels"}, {Tensor(DType::kFloat32, {4, 2}), Tensor(DType::kInt64, {3})});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("'labels' has 3 samples"), std::string::npos) << d.status().message();
}

}  // namespace
}  // namespace openge::training
