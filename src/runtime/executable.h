// A graph compiled for concrete input shapes: inferred, constant-folded, fused, with a kernel
// chosen per node and a static memory plan. run() is re-entrant: concurrent runs of one
// Executable each take their own arena from a pool.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aoe/tuning_stats.h"
#include "ir/graph.h"
#include "ops/kernel.h"
#include "ops/activation_format.h"
#include "ops/op_registry.h"
#include "passes/fusion_result.h"
#include "precision/precision_pass.h"
#include "runtime/branch_schedule.h"
#include "runtime/node_failure_hook.h"
#include "runtime/op_grain.h"
#include "runtime/thread_plan.h"

namespace openge {

namespace options { class OptionSet; }
namespace aoe { class TunedSelection; }
namespace graph_dump { class GraphDumper; }
class ControlFlowNode;  // runtime/control_flow.h
struct RunState;        // runtime/run_state.h

// How a run holds a value (decided at compile, runtime/run_state.h): kArena, a tensor placed in
// the arena once per run state; kShared, a tensor of fixed shape that shares another's storage
// during a run (graph inputs, outputs of Reshape-like nodes); kDynamic, assigned per run.
enum class SlotKind : uint8_t { kDynamic, kArena, kShared };

// Which stages of a compile run (docs/ARCHITECTURE.md, "Compiled models").
enum class CompileStages {
  kAll,          // infer and fold, passes, precision; kernel selection and memory plan
  kRewriteOnly,  // the graph rewrites only (openge compile: the result goes into a .oge)
  kPrecompiled,  // a graph read from a .oge, rewritten already: its types are checked by infer,
                 // then kernel selection and memory plan; no pass runs
};

struct CompileOptions {
  int num_threads = 0;         // 0: one per core
  // Nodes estimated below this many cycles run on the calling thread; 0: measured at compile
  // from the team's fork/join cost (runtime/op_grain.h). Tests pin it.
  int64_t threading_grain_cycles = 0;
  bool use_aicore = true;      // false: every node on the reference engine
  bool run_passes = true;
  CompileStages stages = CompileStages::kAll;
  // The session's validated configuration (precision, impl modes …); null: every default.
  std::shared_ptr<const options::OptionSet> config;
  // Drop the constants that kernels packed into their own buffers (packed_constant_release.h):
  // for a caller that will not read the compiled graph's constants. Not passed to subgraphs.
  bool release_packed_constants = false;
  // AOE operator tuning (aoe_config.aoe_mode 2): timed runs per candidate and for the model's
  // before/after times; 0: the default (aoe/tuned_selection.h).
  int aoe_repetitions = 0;
  // Set: a candidate of AOE subgraph tuning (aoe_mode 1), compiled without these passes; the
  // knowledge base's subgraph entry is not consulted and no tuning nests inside.
  std::optional<std::vector<std::string>> aoe_passes_off;
  // The knowledge base is read but nothing is tuned, whatever aoe_mode says (subgraphs of If /
  // Loop / Scan, compiled while the model runs).
  bool aoe_lookup_only = false;
  // Whether the runs use the thread team at all (runtime/thread_plan.h): timed at compile for a
  // small graph with a measured grain, or fixed by the caller.
  ThreadPlanChoice thread_plan = ThreadPlanChoice::kCalibrate;
  // Told of a node that fails during a run (the session's exception dump, enable_exception_dump);
  // null: nothing but the error. Subgraphs get the same hook.
  std::shared_ptr<const NodeFailureHook> failure_hook;
};

struct PassStat {
  std::string name;
  int matched = 0;
  int applied = 0;
};

struct CompiledNode {
  Node node;
  const OpSchema* schema = nullptr;
  std::unique_ptr<CompiledKernel> kernel;  // null: the reference kernel runs
  Engine engine = Engine::kAiCpu;
  bool static_outputs = false;             // output shapes known at compile time
  bool single_thread = false;              // too small for a team: runs on the calling thread (runtime/op_grain.h)
  int64_t estimated_cycles = -1;           // its work as op_grain.h estimates it; -1: not known at compile
  // If / Loop / Scan: the node's subgraphs, compiled and run as Executables of their own.
  std::shared_ptr<const ControlFlowNode> control_flow;
};

// What one run did, for CLIs and the profiler.
struct RunStats {
  size_t arena_bytes = 0;          // planned intermediates
  size_t peak_dynamic_bytes = 0;   // intermediates whose shape was only known at run time
};

// Called around every node of a run (profiling, dumps). Must be cheap when unset.
struct RunObserver {
  virtual ~RunObserver() = default;
  virtual void on_node_start(size_t index, const CompiledNode& node) {}
  virtual void on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                           const std::vector<const Tensor*>& outputs) {}
  // Around the hand-over of the graph outputs (copies out of the run's arena).
  virtual void on_outputs_start() {}
  virtual void on_outputs_end(size_t copied_bytes) {}
};

