// The state one compile carries from stage to stage (compiler/pipeline.h lists the stages): the
// Executable being built, which only this class may fill (it is the runtime's friend), the report
// beside it, and what the stages tell each other. Internal to compiler/.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/compile_report.h"
#include "ops/graph_infer.h"
#include "passes/fusion_result.h"
#include "passes/pass_context.h"
#include "runtime/executable.h"

namespace openge {
class SubgraphCompiler;  // runtime/control_flow.h
namespace aoe {
class TunedSelection;
}
namespace precision {
struct PrecisionSetup;
}
namespace graph_dump {
class GraphDumper;
}
}  // namespace openge

namespace openge::compiler {

// Seconds on the steady clock (pipeline.cpp): what the AOE stages time compiles and runs with.
double now_seconds();

// aoe_mode 1 (aoe_tuning.cpp): compiles the graph with each graph-level choice (the passes that
// rewrote it, one at a time switched off), keeps the fastest and stores it in the knowledge base.
Result<std::unique_ptr<Executable>> tune_subgraphs(Graph graph, const std::vector<Shape>& input_shapes,
                                                   const CompileOptions& options, CompileReport* report);

// The compiler the runtime's control-flow nodes compile their subgraphs with (pipeline.cpp):
// `options` of the enclosing graph, made for subgraphs (no tuning, constants kept).
std::shared_ptr<const SubgraphCompiler> subgraph_compiler(CompileOptions options);

class ExecutableBuilder {
 public:
  ExecutableBuilder(Graph graph, const CompileOptions& options);
  // Every stage in order (pipeline.cpp); the Executable, or the first stage's error.
  Result<std::unique_ptr<Executable>> build(const std::vector<Shape>& input_shapes);
  CompileReport& report() { return report_; }

 private:
  // pipeline.cpp: each graph input takes its concrete shape (checked against the declared one).
  Status bind_input_shapes(const std::vector<Shape>& input_shapes);

  // infer_and_fold.cpp: every node's infer in topological order, constant subgraphs folded.
  Status infer_and_fold();
  // kPrecompiled: every node's infer agrees with the types the .oge stores.
  Status check_precompiled();
  // The graph computes the kinds, dtypes and shapes its outputs declare.
  Status check_declared_outputs() const;

  // graph_rewrite.cpp: the passes fusion_switch_file leaves on, dead-node removal, the precision
  // pass, then the passes that follow it; records which options shaped the graph.
  Status rewrite(graph_dump::GraphDumper& dump);

  // kernel_selection.cpp: a kernel per node (AI Core, the knowledge base's or a measured variant,
  // online-compiled fused kernels, the reference kernel's prepare step), and each node's thread
  // decision from the grain.
  Status select_kernels(aoe::TunedSelection& tuning);
  // What kernel selection and the grain see of a node: its inputs' and outputs' dtypes, shapes
  // and constant values in this graph.
  openge::KernelRequest kernel_request(const Node& node, bool deterministic) const;

  // memory_layout.cpp: the run's steps (two branches at once where they pay), then every planned
  // buffer's place in the arena, each living from the step that writes it to the last that reads it.
  void plan_memory_layout();

  // aoe_tuning.cpp: after a tuning run the knowledge base saved, the model timed with the default
  // and the tuned kernels, the record written; knowledge-base hits logged.
  Status finish_tuning(aoe::TunedSelection& tuning, double started_seconds);

  // thread_plan.cpp: run_threads for `choice`; kCalibrate times the graph both ways when
  // select_kernels made the one-thread kernels, and keeps the faster.
  void choose_thread_plan(ThreadPlanChoice choice);

  // graph_rewrite.cpp: the passes' settings for this compile (passes/pass_context.h), and the
  // passes of one side of the precision pass run with them.
  PassContext pass_context(const precision::PrecisionSetup* precision_setup) const;
  Status run_passes(graph_dump::GraphDumper& dump, const PassContext& context, bool after_precision);
  Status apply_precision(precision::PrecisionSetup& setup);
  void remove_dead_nodes();
  // aoe_tuning.cpp: the passes the knowledge base's entry for this graph switches off (aoe_mode
  // 1's winner).
  void read_tuned_passes(const paths::ResolvedPath& aoe_data);
  // pipeline.cpp: the folder the grain calibration is kept in ("" without a configuration).
  std::string grain_cache_root() const;
  // memory_layout.cpp
  void decide_slots(const std::vector<int>& planned_values);
  // Concat in place: a Concat over contiguous slices (every dim before its axis is 1) whose
  // inputs are planned buffers that it alone reads gets them placed inside its own output's
  // buffer (inside_of: that output, inside_offset: the byte offset), and does not run.
  void place_concat_inputs(const std::vector<char>& planned, std::vector<int>& inside_of,
                           std::vector<size_t>& inside_offset);
  void schedule_steps();
  // thread_plan.cpp: true for a graph the compile may time both thread plans of: static shapes,
  // no control flow, estimated under kCalibrationMaxCycles.
  bool small_static_graph() const;
  // Swaps the team plan and the one-thread plan (kernels, single_thread flags, branches).
  void swap_thread_plans();

  std::unique_ptr<Executable> exe_;
  const CompileOptions& options_;
  CompileReport report_;
  bool release_packed_constants_ = false;           // the pipeline's decision, for select_kernels
  std::vector<passes::FusionCount> fusion_counts_;  // both pass stages, for fusion_result.json
  bool grain_pending_ = false;                      // the grain is to be measured once a node's decision depends on it
  bool dynamic_model_ = false;                      // a graph input declared with a symbolic dimension
  std::vector<std::string> passes_off_;             // AOE subgraph tuning's choice for this graph
  bool subgraph_hit_ = false;                       // passes_off_ came from the knowledge base
  bool branches_allowed_ = true;                    // false in the one-thread plan
  bool time_plans_ = false;                         // select_kernels made one-thread kernels: choose_thread_plan times
  // During a compile that times the plans: each team node's kernel made for one thread (swapped
  // with the node's own while the one-thread plan is timed; thread_plan.cpp).
  struct OneThreadKernel {
    size_t node;
    std::unique_ptr<CompiledKernel> kernel;
    bool single_thread;
  };
  std::vector<OneThreadKernel> one_thread_kernels_;
};

}  // namespace openge::compiler
