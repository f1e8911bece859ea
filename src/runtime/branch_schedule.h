// Two independent branches at once: in a run at 2 or more threads, nodes too
// small for a team of threads (compiler/op_grain.h) leave the other core idle. Where the graph has
// independent branches of such nodes (the two expand convolutions of a fire module, the heads of
// a detector, the two directions of a tagger), a step runs one branch on the calling thread and
// the other on a second thread of the OpenMP pool, and joins them before the next step.
//
// A run goes step by step. A step's nodes are in two lists: `first`, run in order on the
// calling thread, and `second`, run in order on the second thread at the same time (empty: a
// step of one thread). The memory plan gives every buffer a step's lifetime, so nothing one list
// writes is a buffer the other reads or writes during the step.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace openge {

struct BranchNode {
  std::vector<int> deps;    // nodes whose outputs it reads (each before it in node order)
  bool can_branch = false;  // may run beside another node: one thread, nothing allocated at run time
  int64_t cycles = 0;       // estimated work (compiler/op_grain.h)
};

struct RunStep {
  std::vector<int> first;   // on the calling thread, in order
  std::vector<int> second;  // at the same time on a second thread, in order; empty: none
};

// The steps of a run: every node once, each after the nodes it depends on. A step runs two lists
// only when each holds at least `min_branch_cycles` of estimated work (less does not pay for
// waking the second thread and joining it). With none such, it is one step per node in node order.
std::vector<RunStep> schedule_branches(const std::vector<BranchNode>& nodes, int64_t min_branch_cycles);

// The step each node runs in.
std::vector<int> step_of_nodes(const std::vector<RunStep>& steps, size_t node_count);

// Steps that run two lists.
int concurrent_steps(const std::vector<RunStep>& steps);

}  // namespace openge
