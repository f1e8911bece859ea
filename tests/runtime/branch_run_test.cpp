// Two independent branches at once in a run at 2 threads (runtime/branch_schedule.h
// item 4): the compile pairs the branches of one-thread nodes, a run starts a second thread for
// them, the outputs are the 1-thread run's bits (each branch's buffers are its own for the whole
// step), and an observed run takes the branches one after the other.
#include <gtest/gtest.h>

#include <omp.h>

#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "../passes/pass_test_util.h"
#include "../profiling/profiling_test_util.h"
#include "process_threads.h"
#include "compiler/pipeline.h"
#include "options/options_test_util.h"
#include "compiler/compile_config_test_util.h"

namespace openge {
namespace {

using testing::process_threads;

// Pinned so that which node runs alone does not depend on this machine's load: each node of the
// graphs below (98304 elements, 8 cycles each: 786k) is below it, each branch of two above it.
constexpr int64_t kGrain = int64_t{1} << 20;
constexpr int64_t kRows = 96, kCols = 1024;

// x -> Sigmoid -> Tanh  \
//                        Add -> y
// x -> Erf -> Sin       /
// or, with `branches` false, the four ops in one chain before the Add.
Graph two_branch_graph(bool branches) {
  testing::GraphBuilder b(17);
  b.g.source = branches ? "two_branches" : "one_chain";
  const int x = b.input("x", {kRows, kCols});
  const int a = b.node("Tanh", {b.node("Sigmoid", {x})});
  const int c = b.node("Sin", {b.node("Erf", {branches ? x : a})});
  b.g.outputs = {b.node("Add", {a, c})};
  return std::move(b.g);
}

std::unique_ptr<Executable> compile(Graph g, int threads, const std::string& stream_parallel = "") {
  CompileOptions co;
  if (!stream_parallel.empty()) {
    auto r = options::test::build({{"stream_max_parallel_num", stream_parallel}});
    EXPECT_TRUE(r.options) << options::test::dump_errors(r);
    if (r.options) co.config = openge::test::compile_config(*r.options);
  }
  co.num_threads = threads;
  co.use_aicore = false;  // the reference kernels' prepared steps
  co.run_passes = false;
  co.threading_grain_cycles = kGrain;
  auto exe = compiler::compile(std::move(g), {{kRows, kCols}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

Tensor pattern(int seed) {
  Tensor t(DType::kFloat32, {kRows, kCols});
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = static_cast<float>((i * 7919 + seed * 104729) % 2001 - 1000) / 300.0f;
  return t;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.nbytes() == b.nbytes() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(Branches, IndependentBranchesRunAtOnceWithTheOneThreadRunsBits) {
  auto two = compile(two_branch_graph(true), 2);
  auto one = compile(two_branch_graph(true), 1);
  ASSERT_TRUE(two && one);
  ASSERT_EQ(concurrent_steps(two->run_steps()), 1);
  const RunStep& step = two->run_steps()[0];
  EXPECT_EQ(step.first.size() + step.second.size(), 4u);
  EXPECT_EQ(concurrent_steps(one->run_steps()), 0);
  for (int seed = 0; seed < 4; ++seed) {
    auto expected = one->run({pattern(seed)});
    auto got = two->run({pattern(seed)});
    ASSERT_TRUE(expected.ok() && got.ok());
    EXPECT_TRUE(same_bits((*expected)[0], (*got)[0])) << "seed " << seed;
  }
}

// stream_max_parallel_num bounds the branches of an engine that run at once: 1 (and the default
// of an engine the value does not name) runs them one after the other, 2 or more two at once.
// The graph's nodes are AI CPU nodes (reference kernels).
TEST(Branches, OPT_stream_max_parallel_num_2_4_BoundsTheBranchesOfEachEngine) {
  auto streams = [](const std::string& value) {
    auto exe = compile(two_branch_graph(true), 2, value);
    return exe ? concurrent_steps(exe->run_steps()) : -1;
  };
  EXPECT_EQ(streams(""), 1);  // unset: OpenGE's own plan
  EXPECT_EQ(streams("DNN_VM_AICPU:1"), 0);
  EXPECT_EQ(streams("DNN_VM_AICPU:2"), 1);
  EXPECT_EQ(streams("DNN_VM_AICPU:13,AIcoreEngine:1"), 1);
  EXPECT_EQ(streams("AIcoreEngine:4"), 0);  // AI CPU not named: its default 1
  // One stream gives the same bits as two.
  auto one = compile(two_branch_graph(true), 2, "DNN_VM_AICPU:1");
  auto two = compile(two_branch_graph(true), 2, "DNN_VM_AICPU:2");
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->run_steps().size(), one->nodes().size());
  auto a = one->run({pattern(3)});
  auto b = two->run({pattern(3)});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(same_bits((*a)[0], (*b)[0]));
}

TEST(Branches, AChainRunsOneNodePerStep) {
  auto chain = compile(two_branch_graph(false), 2);
  ASSERT_TRUE(chain);
  EXPECT_EQ(concurrent_steps(chain->run_steps()), 0);
  EXPECT_EQ(chain->run_steps().size(), chain->nodes().size());
}

TEST(Branches, ASecondThreadRunsTheOtherBranch) {
  if (!testing::teams_show_in_thread_count()) GTEST_SKIP() << testing::kTeamsNotCountable;
  // On fresh threads, whose OpenMP teams do not exist yet: every node is below the grain, so the
  // chain runs without a team, and only the step of two branches starts one.
  for (const bool branches : {false, true}) {
    std::thread fresh([branches] {
      const size_t at_start = process_threads();
      auto exe = compile(two_branch_graph(branches), 2);
      ASSERT_TRUE(exe);
      for (int i = 0; i < 3; ++i) ASSERT_TRUE(exe->run({pattern(i)}).ok());
      EXPECT_EQ(process_threads() > at_start, branches) << (branches ? "two branches" : "one chain");
    });
    fresh.join();
  }
}

// The nodes an observer sees, in order, and the OpenMP setting each ran with.
struct NodesSeen : RunObserver {
  std::vector<size_t> order;
  std::vector<int> max_threads;
  void on_node_start(size_t index, const CompiledNode&) override {
    order.push_back(index);
    max_threads.push_back(omp_get_max_threads());
  }
};

TEST(Branches, AnObservedRunTakesTheBranchesOneAfterTheOther) {
  auto exe = compile(two_branch_graph(true), 2);
  ASSERT_TRUE(exe);
  NodesSeen seen;
  auto observed = exe->run({pattern(1)}, nullptr, &seen);
  auto plain = exe->run({pattern(1)});
  ASSERT_TRUE(observed.ok() && plain.ok());
  EXPECT_TRUE(same_bits((*observed)[0], (*plain)[0]));
  ASSERT_EQ(seen.order.size(), exe->nodes().size());
  // Every node after the nodes whose outputs it reads, each on one thread.
  const Graph& g = exe->graph();
  std::vector<size_t> position(seen.order.size());
  for (size_t i = 0; i < seen.order.size(); ++i) position[seen.order[i]] = i;
  for (size_t s = 0; s < exe->nodes().size(); ++s)
    for (int in : exe->nodes()[s].node.inputs) {
      const int producer = g.values[static_cast<size_t>(in)].producer;
      if (producer >= 0) EXPECT_LT(position[static_cast<size_t>(producer)], position[s]);
    }
  EXPECT_EQ(seen.max_threads, std::vector<int>(exe->nodes().size(), 1));
}

// The profile shows the stream each task ran on: at stream_max_parallel_num 1 every task on the
// run's stream; at 2 the second branch's tasks on a second stream, in task_time's stream_id and
// the timeline's "Physic Stream Id" and thread (tid).
TEST(Branches, OPT_stream_max_parallel_num_2_4_TheProfileShowsEachBranchsStream) {
  using namespace profiling::testing;
  for (const std::string value : {"DNN_VM_AICPU:1", "DNN_VM_AICPU:2"}) {
    auto exe = compile(two_branch_graph(true), 2, value);
    ASSERT_TRUE(exe);
    auto cfg = profiling::profiler_config_from_json(R"({"task_trace":"on","aicpu":"on"})",
                                                    scratch_dir("branch_streams_" + value.substr(13)));
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    auto p = std::move(profiling::Profiler::create(cfg.value()).value());
    auto it = p->begin_iteration(exe.get(), exe->nodes().size());
    ASSERT_TRUE(exe->run({pattern(2)}, nullptr, it.get()).ok());
    ASSERT_TRUE(p->end_iteration(std::move(it)).ok());
    ASSERT_TRUE(p->finish().ok());
    std::set<size_t> second;
    for (const RunStep& step : exe->run_steps()) second.insert(step.second.begin(), step.second.end());
    EXPECT_EQ(second.size(), value == "DNN_VM_AICPU:1" ? 0u : 2u) << value;
    const Csv tasks = parse_csv(read_text(p->output_dir() + "/task_time_0_1_1.csv"));
    ASSERT_EQ(tasks.rows.size(), exe->nodes().size());
    std::map<std::string, std::string> stream_of;  // node name -> stream id
    for (const auto& row : tasks.rows) stream_of[row.at("kernel_name")] = row.at("stream_id");
    std::set<std::string> first_streams, second_streams;
    for (size_t s = 0; s < exe->nodes().size(); ++s)
      (second.count(s) ? second_streams : first_streams).insert(stream_of.at(exe->nodes()[s].node.name));
    EXPECT_EQ(first_streams.size(), 1u) << value;
    if (second.empty()) continue;
    ASSERT_EQ(second_streams.size(), 1u) << value;
    EXPECT_NE(*first_streams.begin(), *second_streams.begin()) << value;
    // The timeline: the hardware lanes are the same two streams.
    const auto trace = check_trace(read_text(p->output_dir() + "/msprof_0_1_1.json"));
    std::set<std::string> lanes;
    for (const auto& e : trace)
      if (e.value("ph", "") == "X" && e.contains("args") && e["args"].contains("Physic Stream Id")) {
        const std::string id = std::to_string(e["args"]["Physic Stream Id"].get<int64_t>());
        EXPECT_EQ(std::to_string(e["tid"].get<int64_t>()), id);
        lanes.insert(id);
      }
    EXPECT_EQ(lanes, (std::set<std::string>{*first_streams.begin(), *second_streams.begin()}));
  }
}

}  // namespace
}  // namespace openge
