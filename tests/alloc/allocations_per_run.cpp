// A run of a static-shape model allocates nothing (docs/DECISIONS.md,
// "Allocation-free runs"): after a warm-up run, a Session::run into the previous run's outputs
// is counted with the allocator of this binary (alloc_counter.h), on every thread, and fails on
// any allocation but those oneDNN makes inside its own execution (reported). A failure names each
// allocating node, who allocated (OpenGE, oneDNN, the OpenMP runtime) and where. The models are real ONNX files written
// by make_alloc_models.py (OPENGE_ALLOC_MODELS).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "frontend/onnx_loader.h"
#include "openge/session.h"
#include "compiler/pipeline.h"

namespace openge::alloc_test {
namespace {

std::string model_path(const std::string& name) {
  const char* dir = std::getenv("OPENGE_ALLOC_MODELS");
  return dir ? std::string(dir) + "/" + name + ".onnx" : std::string();
}

// Names the running node for the allocations that follow; allocates nothing itself.
class NodeMarker final : public RunObserver {
 public:
  void on_node_start(size_t index, const CompiledNode&) override { set_current_node(static_cast<int>(index)); }
  void on_node_end(size_t, const CompiledNode&, const std::vector<const Tensor*>&,
                   const std::vector<const Tensor*>&) override {
    set_current_node(-1);
  }
};

Tensor ramp(const Shape& shape) {
  Tensor t(DType::kFloat32, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>((i * 37) % 101) / 50.0f - 1.0f;
  return t;
}

size_t count_of(const std::vector<Allocation>& allocs, Culprit c) {
  size_t n = 0;
  for (const Allocation& a : allocs) n += a.culprit == c;
  return n;
}

// "node 3 Transpose 'transpose_12': 2 OpenGE (openge::transpose_kernel(...))" per node and culprit.
std::string per_node(const std::vector<Allocation>& allocs, const Executable* exe) {
  std::map<std::pair<int, std::string>, std::pair<int, std::string>> rows;
  for (const Allocation& a : allocs) {
    auto& row = rows[{a.node, culprit_name(a.culprit)}];
    ++row.first;
    if (row.second.empty()) row.second = a.where;
  }
  std::ostringstream out;
  for (const auto& [key, row] : rows) {
    out << "  ";
    if (key.first < 0)
      out << "outside any node";
    else if (exe) {
      const Node& n = exe->nodes()[static_cast<size_t>(key.first)].node;
      out << "node " << key.first << " " << n.op_type << " '" << n.name << "'";
    } else
      out << "node " << key.first;
    out << ": " << row.first << " by " << key.second << " (first at " << row.second << ")\n";
  }
  return out.str();
}

struct Counted {
  std::vector<Allocation> allocs;
  std::string report;
};

// Session::run into reused outputs, third run (the first compiles, the second warms).
Counted count_session_run(const std::string& path, int threads, bool use_aicore = true) {
  SessionOptions options;
  options.num_threads = threads;
  options.use_aicore = use_aicore;
  auto session = Session::open(path, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  std::vector<Tensor> inputs{ramp((*session)->inputs()[0].shape)};
  std::vector<Tensor> outputs;
  for (int warm = 0; warm < 2; ++warm) {
    Status s = (*session)->run(inputs, outputs);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  std::vector<const void*> before;
  for (const Tensor& t : outputs) before.push_back(t.raw());
  auto fresh = (*session)->run(inputs);
  EXPECT_TRUE(fresh.ok());

  start_counting();
  Status ran = (*session)->run(inputs, outputs);
  std::vector<Allocation> allocs = stop_counting();
  EXPECT_TRUE(ran.ok()) << ran.message();
  // Written in place, and the same values as a run into new outputs.
  EXPECT_EQ(outputs.size(), fresh->size());
  for (size_t i = 0; i < outputs.size() && i < fresh->size(); ++i) {
    EXPECT_EQ(outputs[i].raw(), before[i]) << "output " << i << " was not written in place";
    EXPECT_EQ(outputs[i].shape(), (*fresh)[i].shape());
    if (outputs[i].shape() != (*fresh)[i].shape()) continue;
    EXPECT_EQ(std::memcmp(outputs[i].raw(), (*fresh)[i].raw(), outputs[i].nbytes()), 0) << "output " << i;
  }
  return {allocs, per_node(allocs, nullptr)};
}

// The same graph as an Executable, run node by node under NodeMarker: who allocates, by node.
Counted count_executable_run(const std::string& path, int threads, bool use_aicore = true) {
  auto graph = load_onnx(path);
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  if (!graph.ok()) return {};
  Shape shape;
  for (int64_t d : *graph->values[static_cast<size_t>(graph->inputs[0])].shape) shape.push_back(d);
  CompileOptions options;
  options.num_threads = threads;
  options.use_aicore = use_aicore;
  auto exe = compiler::compile(std::move(graph.value()), {shape}, options);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  std::vector<Tensor> inputs{ramp(shape)}, outputs;
  NodeMarker marker;
  for (int warm = 0; warm < 2; ++warm) EXPECT_TRUE((*exe)->run_into(inputs, outputs, nullptr, &marker).ok());
  start_counting();
  Status ran = (*exe)->run_into(inputs, outputs, nullptr, &marker);
  std::vector<Allocation> allocs = stop_counting();
  EXPECT_TRUE(ran.ok()) << ran.message();
  return {allocs, per_node(allocs, exe->get())};
}

void expect_no_allocations(const std::string& name, bool use_aicore = true) {
  const std::string path = model_path(name);
  ASSERT_FALSE(path.empty()) << "OPENGE_ALLOC_MODELS must name the folder make_alloc_models.py wrote";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(name + ", " + std::to_string(threads) + " thread(s)" + (use_aicore ? "" : ", AI CPU engine only"));
    const Counted by_node = count_executable_run(path, threads, use_aicore);
    const Counted session = count_session_run(path, threads, use_aicore);
    const size_t onednn = count_of(session.allocs, Culprit::kOneDnnExecute);
    std::printf(
        "%s%s, %d thread(s): Session::run %zu allocations (OpenGE %zu, oneDNN internal %zu, OpenMP %zu, other %zu)\n%s",
        name.c_str(), use_aicore ? "" : " (AI CPU engine)", threads, session.allocs.size(),
        count_of(session.allocs, Culprit::kOpenGE), onednn, count_of(session.allocs, Culprit::kOpenMp),
        count_of(session.allocs, Culprit::kOther), by_node.report.c_str());
    // oneDNN's own execution allocates inside the library (alloc_counter.h; docs/DECISIONS.md,
    // "allocation-free runs"): reported above, not counted against the run. Everything else is.
    EXPECT_EQ(session.allocs.size() - onednn, 0u) << "Session::run allocated:\n"
                                                  << session.report << "by node:\n"
                                                  << by_node.report;
    EXPECT_EQ(by_node.allocs.size() - count_of(by_node.allocs, Culprit::kOneDnnExecute), 0u)
        << "Executable::run_into allocated, by node:\n"
        << by_node.report;
  }
}

TEST(AllocationsPerRun, OneDnnConvMatMulModelAllocatesNothing) { expect_no_allocations("onednn_conv_matmul"); }

TEST(AllocationsPerRun, ReferenceOpsModelAllocatesNothing) { expect_no_allocations("reference_ops"); }

TEST(AllocationsPerRun, ResNetShapedModelAllocatesNothing) { expect_no_allocations("resnet_small"); }

// Depthwise conv with HardSwish, squeeze-and-excitation, ShuffleChannel, bilinear Resize on AI
// Core, and batch-1 LSTM and GRU on the small-batch recurrent kernel; the test first checks that
// the compiled graph has those kernels, so that a change of fusion or placement cannot empty it.
TEST(AllocationsPerRun, MobileAndRecurrentModelAllocatesNothing) {
  const std::string path = model_path("mobile_recurrent");
  ASSERT_FALSE(path.empty());
  auto graph = load_onnx(path);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  CompileOptions options;
  options.num_threads = 1;
  auto exe = compiler::compile(std::move(graph.value()), {{1, 8, 16, 16}}, options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::map<std::string, Engine> engines;
  for (const CompiledNode& cn : (*exe)->nodes()) engines[cn.node.op_type] = cn.engine;
  for (const char* op : {"Resize", "LSTM", "GRU"}) {
    ASSERT_TRUE(engines.count(op)) << op;
    EXPECT_EQ(engines[op], Engine::kAiCore) << op;
  }
  EXPECT_TRUE(engines.count("ShuffleChannel"));
  expect_no_allocations("mobile_recurrent");
}

// Every node on its reference kernel (SessionOptions::use_aicore = false): the prepared AI CPU
// kernels (ops/prepared_kernel.h) of the common ops.
TEST(AllocationsPerRun, ReferenceOpsModelOnTheAiCpuEngineAllocatesNothing) {
  expect_no_allocations("reference_ops", /*use_aicore=*/false);
}

// The counter counts: a run into new outputs allocates them, and the test sees it.
TEST(AllocationsPerRun, CounterSeesTheOutputsOfARunIntoNewOutputs) {
  const std::string path = model_path("onednn_conv_matmul");
  ASSERT_FALSE(path.empty());
  auto session = Session::open(path);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<Tensor> inputs{ramp((*session)->inputs()[0].shape)};
  ASSERT_TRUE((*session)->run(inputs).ok());
  start_counting();
  auto out = (*session)->run(inputs);
  const std::vector<Allocation> allocs = stop_counting();
  ASSERT_TRUE(out.ok());
  EXPECT_GE(count_of(allocs, Culprit::kOpenGE), 2u);  // the vector and the output's bytes
}

}  // namespace
}  // namespace openge::alloc_test
