// Control flow in the executor: If, Loop and Scan nodes run their subgraphs as Executables,
// compiled by the same pipeline as the model itself (compiler/pipeline.h, reached through the
// SubgraphCompiler interface below: inference, folding, passes, kernel selection, memory plan) and
// run by the same Executable::run. There is no second
// interpreter: a subgraph is a Graph like any other, whose trailing inputs are the outer-scope
// values it reads (the loader made them explicit, Graph::captured_inputs).
#pragma once
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/executable.h"

namespace openge {

// How the runtime compiles a subgraph for the input shapes a run gives it. The compile pipeline
// implements it with the enclosing graph's options (compiler/pipeline.cpp), so the runtime runs
// subgraphs without depending on the compiler.
class SubgraphCompiler {
 public:
  virtual ~SubgraphCompiler() = default;
  virtual Result<std::unique_ptr<Executable>> compile(Graph graph, const std::vector<Shape>& input_shapes) const = 0;
};

// One subgraph, compiled on first use for the dtypes and shapes its inputs have and kept for the
// next iterations and runs. A loop whose state keeps its shape compiles its body once; one whose
// state grows compiles once per new shape, keeping the most recent kMaxPlans.
class SubgraphPlan {
 public:
  static constexpr size_t kMaxPlans = 8;

  SubgraphPlan(std::shared_ptr<const Graph> graph, std::shared_ptr<const SubgraphCompiler> compiler, std::string label);
  const Graph& graph() const { return *graph_; }
  // Inputs in the subgraph's input order (formal inputs, then captured values).
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs) const;

 private:
  Result<std::shared_ptr<const Executable>> plan_for(const std::vector<Tensor>& inputs) const;

  std::shared_ptr<const Graph> graph_;
  std::shared_ptr<const SubgraphCompiler> compiler_;
  std::string label_;  // "Loop 'loop1' body", for messages
  struct Entry {
    std::vector<ValueKind> kinds;
    std::vector<DType> dtypes;
    std::vector<Shape> shapes;
    std::shared_ptr<const Executable> exe;
  };
  mutable std::mutex mutex_;
  mutable std::list<Entry> plans_;  // most recently used first
};

// What the executor keeps for a node with subgraphs.
class ControlFlowNode {
 public:
  // `output_dtypes`: what inference decided for the node's outputs (kUndefined for omitted ones).
  static Result<std::unique_ptr<ControlFlowNode>> make(const Node& node, int64_t opset,
                                                       std::vector<DType> output_dtypes,
                                                       std::shared_ptr<const SubgraphCompiler> compiler);
  // Runs the node on its inputs (nullptr = omitted) and returns its outputs, owned.
  Result<std::vector<Tensor>> run(const std::vector<const Tensor*>& inputs) const;

 private:
  using RunFn = Result<std::vector<Tensor>> (*)(const ControlFlowNode&, const std::vector<const Tensor*>&);
  ControlFlowNode() = default;
  const SubgraphPlan& plan(const char* attribute) const;

  friend struct ControlFlowRunners;
  Node node_;
  int64_t opset_ = 0;
  std::vector<DType> output_dtypes_;
  std::vector<std::pair<std::string, std::unique_ptr<SubgraphPlan>>> plans_;  // by attribute name
  RunFn run_ = nullptr;
};

}  // namespace openge
