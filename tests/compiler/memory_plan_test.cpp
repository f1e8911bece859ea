#include <gtest/gtest.h>

#include "compiler/memory_plan.h"

namespace openge {
namespace {

bool overlaps(size_t a, size_t as, size_t b, size_t bs) { return a < b + bs && b < a + as; }

TEST(MemoryPlan, ReusesBytesOfBuffersWhoseLifetimesDoNotOverlap) {
  // A chain a -> b -> c: a dies when b is written... a and c may share.
  const std::vector<BufferRequest> requests = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}};
  const MemoryPlan plan = plan_memory(requests);
  EXPECT_EQ(plan.arena_bytes, 2 * 1024u);  // two 64-byte-aligned slots suffice
  EXPECT_EQ(plan.total_bytes, 3 * 1024u);
  EXPECT_FALSE(overlaps(plan.offsets[0], 1024, plan.offsets[1], 1024));
  EXPECT_FALSE(overlaps(plan.offsets[1], 1024, plan.offsets[2], 1024));
}

TEST(MemoryPlan, NeverOverlapsLiveBuffers) {
  std::vector<BufferRequest> requests;
  for (int i = 0; i < 40; ++i)
    requests.push_back({static_cast<size_t>(100 + (i * 7919) % 5000), i % 13, i % 13 + 1 + i % 5});
  const MemoryPlan plan = plan_memory(requests);
  for (size_t i = 0; i < requests.size(); ++i)
    for (size_t j = i + 1; j < requests.size(); ++j) {
      const bool live_together =
          requests[i].first_step <= requests[j].last_step && requests[j].first_step <= requests[i].last_step;
      if (live_together) {
        EXPECT_FALSE(overlaps(plan.offsets[i], requests[i].bytes, plan.offsets[j], requests[j].bytes)) << i << "," << j;
      }
    }
  EXPECT_LE(plan.arena_bytes, plan.total_bytes);
  for (size_t off : plan.offsets) EXPECT_EQ(off % 64, 0u);
}

}  // namespace
}  // namespace openge
