// The run's steps (runtime/branch_schedule.h): which independent branches run at once, worked out
// by hand on small graphs, and on random graphs the rules every schedule must keep (each node
// once, after what it reads; the two lists of a step independent of each other).
#include <gtest/gtest.h>

#include <random>

#include "runtime/branch_schedule.h"

namespace openge {
namespace {

BranchNode node(std::vector<int> deps, int64_t cycles = 100, bool can_branch = true) {
  return BranchNode{std::move(deps), can_branch, cycles};
}

TEST(BranchSchedule, ForkAndJoinRunTheTwoBranchesAtOnce) {
  // 0 -> {1 -> 2} and {3 -> 4} -> 5 (a fire module: squeeze, two expands, concat).
  const std::vector<BranchNode> nodes = {node({}), node({0}), node({1}), node({0}), node({3}), node({2, 4})};
  const std::vector<RunStep> steps = schedule_branches(nodes, 150);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].first, std::vector<int>{0});
  EXPECT_TRUE(steps[0].second.empty());
  EXPECT_EQ(steps[1].first, (std::vector<int>{1, 2}));
  EXPECT_EQ(steps[1].second, (std::vector<int>{3, 4}));
  EXPECT_EQ(steps[2].first, std::vector<int>{5});
  EXPECT_EQ(concurrent_steps(steps), 1);
  EXPECT_EQ(step_of_nodes(steps, nodes.size()), (std::vector<int>{0, 1, 1, 1, 1, 2}));
}

TEST(BranchSchedule, BranchesBelowTheMinimumRunOneAfterTheOther) {
  // The same graph; each branch holds 200 cycles, under a minimum of 300.
  const std::vector<BranchNode> nodes = {node({}), node({0}), node({1}), node({0}), node({3}), node({2, 4})};
  const std::vector<RunStep> steps = schedule_branches(nodes, 300);
  ASSERT_EQ(steps.size(), nodes.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].first, std::vector<int>{static_cast<int>(i)});
    EXPECT_TRUE(steps[i].second.empty());
  }
}

TEST(BranchSchedule, AChainAndNodesThatCannotBranchStayInNodeOrder) {
  const std::vector<BranchNode> chain = {node({}), node({0}), node({1}), node({2})};
  EXPECT_EQ(concurrent_steps(schedule_branches(chain, 0)), 0);
  // Two independent nodes, one of which needs a team: no step pairs them.
  const std::vector<BranchNode> mixed = {node({}, 100), node({}, 100, /*can_branch=*/false)};
  const std::vector<RunStep> steps = schedule_branches(mixed, 0);
  EXPECT_EQ(concurrent_steps(steps), 0);
  EXPECT_EQ(steps.size(), 2u);
}

TEST(BranchSchedule, RootsGoToTheLighterListAndAScanEndsAtANodeThatCannotBranch) {
  // Three independent heads of 300, 100 and 100 cycles: the first fills one list, the other two
  // the second. Node 3 needs a team: node 4, after it, waits for a later step.
  const std::vector<BranchNode> nodes = {node({}, 300), node({}, 100), node({}, 100), node({}, 1, false), node({})};
  const std::vector<RunStep> steps = schedule_branches(nodes, 150);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].first, std::vector<int>{0});
  EXPECT_EQ(steps[0].second, (std::vector<int>{1, 2}));
  EXPECT_EQ(steps[1].first, std::vector<int>{3});
  EXPECT_EQ(steps[2].first, std::vector<int>{4});
}

TEST(BranchSchedule, ANodeAfterAJoinThatDoesNotReadItJoinsItsBranch) {
  // 0 and 1 independent; 2 joins them; 3 reads only 0, so it runs in 0's list before the join.
  const std::vector<BranchNode> nodes = {node({}), node({}), node({0, 1}), node({0})};
  const std::vector<RunStep> steps = schedule_branches(nodes, 100);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].first, (std::vector<int>{0, 3}));
  EXPECT_EQ(steps[0].second, std::vector<int>{1});
  EXPECT_EQ(steps[1].first, std::vector<int>{2});
}

TEST(BranchSchedule, RandomGraphsKeepEveryNodeOnceAfterItsInputsAndTheListsIndependent) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    std::vector<BranchNode> nodes;
    for (int v = 0; v < n; ++v) {
      std::vector<int> deps;
      for (int d = 0; d < v; ++d)
        if (rng() % 100 < 6) deps.push_back(d);
      nodes.push_back(node(deps, static_cast<int64_t>(rng() % 500), rng() % 10 != 0));
    }
    const std::vector<RunStep> steps = schedule_branches(nodes, static_cast<int64_t>(rng() % 400));
    const std::vector<int> step_of = step_of_nodes(steps, nodes.size());
    std::vector<int> list_of(nodes.size(), -1);
    int placed = 0;
    for (const RunStep& step : steps) {
      for (int v : step.first) list_of[static_cast<size_t>(v)] = 0, ++placed;
      for (int v : step.second) list_of[static_cast<size_t>(v)] = 1, ++placed;
      ASSERT_FALSE(step.first.empty());
      for (const std::vector<int>* list : {&step.first, &step.second})
        for (size_t i = 1; i < list->size(); ++i) ASSERT_LT((*list)[i - 1], (*list)[i]);
    }
    ASSERT_EQ(placed, n) << "trial " << trial;
    for (int v = 0; v < n; ++v) {
      ASSERT_GE(step_of[static_cast<size_t>(v)], 0);
      if (!nodes[static_cast<size_t>(v)].can_branch) {
        const RunStep& own = steps[static_cast<size_t>(step_of[static_cast<size_t>(v)])];
        ASSERT_TRUE(own.second.empty()) << "trial " << trial << ": a team node in a step of two lists";
      }
      for (int d : nodes[static_cast<size_t>(v)].deps) {
        // An input comes from an earlier step, or from earlier in the same list of this step.
        const int sd = step_of[static_cast<size_t>(d)], sv = step_of[static_cast<size_t>(v)];
        ASSERT_LE(sd, sv) << "trial " << trial;
        if (sd == sv) ASSERT_EQ(list_of[static_cast<size_t>(d)], list_of[static_cast<size_t>(v)]) << "trial " << trial;
      }
    }
  }
}

}  // namespace
}  // namespace openge