class Executable {
 public:
  ~Executable();
  // `input_shapes` gives one concrete shape per graph input (graph order).
  static Result<std::unique_ptr<Executable>> compile(Graph graph, const std::vector<Shape>& input_shapes,
                                                     const CompileOptions& options);

  // Inputs in graph-input order; outputs in graph-output order, owned by the caller.
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs, RunStats* stats = nullptr,
                                  RunObserver* observer = nullptr) const;
  // The same, writing the outputs into `outputs`: a tensor there that already has the output's
  // dtype and shape and whose storage nobody else holds (the previous run's, typically) is
  // overwritten in place; the rest are replaced. A run of a static-shape graph into reused
  // outputs allocates nothing (docs/DECISIONS.md, "allocation-free runs").
  Status run_into(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunStats* stats = nullptr,
                  RunObserver* observer = nullptr) const;

  const Graph& graph() const { return graph_; }
  const std::vector<CompiledNode>& nodes() const { return nodes_; }
  const std::vector<PassStat>& pass_stats() const { return pass_stats_; }
  // What the precision pass decided for each node (empty when the session has no configuration).
  const std::vector<precision::PrecisionDecision>& precision_decisions() const { return precision_decisions_; }
  // Settings the precision pass ignored, and why (customize_dtypes under must_keep_origin_dtype …).
  const std::vector<std::string>& precision_warnings() const { return precision_warnings_; }
  // The options the graph rewrites (passes, precision) read: the ones that shaped the graph.
  const std::set<std::string>& shaping_options() const { return shaping_options_; }
  size_t arena_bytes() const { return arena_bytes_; }
  // The format value `v` is stored in (NCHW, or the NHWC / NC1HWC0 of a channels-last region:
  // ops/activation_format.h).
  ActivationFormat stored_format(int v) const {
    return v >= 0 && static_cast<size_t>(v) < value_formats_.size() ? value_formats_[static_cast<size_t>(v)]
                                                                      : ActivationFormat::kNchw;
  }
  // Below which estimated work a node ran on the calling thread, and the fork/join cost it came
  // from (runtime/op_grain.h).
  const ThreadingGrain& threading_grain() const { return grain_; }
  // The order of a run: one node per step, or two independent branches of one-thread nodes at
  // once (runtime/branch_schedule.h).
  const std::vector<RunStep>& run_steps() const { return steps_; }
  // True for a Concat whose producers write straight into its output (it does not run).
  bool concat_in_place(size_t node) const { return node < concat_in_place_.size() && concat_in_place_[node]; }
  // Whether the runs use the team or only the calling thread (runtime/thread_plan.h), and the
  // median run times of each plan when the compile timed them (-1: not timed).
  RunThreads run_threads() const { return run_threads_; }
  double timed_team_us() const { return timed_team_us_; }
  double timed_one_thread_us() const { return timed_one_thread_us_; }
  // Bytes of constants dropped because their kernels keep packed copies.
  size_t released_constant_bytes() const { return released_constant_bytes_; }
  size_t unplanned_total_bytes() const { return total_intermediate_bytes_; }
  // What AOE did in this compile: knowledge-base hits, and in a tuning run each operator's times.
  const aoe::TuningStats& tuning_stats() const { return tuning_stats_; }

 private:
  Executable() = default;
  Status infer_and_fold();
  Status check_declared_outputs() const;
  // The passes fusion_switch_file leaves on (`shaping` null: all) that run before the precision
  // pass, or (after_precision) after it. `shaping` chooses the passes (fusion_switch_file ...);
  // `config` locates fusion_result.json, written after the second call.
  Status run_passes(graph_dump::GraphDumper& dump, const options::OptionSet* shaping, const options::OptionSet* config,
                    bool after_precision);
  Status apply_precision(const options::OptionSet& config);
  Status rewrite(const CompileOptions& options, graph_dump::GraphDumper& dump);
  // kPrecompiled: every node's infer agrees with the types the .oge stores (runtime/precompiled_check.cpp).
  Status check_precompiled();
  void remove_dead_nodes();
  Status select_kernels(const CompileOptions& options, aoe::TunedSelection& tuning);
  // After a tuning run: the knowledge base saved, the model timed with the default and the tuned
  // kernels, the record written (runtime/aoe_tuning_run.cpp).
  Status finish_tuning(aoe::TunedSelection& tuning, double started_seconds);
  // aoe_mode 1: compiles the graph with each graph-level choice (the passes that rewrote it, one
  // at a time switched off), keeps the fastest and stores it (runtime/aoe_tuning_run.cpp).
  static Result<std::unique_ptr<Executable>> tune_subgraphs(Graph graph, const std::vector<Shape>& input_shapes,
                                                            const CompileOptions& options);
  // Every compile with a configuration: the passes the knowledge base's entry for this graph
  // switches off (aoe_mode 1's winner).
  void read_tuned_passes(const options::OptionSet& config);
  // The run's steps (schedule_steps), then every planned buffer's place in the arena, each
  // living from the step that writes it to the last step that reads it.
  void plan_memory_layout();
  // Which values live in the arena (`planned_values`), which share storage, and which nodes run
  // on a prepared context.
  void decide_slots(const std::vector<int>& planned_values);
  // Concat in place (issue 13 item 2): a Concat over contiguous slices (every dim before its axis
  // is 1) whose inputs are planned buffers that it alone reads gets them placed inside its own
  // output's buffer (inside_of: that output, inside_offset: the byte offset), and does not run.
  void place_concat_inputs(const std::vector<char>& planned, std::vector<int>& inside_of,
                           std::vector<size_t>& inside_offset);
  void schedule_steps();
  // What kernel selection and the grain see of a node: its inputs' and outputs' dtypes, shapes
  // and constant values in this graph.
  KernelRequest kernel_request(const Node& node, bool deterministic) const;
  // True for a graph the compile may time both thread plans of (runtime/thread_plan.h): static
  // shapes, no control flow, estimated under kCalibrationMaxCycles.
  bool small_static_graph() const;
  // Sets run_threads_ for `choice`; kCalibrate times the graph both ways when select_kernels made
  // the one-thread kernels, and keeps the faster.
  void choose_thread_plan(ThreadPlanChoice choice);
  // Swaps the team plan and the one-thread plan (kernels, single_thread flags, branches).
  void swap_thread_plans();
  // The run's steps on `state` (the run loop of run_into).
  Status run_steps_on(RunState& state, RunObserver* observer, size_t& peak_dynamic) const;
  // A Reshape-like node whose output is a view of its input's storage.
  bool shares_input_storage(size_t node) const;
  // Runs node `s` of a run on `state`; `kernel_ran`: its compiled kernel ran (executable_run.cpp).
  Status run_node(size_t s, RunState& state, size_t& dynamic_bytes, size_t& peak_dynamic, bool& kernel_ran) const;
  // A failed node: its exception dump when enable_exception_dump is on, and the run's error.
  // `kernel_ran`: its compiled kernel ran on this thread just before (its workspace is dumped).
  Status node_failed(size_t index, const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                     const Status& failure, bool kernel_ran) const;
  // One run's working memory (runtime/run_state.h), taken from a pool and made on first use.
  std::unique_ptr<RunState> acquire_state() const;
  void release_state(std::unique_ptr<RunState> state) const;
  std::unique_ptr<RunState> make_run_state() const;
  // Forgets the pooled run states: each holds kernel states made by the kernels of its time, so
  // a swap of kernels (AOE's before/after timing) must not reuse them.
  void drop_run_states();

  Graph graph_;
  std::vector<CompiledNode> nodes_;
  std::vector<PassStat> pass_stats_;
  std::vector<passes::FusionCount> fusion_counts_;  // both pass stages, for fusion_result.json
  std::vector<precision::PrecisionDecision> precision_decisions_;
  std::vector<std::string> precision_warnings_;
  std::set<std::string> shaping_options_;
  int num_threads_ = 0;
  ThreadingGrain grain_;
  bool grain_pending_ = false;  // to be measured once a node's decision depends on it
  std::shared_ptr<const NodeFailureHook> failure_hook_;  // null: enable_exception_dump=0
  bool release_packed_constants_ = false;  // for select_kernels (packed_constant_release.h)
  size_t released_constant_bytes_ = 0;
  aoe::TuningStats tuning_stats_;
  std::string subgraph_key_;               // aoe/knowledge_base.h subgraph_key, "" without a configuration
  std::vector<std::string> passes_off_;    // AOE subgraph tuning's choice for this graph
  bool subgraph_hit_ = false;              // passes_off_ came from the knowledge base
  int64_t stream_sync_timeout_ms_ = -1;                            // -1: runs are not timed
  bool dynamic_model_ = false;  // a graph input declared with a symbolic dimension
  std::vector<RunStep> steps_;
  RunThreads run_threads_ = RunThreads::kTeam;
  double timed_team_us_ = -1, timed_one_thread_us_ = -1;
  bool branches_allowed_ = true;  // false in the one-thread plan
  bool time_plans_ = false;       // select_kernels made one-thread kernels: choose_thread_plan times
  // During a compile that times the plans: each team node's kernel made for one thread (swapped
  // with the node's own while the one-thread plan is timed; runtime/thread_plan.cpp).
  struct OneThreadKernel {
    size_t node;
    std::unique_ptr<CompiledKernel> kernel;
    bool single_thread;
  };
  std::vector<OneThreadKernel> one_thread_kernels_;
  // Per value: offset in the arena (SIZE_MAX when not planned) and the step after which no
  // node reads it (its slot is released then).
  std::vector<size_t> arena_offset_;
  std::vector<int> last_use_;
  std::vector<int> alias_root_;     // value whose buffer an alias value shares (itself otherwise)
  // How a run state holds each value (runtime/run_state.h) and which nodes run on prepared
  // contexts (static shapes, every output in the arena); arena offset of each node's kernel
  // scratch (SIZE_MAX: none).
  std::vector<SlotKind> slot_kind_;
  std::vector<char> node_prepared_;
  std::vector<char> concat_in_place_;  // per node: a Concat whose inputs were written in place
  std::vector<ActivationFormat> value_formats_;  // per value (stored_format)
  std::vector<size_t> scratch_offset_;
  size_t arena_bytes_ = 0;
  size_t total_intermediate_bytes_ = 0;
  mutable std::mutex state_mutex_;
  mutable std::vector<std::unique_ptr<RunState>> state_pool_;
};

}  // namespace openge
