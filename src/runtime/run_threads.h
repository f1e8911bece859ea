// Whether a small graph's runs use the thread team at all (a 2-thread run must never be slower
// than the 1-thread run). The grain (compiler/op_grain.h) decides per node from
// estimates; on a machine whose cores share no cache, a small model whose nodes alternate between
// the team and the calling thread moves its activations between the cores at every switch, and
// the team's nodes then save less than that costs (bench/RESULTS.md, "cores without a shared
// cache"). So a compile at 2 or more threads with a measured grain times a small graph both ways
// and keeps the faster: the team plan (the grain's decisions, branches at once), or every node on
// the calling thread. The result is fixed for the Executable's life: every run of one compiled
// model computes the same way.
#pragma once
#include <cstdint>

namespace openge {

// How the runs of an Executable use threads.
enum class RunThreads : uint8_t {
  kTeam,       // the grain's per-node decisions (and two branches at once where they pay)
  kOneThread,  // every node on the calling thread, its kernels made for one thread
};

// The grain a compile chose (compiler/op_grain.h): nodes estimated below it run on the calling
// thread. kMinGrainCycles is its floor (why: compiler/op_grain.h).
inline constexpr int64_t kMinGrainCycles = int64_t{1} << 16;
struct ThreadingGrain {
  int64_t cycles = kMinGrainCycles;  // nodes estimated below this run on the calling thread
  double fork_join_us = -1;          // the measured cost it came from; -1: not measured (pinned)
};

}  // namespace openge
