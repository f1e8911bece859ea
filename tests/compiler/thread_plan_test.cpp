// The thread plan of a compile (runtime/thread_plan.h): the one-thread plan starts no OpenMP team
// and computes the 1-thread compile's bits; a pinned grain is not timed; a small graph with a
// team node is timed both ways at compile, and keeps the faster plan.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "../passes/pass_test_util.h"
#include "runtime/process_threads.h"
#include "compiler/pipeline.h"

namespace openge {
namespace {

using testing::process_threads;

Tensor pattern(Shape shape, int seed) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = static_cast<float>((i * 7919 + seed * 104729) % 2001 - 1000) / 5000.0f;
  return t;
}

// Conv 3x3 of `channels` channels on size x size, then Relu: 128 channels at 40x40 is estimated at
// 14.7M cycles, above the grain's top (8.4M: always the team) and below kCalibrationMaxCycles.
Graph conv_graph(int64_t channels, int64_t size) {
  testing::GraphBuilder b(17);
  b.g.source = "thread_plan_test";
  const int x = b.input("x", {1, channels, size, size});
  const int w = b.constant("w", pattern({channels, channels, 3, 3}, 2));
  Node conv;
  conv.op_type = "Conv";
  conv.name = "conv";
  conv.attrs = testing::ints_attr("pads", {1, 1, 1, 1});
  b.g.outputs = {b.node("Relu", {b.node(conv, {x, w})})};
  return std::move(b.g);
}

std::unique_ptr<Executable> compile(int threads, ThreadPlanChoice plan, int64_t grain) {
  CompileOptions co;
  co.num_threads = threads;
  co.threading_grain_cycles = grain;
  co.thread_plan = plan;
  auto exe = compiler::compile(conv_graph(128, 40), {{1, 128, 40, 40}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(ThreadPlan, TheOneThreadPlanStartsNoTeamAndComputesTheOneThreadBits) {
  constexpr int64_t kPinned = int64_t{1} << 20;
  const Tensor x = pattern({1, 128, 40, 40}, 1);
  auto one = compile(1, ThreadPlanChoice::kCalibrate, kPinned);
  ASSERT_TRUE(one);
  auto expected = one->run({x});
  ASSERT_TRUE(expected.ok());
  // On fresh threads, whose OpenMP teams do not exist yet.
  for (const ThreadPlanChoice plan : {ThreadPlanChoice::kOneThread, ThreadPlanChoice::kTeam}) {
    std::thread fresh([&] {
      const size_t at_start = process_threads();
      auto exe = compile(2, plan, kPinned);
      ASSERT_TRUE(exe);
      const bool alone = plan == ThreadPlanChoice::kOneThread;
      EXPECT_EQ(exe->run_threads(), alone ? RunThreads::kOneThread : RunThreads::kTeam);
      // Every node alone in the one-thread plan; the conv (above the grain's top) with the team
      // in the other.
      int convs = 0;
      for (const CompiledNode& cn : exe->nodes()) {
        convs += cn.node.name == "conv";
        if (alone || cn.node.name == "conv") EXPECT_EQ(cn.single_thread, alone) << cn.node.name;
      }
      EXPECT_EQ(convs, 1);
      auto got = exe->run({x});
      ASSERT_TRUE(got.ok());
      // Under libomp the count cannot tell (testing::kTeamsNotCountable); the plan and the bits can.
      if (testing::teams_show_in_thread_count()) EXPECT_EQ(process_threads() > at_start, !alone);
      if (alone) EXPECT_TRUE(same_bits((*got)[0], (*expected)[0]));
    });
    fresh.join();
  }
}

TEST(ThreadPlan, APinnedGrainPinsThePlanToo) {
  auto exe = compile(2, ThreadPlanChoice::kCalibrate, int64_t{1} << 20);
  ASSERT_TRUE(exe);
  EXPECT_LT(exe->timed_team_us(), 0);
  EXPECT_EQ(exe->run_threads(), RunThreads::kTeam);
}

TEST(ThreadPlan, ASmallGraphWithATeamNodeIsTimedBothWaysAndKeepsTheFaster) {
  auto exe = compile(2, ThreadPlanChoice::kCalibrate, 0);  // the grain measured
  ASSERT_TRUE(exe);
  ASSERT_GT(exe->timed_team_us(), 0);
  ASSERT_GT(exe->timed_one_thread_us(), 0);
  const bool one_faster = exe->timed_one_thread_us() < exe->timed_team_us();
  EXPECT_EQ(exe->run_threads(), one_faster ? RunThreads::kOneThread : RunThreads::kTeam);
  // The conv is above the grain's top: it runs alone only in the one-thread plan.
  int convs = 0;
  for (const CompiledNode& cn : exe->nodes())
    if (cn.node.name == "conv") {
      EXPECT_EQ(cn.single_thread, one_faster);
      ++convs;
    }
  EXPECT_EQ(convs, 1);
  // Whichever plan it kept computes what the 1-thread compile does, within rounding.
  auto one = compile(1, ThreadPlanChoice::kCalibrate, 0);
  ASSERT_TRUE(one);
  const Tensor x = pattern({1, 128, 40, 40}, 3);
  auto a = exe->run({x});
  auto b = one->run({x});
  ASSERT_TRUE(a.ok() && b.ok());
  double worst = 0;
  for (int64_t i = 0; i < (*b)[0].numel(); ++i)
    worst = std::max(worst, static_cast<double>(std::abs((*a)[0].data<float>()[i] - (*b)[0].data<float>()[i])));
  EXPECT_LT(worst, 1e-4);
}

}  // namespace
}  // namespace openge
