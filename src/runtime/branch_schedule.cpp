#include "runtime/branch_schedule.h"

#include <algorithm>

namespace openge {
namespace {

// How far past its first node a step looks for nodes to take: bounds the compile's work on
// large graphs and how long a step keeps its buffers alive.
constexpr int kWindow = 256;

constexpr int8_t kFree = -1;    // not looked at in this step (or scheduled before it)
constexpr int8_t kBlocked = 2;  // depends on both lists, or on a node left out: a later step

// Starting at `start` (ready: everything before it is scheduled), two lists of branch nodes
// that do not depend on each other, or an empty step when there is no such pair worth running.
// A node goes to the list of the nodes it depends on in this step; one that depends on none
// (a root: its inputs are all computed before the step) to the lighter list; one that depends
// on both lists, or on a node left out, waits for a later step. The scan ends at the first node
// that cannot branch.
RunStep two_lists_from(const std::vector<BranchNode>& nodes, const std::vector<char>& scheduled, int start,
                       int64_t min_branch_cycles, std::vector<int8_t>& owner) {
  const int n = static_cast<int>(nodes.size());
  RunStep step;
  std::vector<int>* lists[2] = {&step.first, &step.second};
  int64_t cycles[2] = {0, 0};
  std::vector<int> looked_at;
  for (int v = start; v < n && v < start + kWindow; ++v) {
    if (scheduled[static_cast<size_t>(v)]) continue;
    const BranchNode& node = nodes[static_cast<size_t>(v)];
    if (!node.can_branch) break;
    looked_at.push_back(v);
    int side = -1;
    for (int d : node.deps) {
      if (d < 0 || scheduled[static_cast<size_t>(d)]) continue;
      const int8_t o = owner[static_cast<size_t>(d)];
      if (o == kFree || o == kBlocked || (side >= 0 && side != o)) {
        side = kBlocked;
        break;
      }
      side = o;
    }
    if (side == kBlocked) {
      owner[static_cast<size_t>(v)] = kBlocked;
      continue;
    }
    if (side < 0) side = cycles[0] <= cycles[1] ? 0 : 1;
    owner[static_cast<size_t>(v)] = static_cast<int8_t>(side);
    lists[side]->push_back(v);
    cycles[side] += std::max<int64_t>(node.cycles, 0);
  }
  for (int v : looked_at) owner[static_cast<size_t>(v)] = kFree;
  if (step.second.empty() || std::min(cycles[0], cycles[1]) < min_branch_cycles) return {};
  return step;
}

}  // namespace

std::vector<RunStep> schedule_branches(const std::vector<BranchNode>& nodes, int64_t min_branch_cycles) {
  const int n = static_cast<int>(nodes.size());
  std::vector<char> scheduled(nodes.size(), 0);
  std::vector<int8_t> owner(nodes.size(), kFree);
  std::vector<RunStep> steps;
  // Invariant: every node before `next` is scheduled, so `next` is ready.
  for (int next = 0; next < n;) {
    if (scheduled[static_cast<size_t>(next)]) {
      ++next;
      continue;
    }
    RunStep step;
    if (nodes[static_cast<size_t>(next)].can_branch)
      step = two_lists_from(nodes, scheduled, next, min_branch_cycles, owner);
    if (step.first.empty()) step.first = {next};
    for (const std::vector<int>* list : {&step.first, &step.second})
      for (int v : *list) scheduled[static_cast<size_t>(v)] = 1;
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<int> step_of_nodes(const std::vector<RunStep>& steps, size_t node_count) {
  std::vector<int> step_of(node_count, -1);
  for (size_t k = 0; k < steps.size(); ++k)
    for (const std::vector<int>* list : {&steps[k].first, &steps[k].second})
      for (int v : *list) step_of[static_cast<size_t>(v)] = static_cast<int>(k);
  return step_of;
}

int concurrent_steps(const std::vector<RunStep>& steps) {
  return static_cast<int>(
      std::count_if(steps.begin(), steps.end(), [](const RunStep& s) { return !s.second.empty(); }));
}

}  // namespace openge
