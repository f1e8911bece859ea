// parallel_for's dynamically claimed chunks (base/parallel.h): every index is visited exactly
// once, the chunks' ranges are the same at every call whichever thread claims them, and the loop
// still finishes when one of its threads is held up.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/omp_threads.h"
#include "base/parallel.h"

namespace openge {
namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

// The chunks one call cut, sorted, and checks that they cover [0, n) once each.
Ranges chunks_of(int64_t n, int64_t cost) {
  std::vector<std::atomic<int>> visits(static_cast<size_t>(n));
  Ranges ranges;
  std::mutex mutex;
  parallel_for(n, cost, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) visits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(mutex);
    ranges.emplace_back(b, e);
  });
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(visits[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n;
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

TEST(ParallelFor, DynamicChunksCoverEveryIndexOnceWithTheSameRangesAtEveryCall) {
  for (int threads : {1, 2, 3}) {
    ScopedNumThreads scoped(threads);
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{1000}, int64_t{100003}}) {
      for (int64_t cost : {int64_t{1}, int64_t{64}, int64_t{100000}}) {
        const Ranges first = chunks_of(n, cost);
        ASSERT_FALSE(first.empty());
        EXPECT_EQ(first.front().first, 0);
        EXPECT_EQ(first.back().second, n);
        for (size_t c = 1; c < first.size(); ++c) EXPECT_EQ(first[c].first, first[c - 1].second);
        EXPECT_LE(static_cast<int64_t>(first.size()), 4 * threads);
        if (threads == 1) {
          EXPECT_EQ(first.size(), 1u);
        }
        for (int again = 0; again < 3; ++again) EXPECT_EQ(chunks_of(n, cost), first) << threads << " " << n;
      }
    }
  }
}

TEST(ParallelFor, AHeldUpThreadLeavesTheOtherChunksToTheRest) {
  // At 2 threads a large loop is cut into more chunks than threads. The first chunk to start
  // waits, as a descheduled worker would, until every other chunk is done: the other thread
  // claims them all meanwhile. With a fixed split the waiting thread's own share would never run
  // and the wait would end only at its 20-second limit.
  ScopedNumThreads scoped(2);
  std::atomic<bool> first{true};
  std::atomic<int> others_done{0};
  std::atomic<int> held_up{-1};
  std::mutex mutex;
  std::vector<int> thread_of_chunk;
  const auto start = std::chrono::steady_clock::now();
  parallel_for(1 << 20, 1, [&](int64_t, int64_t) {
    if (first.exchange(false)) {
      held_up = omp_get_thread_num();
      while (others_done.load() < 7 && std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      thread_of_chunk.push_back(omp_get_thread_num());
    }
    others_done.fetch_add(1);
  });
  ASSERT_EQ(thread_of_chunk.size(), 7u);  // 4 chunks per thread
  for (int t : thread_of_chunk) EXPECT_NE(t, held_up.load()) << "a chunk waited for the held-up thread";
}

// aoe_config_file's nonhomo_split (OPT-aoe_config.aoe_config_file-7): the tapered split cuts
// chunks whose sizes fall from the first to the last, still covering [0, n) once each and the
// same at every call; the uniform split (the default) is unchanged.
TEST(ParallelFor, OPT_aoe_config_aoe_config_file_7_TaperedSplitCutsFallingChunks) {
  ScopedNumThreads scoped(2);
  const int64_t n = 100003;
  const Ranges uniform = chunks_of(n, 64);
  ASSERT_EQ(uniform.size(), 8u);
  tls_work_split = WorkSplit::kTapered;
  const Ranges tapered = chunks_of(n, 64);
  const Ranges again = chunks_of(n, 64);
  tls_work_split = WorkSplit::kUniform;
  ASSERT_EQ(tapered.size(), uniform.size());
  EXPECT_EQ(tapered, again);
  EXPECT_EQ(tapered.front().first, 0);
  EXPECT_EQ(tapered.back().second, n);
  for (size_t c = 1; c < tapered.size(); ++c) {
    EXPECT_EQ(tapered[c].first, tapered[c - 1].second);
    EXPECT_LT(tapered[c].second - tapered[c].first, tapered[c - 1].second - tapered[c - 1].first) << "chunk " << c;
  }
  // Weights 8..1: the first chunk is eight times the last, the uniform ones all n/8.
  EXPECT_NEAR(double(tapered.front().second) / double(n), 8.0 / 36.0, 1e-4);
  for (const auto& [b, e] : uniform) EXPECT_NEAR(double(e - b), double(n) / 8, 1);
  EXPECT_EQ(chunks_of(n, 64), uniform) << "the split is per thread and was put back";
}

TEST(ParallelFor, InsideAParallelRegionRunsInline) {
  ScopedNumThreads scoped(2);
  std::atomic<int> calls{0};
#pragma omp parallel num_threads(2)
  {
    parallel_for(1 << 20, 1, [&](int64_t b, int64_t e) {
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 1 << 20);
      calls.fetch_add(1);
    });
  }
  EXPECT_EQ(calls.load(), omp_get_max_threads() >= 2 ? 2 : 1);
}

}  // namespace
}  // namespace openge
