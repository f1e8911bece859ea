// Whether a small graph's runs use the thread team at all (issue 13 item 4: "a 2-thread run is
// never slower than the 1-thread run"). The grain (runtime/op_grain.h) decides per node from
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

// What CompileOptions asks for: timed at compile when the graph is small (kCalibrate, the
// default), or either plan outright (tests, and graphs the calibration cannot run).
enum class ThreadPlanChoice : uint8_t { kCalibrate, kTeam, kOneThread };

// Graphs estimated above this many cycles (about 5 ms on one thread) are not timed: their nodes
// are large enough for the team to pay, and timing them would lengthen the compile.
inline constexpr int64_t kCalibrationMaxCycles = int64_t{16} << 20;

}  // namespace openge
