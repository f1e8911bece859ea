// The thread plan's digest (compiler/compile_log.h), which the compile log prints: compiles that
// make the same plan give the same digest, and a grain that moves a node between the calling
// thread and the team gives another.
#include "../passes/pass_test_util.h"
#include "compiler/compile_log.h"
#include "compiler/op_grain.h"
#include "compiler/pipeline.h"

namespace openge::testing {
namespace {

struct Plan {
  std::string hash;
  int single_thread = 0;
};

// Elementwise ops on 2^18 elements: estimated between the grain's bounds, so the grain decides.
Graph chain() {
  GraphBuilder b;
  int y = b.input("x", {1, 64, 64, 64});
  for (const char* op : {"Relu", "Sigmoid", "Tanh"}) y = b.node(op, {y});
  b.g.outputs = {y};
  return std::move(b.g);
}

Plan compile_with_grain(int64_t grain) {
  CompileOptions co;
  co.num_threads = 2;
  co.threading_grain_cycles = grain;
  co.thread_plan = ThreadPlanChoice::kTeam;
  auto exe = compiler::compile(chain(), {{1, 64, 64, 64}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  Plan p{thread_plan_hash(**exe), 0};
  for (const CompiledNode& n : (*exe)->nodes()) p.single_thread += n.single_thread;
  return p;
}

TEST(ThreadPlanHash, SamePlanSameDigestAndAnotherGrainAnother) {
  const Plan low = compile_with_grain(kMinGrainCycles);
  const Plan again = compile_with_grain(kMinGrainCycles);
  const Plan high = compile_with_grain(kMaxGrainCycles);
  ASSERT_EQ(low.hash.size(), 16u);
  EXPECT_EQ(low.hash, again.hash);
  // At the top grain more nodes run on the calling thread, so the plan and its digest differ.
  EXPECT_LT(low.single_thread, high.single_thread);
  EXPECT_NE(low.hash, high.hash);
}

}  // namespace
}  // namespace openge::testing
