// Parallel loops on OpenMP. oneDNN (Debian's build) runs on OpenMP too, so every parallel
// region of a run shares one thread pool instead of two pools fighting for the cores.
#pragma once
#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace openge {

int num_threads();

// The threads that parallel_for calls made on this thread shared their chunks among (1 for a call
// that runs inline; a call at 2 threads adds 2 however many chunks it cut). The profiler reads its
// difference around a task as the task's block count; one add per call, never per item.
inline thread_local int64_t tls_parallel_chunks = 0;

// How parallel_for cuts its range on this thread (AOE subgraph tuning's nonhomo_split chooses it
// per graph, the executor sets it around each node): uniform chunks, or tapered ones whose sizes
// fall linearly from the first to the last. The threads claim chunks in order, so the tapered
// split hands the big pieces out first and leaves small ones for the end, where a thread that
// lost its core for a time slice would otherwise hold the whole loop up with a full-size chunk.
enum class WorkSplit : int8_t { kUniform, kTapered };
inline thread_local WorkSplit tls_work_split = WorkSplit::kUniform;

// Where chunk `c` of `chunks` begins in [0, n) under `split`; chunk_begin(n, chunks, chunks, _) is n.
inline int64_t chunk_begin(int64_t n, int64_t c, int64_t chunks, WorkSplit split) {
  if (split == WorkSplit::kUniform) return n * c / chunks;
  // Chunk i weighs (chunks - i): the first is `chunks` times the last.
  const int64_t before = c * chunks - c * (c - 1) / 2;
  const int64_t total = chunks * (chunks + 1) / 2;
  return n * before / total;
}

// Calls fn(begin, end) on disjoint chunks covering [0, n). Runs inline when the work is too
// small to be worth waking threads for: `cost_per_item` is a rough cycle count per item.
// The chunks are claimed dynamically, and there are up to kChunksPerThread per thread: a worker
// that the scheduler takes off its core (another process keeps a core busy) delays only the chunk
// it holds while the others take the rest, where a fixed split made the whole loop wait a time
// slice for its share. Which range each chunk covers depends only on n, cost_per_item, the
// thread count and tls_work_split, never on which thread claims it, so the results are the same
// at every run.
template <class Fn>
void parallel_for(int64_t n, int64_t cost_per_item, Fn&& fn) {
  constexpr int64_t kMinCyclesPerChunk = 1 << 15;
  constexpr int64_t kChunksPerThread = 4;
  const int threads = omp_get_max_threads();
  if (n <= 0) return;
  const int64_t max_chunks = std::max<int64_t>(1, n * std::max<int64_t>(1, cost_per_item) / kMinCyclesPerChunk);
  const int64_t chunks = std::min<int64_t>({kChunksPerThread * threads, max_chunks, n});
  if (chunks <= 1 || threads <= 1 || omp_in_parallel()) {
    ++tls_parallel_chunks;
    fn(int64_t{0}, n);
    return;
  }
  const int team = static_cast<int>(std::min<int64_t>(threads, chunks));
  tls_parallel_chunks += team;
  const WorkSplit split = tls_work_split;
#pragma omp parallel for num_threads(team) schedule(dynamic, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = chunk_begin(n, c, chunks, split);
    const int64_t end = chunk_begin(n, c + 1, chunks, split);
    if (end > begin) fn(begin, end);
  }
}

}  // namespace openge
