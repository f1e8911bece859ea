// Which nodes are worth a team of threads. Every parallel region (a parallel_for, a oneDNN
// primitive) wakes the other threads and ends at a barrier that waits for the slowest of them; on
// a machine whose other cores are busy a descheduled worker makes that barrier last a scheduler
// time slice, so a model of small ops ran hundreds of times slower on 2 threads than on 1
// (bench/RESULTS.md, "model zoo"). A node whose estimated work between two barriers is below
// the grain runs on the calling thread alone: the executor creates and runs its
// kernel under a one-thread OpenMP setting, so parallel_for runs inline and oneDNN plans and
// runs the primitive on one thread. Larger nodes keep the team, and parallel_for still splits
// them only into chunks of at least its own grain (base/parallel.h).
#pragma once
#include <cstdint>

#include "ops/kernel.h"
#include "runtime/run_threads.h"

namespace openge {

// The grain: work below it runs on one thread. It follows what a team's fork and join cost on
// this machine, calibrated once per machine (compiler/grain_calibration.h): a node split over 2
// threads saves half its work and pays one fork/join, so it is worth a team when its work is
// kGrainPerForkJoin fork/joins or more. A quiet machine's fork/join of a few microseconds gives a
// grain near 2^16 cycles. The grain no longer follows the load of the moment: a probe at each
// compile made two starts of one model plan differently (bench/RESULTS.md, "threading grain",
// "adaptive grain" and "deterministic grain"); a busy core is met at run time by parallel_for's
// dynamically claimed chunks (base/parallel.h).
// The floor also keeps a model of only tiny nodes (the bundled demo model's largest is 37k
// cycles) on one thread whatever the machine, so its bits do not depend on it.
// kMinGrainCycles (runtime/run_threads.h) is the floor.
inline constexpr int64_t kMaxGrainCycles = int64_t{1} << 23;
inline constexpr double kGrainPerForkJoin = 8;
inline constexpr double kGrainCyclesPerMicrosecond = 3000;  // the grain table's scale, ~3 GHz

// True when a node of `cycles` estimated cycles runs alone or with the team depending on the
// grain (between its bounds); below kMin it always runs alone, from kMax on always with the team.
bool grain_decides(int64_t cycles);

// The grain for a team fork/join of `fork_join_us` microseconds, clamped to [kMin, kMax].
int64_t grain_for_fork_join(double fork_join_us);

// Estimated cycles of the node's work between two barriers: the whole node, or one time step of
// a recurrent op (its steps are sequential, each a parallel region of its own). From the grain
// table in op_grain.cpp; -1 when a shape it needs is not known at compile time.
int64_t estimated_node_cycles(const KernelRequest& request);

// True when the node should run on the calling thread alone in a run at `threads` threads.
// Nodes whose work is unknown keep the team.
bool runs_on_calling_thread(const KernelRequest& request, int threads, int64_t grain_cycles);

}  // namespace openge
