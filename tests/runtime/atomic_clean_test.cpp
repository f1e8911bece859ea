// atomic_clean_policy (OPT-memory_config.atomic_clean_policy-1..3): the kernels that add into
// their outputs (GatherGrad, MaxPoolGrad, AveragePoolGrad, ConvGrad: ops/atomic_outputs.h) leave
// the clearing to the executor, which zeroes all their outputs in one MemSet before the graph
// (policy 0) or each node's just before it runs (policy 1). Checked on a real training step whose
// gradients go through all four, run twice on the same compiled graph (a second run reuses the
// first's memory: without the clearing, its gradients would pile onto the first's), and in the
// profile's timeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include "../passes/pass_test_util.h"
#include "../profiling/profiling_test_util.h"
#include "autodiff/training_graph.h"
#include "compiler/pipeline.h"
#include "ops/atomic_outputs.h"
#include "options/options_test_util.h"
#include "compiler/compile_config_test_util.h"

namespace openge {
namespace {

Tensor uniform(Shape shape, uint32_t seed) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

Tensor int64s(std::vector<int64_t> v) {
  Tensor t(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::memcpy(t.raw(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

// An embedding table gathered with a repeated index, seen as images, through Conv, MaxPool and
// an AveragePool of overlapping windows; loss sum(Y * R). Its training step runs GatherGrad,
// ConvGrad (dX and dW), MaxPoolGrad and AveragePoolGrad.
autodiff::TrainingGraph training_step() {
  testing::GraphBuilder b(17);
  b.g.source = "atomic_clean_step";
  const int table = b.constant("table", uniform({6, 64}, 1));
  const int w = b.constant("w", uniform({2, 1, 3, 3}, 2));
  b.g.initializers = {table, w};
  const int rows = b.node("Gather", {table, b.constant("idx", int64s({1, 4, 1, 5}))});
  const int images = b.node("Reshape", {rows, b.constant("shape", int64s({4, 1, 8, 8}))});
  const int conv = b.node("Conv", {images, w}, testing::ints_attr("pads", {1, 1, 1, 1}));
  const int max =
      b.node("MaxPool", {conv}, testing::ints_attr("strides", {2, 2}, testing::ints_attr("kernel_shape", {2, 2})));
  const int avg = b.node("AveragePool", {max}, testing::ints_attr("kernel_shape", {2, 2}));
  const int weighted = b.node("Mul", {avg, b.constant("R", uniform({4, 2, 3, 3}, 3))});
  b.g.outputs = {b.node("ReduceSum", {weighted}, testing::int_attr("keepdims", 0))};
  autodiff::TrainingSpec spec;
  spec.trainable = {"table", "w"};
  auto tg = autodiff::build_training_graph(b.g, {}, spec);
  EXPECT_TRUE(tg.ok()) << tg.status().message();
  return tg.ok() ? std::move(tg.value()) : autodiff::TrainingGraph{};
}

std::unique_ptr<Executable> compile_step(const autodiff::TrainingGraph& tg, int policy) {
  auto r = options::test::build({{"memory_config.atomic_clean_policy", std::to_string(policy)}});
  EXPECT_TRUE(r.options) << options::test::dump_errors(r);
  CompileOptions co;
  if (r.options) co.config = openge::test::compile_config(*r.options);
  co.use_aicore = false;  // the AI CPU kernels, which add into their outputs
  co.num_threads = 1;
  std::vector<Shape> shapes;
  for (const Tensor& t : tg.initial_values) shapes.push_back(t.shape());
  shapes.push_back(autodiff::loss_scale_tensor(tg.graph, 1.0f).shape());
  auto exe = compiler::compile(tg.graph, shapes, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

std::vector<Tensor> step_inputs(const autodiff::TrainingGraph& tg) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : tg.initial_values) inputs.push_back(t.clone());
  inputs.push_back(autodiff::loss_scale_tensor(tg.graph, 1.0f));
  return inputs;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.nbytes() == b.nbytes() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

// The accumulating op types a compiled step zeroes for.
std::multiset<std::string> zeroed_ops(const Executable& exe) {
  std::multiset<std::string> ops;
  for (size_t s = 0; s < exe.nodes().size(); ++s)
    if (exe.zeroes_outputs(s)) ops.insert(exe.nodes()[s].node.op_type);
  return ops;
}

TEST(AtomicClean, OPT_memory_config_atomic_clean_policy_1_TheAccumulatingGradientKernelsAreTheOnesZeroed) {
  const auto tg = training_step();
  auto exe = compile_step(tg, 0);
  ASSERT_TRUE(exe);
  EXPECT_EQ(zeroed_ops(*exe), (std::multiset<std::string>{"AveragePoolGrad", "ConvGrad", "GatherGrad", "MaxPoolGrad"}));
  for (const char* op : {"GatherGrad", "MaxPoolGrad", "AveragePoolGrad", "ConvGrad"})
    EXPECT_TRUE(accumulates_into_outputs(op)) << op;
  EXPECT_FALSE(accumulates_into_outputs("Conv"));
  EXPECT_EQ(exe->atomic_clean_policy(), 0);
}

// Both policies give the same gradients, run after run: a second run on the same compiled step
// reuses the first run's memory, so gradients that were not cleared would be the first run's
// plus the second's.
TEST(AtomicClean, OPT_memory_config_atomic_clean_policy_2_3_BothPoliciesGiveTheSameGradientsRunAfterRun) {
  const auto tg = training_step();
  auto all_at_once = compile_step(tg, 0);
  auto one_by_one = compile_step(tg, 1);
  ASSERT_TRUE(all_at_once && one_by_one);
  EXPECT_EQ(one_by_one->atomic_clean_policy(), 1);
  auto first = all_at_once->run(step_inputs(tg));
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->size(), 3u);  // loss, dTable, dW
  // dTable: rows 0, 2 and 3 were never gathered; row 1 twice.
  const Tensor& d_table = (*first)[1];
  for (int64_t row : {0, 2, 3})
    for (int64_t j = 0; j < 64; ++j) EXPECT_EQ(d_table.data<float>()[row * 64 + j], 0.0f) << "row " << row;
  for (int run = 0; run < 3; ++run) {
    for (Executable* exe : {all_at_once.get(), one_by_one.get()}) {
      auto again = exe->run(step_inputs(tg));
      ASSERT_TRUE(again.ok()) << again.status().message();
      for (size_t o = 0; o < first->size(); ++o)
        EXPECT_TRUE(same_bits((*first)[o], (*again)[o]))
            << "output " << o << ", run " << run << ", policy " << exe->atomic_clean_policy();
    }
  }
}

// What an observer sees: MemSets (before which node) and node starts, in order.
struct MemSetsSeen : RunObserver {
  std::vector<std::pair<char, int>> events;  // ('M', before_node) or ('N', node)
  size_t bytes = 0;
  void on_memset_end(int before_node, size_t b) override {
    events.emplace_back('M', before_node);
    bytes += b;
  }
  void on_node_start(size_t index, const CompiledNode&) override { events.emplace_back('N', static_cast<int>(index)); }
};

size_t output_bytes(const Executable& exe, size_t s) {
  size_t bytes = 0;
  for (int v : exe.nodes()[s].node.outputs)
    if (v >= 0) {
      const Value& value = exe.graph().values[static_cast<size_t>(v)];
      bytes += static_cast<size_t>(shape_numel(*value.shape)) * dtype_size(value.dtype);
    }
  return bytes;
}

TEST(AtomicClean, OPT_memory_config_atomic_clean_policy_2_OneMemSetBeforeTheGraph) {
  const auto tg = training_step();
  auto exe = compile_step(tg, 0);
  ASSERT_TRUE(exe);
  MemSetsSeen seen;
  ASSERT_TRUE(exe->run(step_inputs(tg), nullptr, &seen).ok());
  ASSERT_FALSE(seen.events.empty());
  EXPECT_EQ(seen.events.front(), std::make_pair('M', -1));
  EXPECT_EQ(std::count_if(seen.events.begin(), seen.events.end(), [](const auto& e) { return e.first == 'M'; }), 1);
  size_t expected = 0;
  for (size_t s = 0; s < exe->nodes().size(); ++s)
    if (exe->zeroes_outputs(s)) expected += output_bytes(*exe, s);
  EXPECT_EQ(seen.bytes, expected);
}

TEST(AtomicClean, OPT_memory_config_atomic_clean_policy_3_OneMemSetBeforeEachAccumulatingNode) {
  const auto tg = training_step();
  auto exe = compile_step(tg, 1);
  ASSERT_TRUE(exe);
  MemSetsSeen seen;
  ASSERT_TRUE(exe->run(step_inputs(tg), nullptr, &seen).ok());
  size_t memsets = 0;
  for (size_t i = 0; i < seen.events.size(); ++i) {
    const auto [kind, node] = seen.events[i];
    if (kind == 'N') {
      const bool zeroed = exe->zeroes_outputs(static_cast<size_t>(node));
      EXPECT_EQ(i > 0 && seen.events[i - 1] == std::make_pair('M', node), zeroed)
          << exe->nodes()[static_cast<size_t>(node)].node.op_type << " " << (zeroed ? "without" : "with")
          << " a MemSet just before it";
    } else {
      ++memsets;
    }
  }
  EXPECT_EQ(memsets, zeroed_ops(*exe).size());
}

// The profile's task list shows the MemSet tasks (op type "MemSet"): one before the first node
// at policy 0, one just before each accumulating node at policy 1.
TEST(AtomicClean, OPT_memory_config_atomic_clean_policy_2_3_TheTimelineShowsTheMemSetTasks) {
  using namespace profiling::testing;
  const auto tg = training_step();
  for (const int policy : {0, 1}) {
    auto exe = compile_step(tg, policy);
    ASSERT_TRUE(exe);
    auto cfg = profiling::profiler_config_from_json(R"({"task_trace":"on","aicpu":"on"})",
                                                    scratch_dir("atomic_clean_" + std::to_string(policy)));
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    auto p = std::move(profiling::Profiler::create(cfg.value()).value());
    auto it = p->begin_iteration(exe.get(), exe->nodes().size());
    ASSERT_TRUE(exe->run(step_inputs(tg), nullptr, it.get()).ok());
    ASSERT_TRUE(p->end_iteration(std::move(it)).ok());
    ASSERT_TRUE(p->finish().ok());
    const Csv tasks = parse_csv(read_text(p->output_dir() + "/task_time_0_1_1.csv"));
    std::vector<std::string> names;
    for (const auto& row : tasks.rows) names.push_back(row.at("kernel_name"));
    std::vector<std::string> memsets;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].find("MemSet") == std::string::npos) continue;
      memsets.push_back(names[i]);
      if (policy == 0) {
        EXPECT_EQ(i, 0u) << "the MemSet runs before the graph";
      } else {
        ASSERT_LT(i + 1, names.size());
        EXPECT_EQ(names[i], names[i + 1] + "_MemSet") << "a MemSet names the node it runs before";
      }
    }
    EXPECT_EQ(memsets.size(), policy == 0 ? 1u : zeroed_ops(*exe).size()) << "policy " << policy;
    const auto trace = check_trace(read_text(p->output_dir() + "/msprof_0_1_1.json"));
    size_t in_trace = 0;
    for (const auto& e : trace)
      if (e.value("ph", "") == "X" && e.contains("args") && e["args"].value("Op Type", "") == "MemSet") ++in_trace;
    EXPECT_EQ(in_trace, memsets.size()) << "policy " << policy;
  }
}

}  // namespace
}  // namespace openge
