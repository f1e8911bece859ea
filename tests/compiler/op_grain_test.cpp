// The threading grain (compiler/op_grain.h): the table's estimates worked out by hand, nodes below
// the grain observed running without an OpenMP team at 2 threads (parallel_for's chunk counter,
// the OpenMP setting an observer sees, and the libgomp worker threads a run starts), and outputs
// at 2 threads equal to the 1-thread run's bits for the elementwise and row-wise ops.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "../passes/pass_test_util.h"
#include "../runtime/demo_run_util.h"
#include "runtime/process_threads.h"
#include "base/parallel.h"
#include "compiler/pipeline.h"
#include "compiler/op_grain.h"
#include "compiler/compile_config_test_util.h"

namespace openge {
namespace {

using testing::process_threads;

// The grain the tests below pin, so that which node gets a team does not depend on this
// machine's calibration (CalibratedGrain test).
constexpr int64_t kGrain = int64_t{1} << 21;

ValueInfo known(Shape shape) { return ValueInfo{DType::kFloat32, true, std::move(shape), nullptr}; }

int64_t cycles(const Node& node, std::vector<ValueInfo> inputs, std::vector<ValueInfo> outputs) {
  return estimated_node_cycles(KernelRequest{node, 17, std::move(inputs), std::move(outputs)});
}

Node node_of(const std::string& op_type) {
  Node n;
  n.op_type = op_type;
  n.name = op_type + "_grain";
  return n;
}

void set_ints(Node& n, const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  n.attrs.set(name, a);
}

void set_int(Node& n, const std::string& name, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  n.attrs.set(name, a);
}

TEST(OpGrain, EstimatesFollowTheTableWorkedOutByHand) {
  // Conv 3->16, 3x3, output 16x64x64: 65536 outputs x 27 MACs = 1769472 MACs, 1/16 cycle each.
  EXPECT_EQ(
      cycles(node_of("Conv"), {known({1, 3, 128, 128}), known({16, 3, 3, 3}), known({16})}, {known({1, 16, 64, 64})}),
      110592);
  // MatMul [8,64] x [64,32]: 256 outputs x K 64 = 16384 MACs.
  EXPECT_EQ(cycles(node_of("MatMul"), {known({8, 64}), known({64, 32})}, {known({8, 32})}), 1024);
  // Gemm with transA: A is [K=64, M=8], so K is A's dim 0.
  Node gemm = node_of("Gemm");
  set_int(gemm, "transA", 1);
  EXPECT_EQ(cycles(gemm, {known({64, 8}), known({64, 32})}, {known({8, 32})}), 1024);
  // LSTM, one step: batch 2 x (2 directions x 4 gates x 96) x (64 input + 96 hidden) MACs.
  EXPECT_EQ(
      cycles(node_of("LSTM"), {known({10, 2, 64}), known({2, 384, 64}), known({2, 384, 96})}, {known({10, 2, 2, 96})}),
      2 * 768 * 160 / 16);
  // MaxPool 3x3 over 8x8 outputs: 1 cycle per window element.
  Node pool = node_of("MaxPool");
  set_ints(pool, "kernel_shape", {3, 3});
  EXPECT_EQ(cycles(pool, {known({1, 1, 16, 16})}, {known({1, 1, 8, 8})}), 64 * 9);
  // Sigmoid: a transcendental, 8 cycles per element; Add (not listed): 2 per element of its
  // larger side (the two inputs together).
  EXPECT_EQ(cycles(node_of("Sigmoid"), {known({100})}, {known({100})}), 800);
  EXPECT_EQ(cycles(node_of("Add"), {known({1000}), known({1000})}, {known({1000})}), 4000);
}

TEST(OpGrain, UnknownShapesAndOneThreadRunsKeepTheirSetting) {
  ValueInfo unknown{DType::kFloat32, false, {}, nullptr};
  const Node add = node_of("Add");
  EXPECT_EQ(cycles(add, {unknown, known({4})}, {unknown}), -1);
  EXPECT_FALSE(runs_on_calling_thread(KernelRequest{add, 17, {unknown, known({4})}, {unknown}}, 2, kGrain));
  // Tiny, but a 1-thread run has nothing to decide.
  EXPECT_FALSE(runs_on_calling_thread(KernelRequest{add, 17, {known({4}), known({4})}, {known({4})}}, 1, kGrain));
  EXPECT_TRUE(runs_on_calling_thread(KernelRequest{add, 17, {known({4}), known({4})}, {known({4})}}, 2, kGrain));
  // A Conv of 115 million MACs keeps the team.
  EXPECT_FALSE(runs_on_calling_thread(
      KernelRequest{node_of("Conv"), 17, {known({1, 64, 56, 56}), known({64, 64, 3, 3})}, {known({1, 64, 56, 56})}}, 2,
      kGrain));
}

// A graph built in code (passes/pass_test_util.h), at opset 17.
testing::GraphBuilder grain_graph() {
  testing::GraphBuilder b(17);
  b.g.source = "op_grain_test";
  return b;
}

Node named(const std::string& op_type, const std::string& name) {
  Node n = node_of(op_type);
  n.name = name;
  return n;
}

Tensor pattern(Shape shape, int seed) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = static_cast<float>((i * 7919 + seed * 104729) % 2001 - 1000) / 500.0f;
  return t;
}

std::unique_ptr<Executable> compile(Graph g, const std::vector<Shape>& shapes, int threads, bool use_aicore) {
  CompileOptions co;
  co.num_threads = threads;
  co.use_aicore = use_aicore;
  co.run_passes = false;
  co.threading_grain_cycles = kGrain;
  auto exe = compiler::compile(std::move(g), shapes, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

// The OpenGE-visible OpenMP state at the start of each node of a run.
struct ThreadsSeen : RunObserver {
  std::vector<int> max_threads;
  void on_node_start(size_t, const CompiledNode&) override { max_threads.push_back(omp_get_max_threads()); }
};

TEST(OpGrainRun, ReferenceOpBelowTheGrainRunsInlineAndALargeOneSplits) {
  // Relu of 131072 elements: parallel_for alone would cut it into 2 chunks at 2 threads
  // (cost 1 per element, 32768 cycles per chunk); its estimate (262144 cycles) is below the grain.
  // Relu of 2^21 elements is above it and keeps the team.
  for (const auto& [rows, expect_team] : {std::pair<int64_t, bool>{128, false}, {2048, true}}) {
    testing::GraphBuilder b = grain_graph();
    const int x = b.input("x", {rows, 1024});
    b.g.outputs = {b.node(named("Relu", "relu"), {x})};
    auto exe = compile(std::move(b.g), {{rows, 1024}}, 2, /*use_aicore=*/false);
    ASSERT_NE(exe, nullptr);
    EXPECT_EQ(exe->nodes()[0].single_thread, !expect_team) << rows;
    ThreadsSeen seen;
    const int64_t before = tls_parallel_chunks;
    auto out = exe->run({pattern({rows, 1024}, 1)}, nullptr, &seen);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(tls_parallel_chunks - before, expect_team ? 2 : 1) << rows;
    EXPECT_EQ(seen.max_threads, std::vector<int>{expect_team ? 2 : 1}) << rows;
  }
}

Graph conv_graph(int64_t channels, int64_t size) {
  testing::GraphBuilder b = grain_graph();
  const int x = b.input("x", {1, channels, size, size});
  const int w = b.constant("w", pattern({channels, channels, 3, 3}, 2));
  Node conv = named("Conv", "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  b.g.outputs = {b.node(conv, {x, w})};
  return std::move(b.g);
}

TEST(OpGrainRun, OneDnnConvBelowTheGrainStartsNoOpenMpTeam) {
  if (!testing::teams_show_in_thread_count()) GTEST_SKIP() << testing::kTeamsNotCountable;
  // On a fresh thread, whose OpenMP team does not exist yet: the compile and runs of a small Conv
  // (AI Core, oneDNN) at 2 threads start no worker thread; a large Conv then does, which shows
  // that the count sees a team when there is one.
  std::thread fresh([] {
    const size_t at_start = process_threads();
    auto small = compile(conv_graph(4, 16), {{1, 4, 16, 16}}, 2, /*use_aicore=*/true);
    ASSERT_NE(small, nullptr);
    ASSERT_EQ(small->nodes()[0].engine, Engine::kAiCore);
    EXPECT_TRUE(small->nodes()[0].single_thread);
    ThreadsSeen seen;
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(small->run({pattern({1, 4, 16, 16}, i)}, nullptr, &seen).ok());
    EXPECT_EQ(process_threads(), at_start) << "the small Conv started OpenMP workers";
    EXPECT_EQ(seen.max_threads, std::vector<int>(5, 1));

    auto large = compile(conv_graph(64, 56), {{1, 64, 56, 56}}, 2, /*use_aicore=*/true);
    ASSERT_NE(large, nullptr);
    EXPECT_FALSE(large->nodes()[0].single_thread);
    ASSERT_TRUE(large->run({pattern({1, 64, 56, 56}, 0)}).ok());
    EXPECT_GT(process_threads(), at_start) << "the large Conv ran without a team";
  });
  fresh.join();
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.nbytes() == b.nbytes() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(OpGrainRun, ElementwiseAndRowWiseOutputsAtTwoThreadsAreTheOneThreadBits) {
  // Large ops (a team at 2 threads) and small ones (one thread) in one graph: Sigmoid, Add, Mul,
  // Softmax over rows on [512,1024], and the same chain on [16,64]. Each output element is
  // computed by one thread in an order fixed by the shapes, so the bits must not depend on the
  // thread count.
  auto build = [] {
    testing::GraphBuilder b = grain_graph();
    for (const auto& [name, rows, cols] :
         {std::tuple<std::string, int64_t, int64_t>{"big", 512, 1024}, {"small", 16, 64}}) {
      const int x = b.input(name, {rows, cols});
      const int s = b.node(named("Sigmoid", name + "_sigmoid"), {x});
      const int a = b.node(named("Add", name + "_add"), {s, x});
      const int m = b.node(named("Mul", name + "_mul"), {a, x});
      Node softmax = named("Softmax", name + "_softmax");
      set_int(softmax, "axis", -1);
      b.g.outputs.push_back(m);
      b.g.outputs.push_back(b.node(softmax, {m}));
    }
    return std::move(b.g);
  };
  const std::vector<Shape> shapes = {{512, 1024}, {16, 64}};
  const std::vector<Tensor> inputs = {pattern({512, 1024}, 3), pattern({16, 64}, 4)};
  auto one = compile(build(), shapes, 1, false);
  auto two = compile(build(), shapes, 2, false);
  ASSERT_TRUE(one && two);
  size_t team = 0, alone = 0;
  for (const CompiledNode& cn : two->nodes()) (cn.single_thread ? alone : team)++;
  EXPECT_GT(team, 0u);  // both kinds of node are exercised
  EXPECT_GT(alone, 0u);
  auto a = one->run(inputs);
  auto b = two->run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) EXPECT_TRUE(same_bits((*a)[i], (*b)[i])) << "output " << i;
}

TEST(OpGrain, GrainIsEightForkJoinsOfWorkClampedToItsBounds) {
  EXPECT_EQ(grain_for_fork_join(4.0), 96000);  // 8 fork/joins x 4 us x 3000 cycles/us
  EXPECT_EQ(grain_for_fork_join(100.0), 2400000);
  EXPECT_LT(grain_for_fork_join(4.0), grain_for_fork_join(5.0));
  EXPECT_EQ(grain_for_fork_join(0.0), kMinGrainCycles);
  EXPECT_EQ(grain_for_fork_join(-1.0), kMinGrainCycles);
  EXPECT_EQ(grain_for_fork_join(1e6), kMaxGrainCycles);
}

// Relu [rows, 1024] and a 3x3 Conv at 2 threads, compiled without a pinned grain: the executable
// records the fork/join of the machine's calibration (without options: the default,
// compiler/grain_calibration.h) and the grain that follows, and each node's decision is its
// estimate against that grain.
TEST(OpGrainRun, CalibratedGrainDecidesEveryNodeAndIsRecorded) {
  testing::GraphBuilder b = grain_graph();
  const int x = b.input("x", {1, 64, 56, 56});
  const int w = b.constant("w", pattern({64, 64, 3, 3}, 2));
  Node conv = named("Conv", "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  const int c = b.node(conv, {x, w});
  const int r = b.node(named("Relu", "relu"), {c});
  b.g.outputs = {b.node(named("Sigmoid", "small"), {b.node(named("Relu", "tiny"), {b.input("y", {4})})}), r};
  CompileOptions co;
  co.num_threads = 2;
  co.run_passes = false;
  // The grain's decisions, not the timed choice between them and one thread (thread_plan_test.cpp),
  // which follows the load of the moment.
  co.thread_plan = ThreadPlanChoice::kTeam;
  auto exe = compiler::compile(std::move(b.g), {{1, 64, 56, 56}, {4}}, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const ThreadingGrain& grain = (*exe)->threading_grain();
  EXPECT_GE(grain.fork_join_us, 0.0) << "calibrated, not pinned";
  EXPECT_EQ(grain.cycles, grain_for_fork_join(grain.fork_join_us));
  const Graph& g = (*exe)->graph();
  for (const CompiledNode& cn : (*exe)->nodes()) {
    KernelRequest request{cn.node, 17, {}, {}};
    for (int in : cn.node.inputs) request.inputs.push_back(known(*g.values[static_cast<size_t>(in)].shape));
    for (int out : cn.node.outputs) request.outputs.push_back(known(*g.values[static_cast<size_t>(out)].shape));
    EXPECT_EQ(cn.single_thread, estimated_node_cycles(request) < grain.cycles) << cn.node.name;
  }
  // The 4-element ops are below any grain.
  for (const CompiledNode& cn : (*exe)->nodes()) {
    if (cn.node.name == "tiny" || cn.node.name == "small") {
      EXPECT_TRUE(cn.single_thread) << cn.node.name;
    }
  }
}

TEST(OpGrainRun, PinnedGrainIsNotMeasuredAndOneThreadMeasuresNothing) {
  auto pinned = compile(conv_graph(4, 16), {{1, 4, 16, 16}}, 2, /*use_aicore=*/true);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->threading_grain().cycles, kGrain);
  EXPECT_LT(pinned->threading_grain().fork_join_us, 0.0);
  CompileOptions co;
  co.num_threads = 1;
  auto one = compiler::compile(conv_graph(4, 16), {{1, 4, 16, 16}}, co);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_LT((*one)->threading_grain().fork_join_us, 0.0);
  EXPECT_FALSE((*one)->nodes()[0].single_thread);
}

// The option (and its variable OPENGE_THREADING_GRAIN_CYCLES) pins the grain of every compile of
// the session: no calibration, the given value, the decisions against it.
TEST(OpGrainRun, OPT_threading_grain_cycles_PinsTheGrain) {
  options::test::TempDir d;
  for (const auto& [flags, env] :
       {std::pair<options::test::Flags, options::EnvMap>{{{"threading_grain_cycles", "9000000"}}, {}},
        std::pair<options::test::Flags, options::EnvMap>{{}, {{"OPENGE_THREADING_GRAIN_CYCLES", "9000000"}}}}) {
    CompileOptions co;
    co.num_threads = 2;
    co.config = openge::test::compile_config(test::options_from(env, d.path(), flags));
    ASSERT_TRUE(co.config);
    // The 115-million-MAC Conv (7.2 million estimated cycles) is below this grain: one thread.
    auto exe = compiler::compile(conv_graph(64, 56), {{1, 64, 56, 56}}, co);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    EXPECT_EQ((*exe)->threading_grain().cycles, 9000000);
    EXPECT_LT((*exe)->threading_grain().fork_join_us, 0.0) << "pinned, not calibrated";
    EXPECT_TRUE((*exe)->nodes()[0].single_thread);
  }
}

}  // namespace
}  // namespace openge
