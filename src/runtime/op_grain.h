// Which nodes are worth a team of threads. Every parallel region (a parallel_for, a oneDNN
// primitive) wakes the other threads and ends at a barrier that waits for the slowest of them; on
// a machine whose other cores are busy a descheduled worker makes that barrier last a scheduler
// time slice, so a model of small ops ran hundreds of times slower on 2 threads than on 1
// (bench/RESULTS.md, "model zoo"). A node whose estimated work between two barriers is below
// kNodeParallelCycles runs on the calling thread alone: the executor creates and runs its
// kernel under a one-thread OpenMP setting, so parallel_for runs inline and oneDNN plans and
// runs the primitive on one thread. Larger nodes keep the team, and parallel_for still splits
// them only into chunks of at least its own grain (base/parallel.h).
#pragma once
#include <cstdint>

#include "kernels/compiled_kernel.h"

namespace openge {

// Work below this many estimated cycles runs on one thread. Measured on the model zoo at 2 threads
// on a 2-core machine under load (bench/RESULTS.md, "threading grain"): at 2^19 or 2^20 most small
// CNNs still ran 2-20x slower than at 1 thread, at 2^21 about as fast or faster.
inline constexpr int64_t kNodeParallelCycles = int64_t{1} << 21;

// Estimated cycles of the node's work between two barriers: the whole node, or one time step of
// a recurrent op (its steps are sequential, each a parallel region of its own). From the grain
// table in op_grain.cpp; -1 when a shape it needs is not known at compile time.
int64_t estimated_node_cycles(const KernelRequest& request);

// True when the node should run on the calling thread alone in a run at `threads` threads.
// Nodes whose work is unknown keep the team.
bool runs_on_calling_thread(const KernelRequest& request, int threads);

}  // namespace openge
