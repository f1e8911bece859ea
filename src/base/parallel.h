// Parallel loops on OpenMP. oneDNN (Debian's build) runs on OpenMP too, so every parallel
// region of a run shares one thread pool instead of two pools fighting for the cores.
#pragma once
#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace openge {

int num_threads();

// Parallel chunks started by parallel_for calls made on this thread (1 for a call that runs
// inline). The profiler reads its difference around a task as the task's block count; one add
// per call, never per item.
inline thread_local int64_t tls_parallel_chunks = 0;

// Calls fn(begin, end) on disjoint chunks covering [0, n). Runs inline when the work is too
// small to be worth waking threads for: `cost_per_item` is a rough cycle count per item.
template <class Fn>
void parallel_for(int64_t n, int64_t cost_per_item, Fn&& fn) {
  constexpr int64_t kMinCyclesPerChunk = 1 << 15;
  const int threads = omp_get_max_threads();
  if (n <= 0) return;
  const int64_t max_chunks = std::max<int64_t>(1, n * std::max<int64_t>(1, cost_per_item) / kMinCyclesPerChunk);
  const int64_t chunks = std::min<int64_t>({static_cast<int64_t>(threads), max_chunks, n});
  if (chunks <= 1 || omp_in_parallel()) {
    ++tls_parallel_chunks;
    fn(int64_t{0}, n);
    return;
  }
  tls_parallel_chunks += chunks;
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = n * c / chunks;
    const int64_t end = n * (c + 1) / chunks;
    fn(begin, end);
  }
}

}  // namespace openge
