// The thread-plan stage of a compile: whether a small graph's runs use the thread team at all
// (runtime/run_threads.h says why a graph may do better without it). A compile at 2 or more
// threads with a measured grain times a small graph both ways on the real executor and keeps the
// faster; the choice is fixed for the Executable's life.
#pragma once
#include <cstdint>

#include "runtime/run_threads.h"

namespace openge {

// What CompileOptions asks for: timed at compile when the graph is small (kCalibrate, the
// default), or either plan outright (tests, and graphs the calibration cannot run).
enum class ThreadPlanChoice : uint8_t { kCalibrate, kTeam, kOneThread };

// Graphs estimated above this many cycles (about 5 ms on one thread) are not timed: their nodes
// are large enough for the team to pay, and timing them would lengthen the compile.
inline constexpr int64_t kCalibrationMaxCycles = int64_t{16} << 20;

}  // namespace openge
