// A graph compiled for concrete input shapes, ready to run: each node's kernel, the run's steps
// and one static memory plan. It holds no compile code: the compile pipeline (compiler/pipeline.h)
// builds it, and nothing changes it afterwards. run() is re-entrant: concurrent runs of one
// Executable each take their own arena from a pool.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/layout/activation_format.h"
#include "ops/kernel.h"
#include "ops/op_registry.h"
#include "runtime/branch_schedule.h"
#include "runtime/node_failure_hook.h"
#include "runtime/run_threads.h"

namespace openge {

namespace compiler {
class ExecutableBuilder;
}
class ControlFlowNode;  // runtime/control_flow.h
struct RunState;        // runtime/run_state.h

// How a run holds a value (decided at compile, runtime/run_state.h): kArena, a tensor placed in
// the arena once per run state; kShared, a tensor of fixed shape that shares another's storage
// during a run (graph inputs, outputs of Reshape-like nodes); kDynamic, assigned per run.
enum class SlotKind : uint8_t { kDynamic, kArena, kShared };

struct CompiledNode {
  Node node;
  const OpSchema* schema = nullptr;
  std::unique_ptr<CompiledKernel> kernel;  // null: the reference kernel runs
  Engine engine = Engine::kAiCpu;
  bool static_outputs = false;    // output shapes known at compile time
  bool single_thread = false;     // too small for a team: runs on the calling thread (compiler/op_grain.h)
  int64_t estimated_cycles = -1;  // its work as op_grain.h estimates it; -1: not known at compile
  // If / Loop / Scan: the node's subgraphs, compiled and run as Executables of their own.
  std::shared_ptr<const ControlFlowNode> control_flow;
};

// What one run did, for CLIs and the profiler.
struct RunStats {
  size_t arena_bytes = 0;         // planned intermediates
  size_t peak_dynamic_bytes = 0;  // intermediates whose shape was only known at run time
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
  // Around a MemSet task (atomic_clean_policy): the outputs of the nodes that add into their
  // outputs zeroed before the first step (`before_node` -1, policy 0) or before that node (1).
  virtual void on_memset_start() {}
  virtual void on_memset_end(int before_node, size_t bytes) {}
};

class Executable {
 public:
  ~Executable();

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
  size_t arena_bytes() const { return arena_bytes_; }
  // The format value `v` is stored in (NCHW, or the NHWC / NC1HWC0 of a channels-last region:
  // ops/layout/activation_format.h).
  ActivationFormat stored_format(int v) const {
    return v >= 0 && static_cast<size_t>(v) < value_formats_.size() ? value_formats_[static_cast<size_t>(v)]
                                                                    : ActivationFormat::kNchw;
  }
  // Below which estimated work a node runs on the calling thread, and the fork/join cost it came
  // from (compiler/op_grain.h).
  const ThreadingGrain& threading_grain() const { return grain_; }
  // The order of a run: one node per step, or two independent branches of one-thread nodes at
  // once (runtime/branch_schedule.h).
  const std::vector<RunStep>& run_steps() const { return steps_; }
  // True for a Concat whose producers write straight into its output (it does not run).
  bool concat_in_place(size_t node) const { return node < concat_in_place_.size() && concat_in_place_[node]; }
  // Whether the runs use the team or only the calling thread (runtime/run_threads.h), and the
  // median run times of each plan when the compile timed them (-1: not timed).
  RunThreads run_threads() const { return run_threads_; }
  double timed_team_us() const { return timed_team_us_; }
  double timed_one_thread_us() const { return timed_one_thread_us_; }
  // Bytes of constants dropped because their kernels keep packed copies.
  size_t released_constant_bytes() const { return released_constant_bytes_; }
  size_t unplanned_total_bytes() const { return total_intermediate_bytes_; }
  // atomic_clean_policy (OPT-memory_config.atomic_clean_policy-1..3): 0, the outputs of every node
  // that adds into its outputs (ops/atomic_outputs.h) are zeroed in one MemSet before the first
  // step, and live in the arena from then on; 1, each such node's just before it runs.
  int atomic_clean_policy() const { return atomic_clean_policy_; }
  bool zeroes_outputs(size_t node) const { return node < zeroes_outputs_.size() && zeroes_outputs_[node]; }
  // AOE subgraph tuning's nonhomo_split chose tapered work splits for this graph's parallel loops
  // (base/parallel.h, WorkSplit): the runs set them around each node.
  bool tapered_work_split() const { return tapered_work_split_; }

 private:
  // Only the compile pipeline makes and fills an Executable (compiler/executable_builder.h).
  friend class compiler::ExecutableBuilder;
  Executable() = default;

  // The run's steps on `state` (the run loop of run_into).
  Status run_steps_on(RunState& state, RunObserver* observer, size_t& peak_dynamic) const;
  // A Reshape-like node whose output is a view of its input's storage.
  bool shares_input_storage(size_t node) const;
  // Runs node `s` of a run on `state`; `kernel_ran`: its compiled kernel ran (executable_run.cpp).
  Status run_node(size_t s, RunState& state, size_t& dynamic_bytes, size_t& peak_dynamic, bool& kernel_ran) const;
  // A failed node: the failure hook is told (the exception dump, when enable_exception_dump is
  // on), and the run's error returned. `kernel_ran`: its compiled kernel ran on this thread just
  // before (its workspace is dumped).
  Status node_failed(size_t index, const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                     const Status& failure, bool kernel_ran) const;
  // Zeroes node `s`'s outputs that live in the arena (a MemSet); returns the bytes cleared.
  size_t zero_outputs(size_t s, RunState& state) const;
  // One run's working memory (runtime/run_state.h), taken from a pool and made on first use.
  std::unique_ptr<RunState> acquire_state() const;
  void release_state(std::unique_ptr<RunState> state) const;
  std::unique_ptr<RunState> make_run_state() const;
  // Forgets the pooled run states: each holds kernel states made by the kernels of its time, so
  // a swap of kernels (the compile timing two thread plans or AOE's before/after) must not reuse
  // them.
  void drop_run_states();

  Graph graph_;
  std::vector<CompiledNode> nodes_;
  int num_threads_ = 0;
  ThreadingGrain grain_;
  std::shared_ptr<const NodeFailureHook> failure_hook_;  // null: nobody is told (enable_exception_dump=0)
  size_t released_constant_bytes_ = 0;
  int64_t stream_sync_timeout_ms_ = -1;  // -1: runs are not timed
  std::vector<RunStep> steps_;
  int atomic_clean_policy_ = 0;
  std::vector<char> zeroes_outputs_;  // per node: runs a kernel that adds into its outputs
  bool tapered_work_split_ = false;
  RunThreads run_threads_ = RunThreads::kTeam;
  double timed_team_us_ = -1, timed_one_thread_us_ = -1;
  // Per value: offset in the arena (SIZE_MAX when not planned) and the step after which no
  // node reads it (its slot is released then).
  std::vector<size_t> arena_offset_;
  std::vector<int> last_use_;
  std::vector<int> alias_root_;  // value whose buffer an alias value shares (itself otherwise)
  // How a run state holds each value (runtime/run_state.h) and which nodes run on prepared
  // contexts (static shapes, every output in the arena); arena offset of each node's kernel
  // scratch (SIZE_MAX: none).
  std::vector<SlotKind> slot_kind_;
  std::vector<char> node_prepared_;
  std::vector<char> concat_in_place_;            // per node: a Concat whose inputs were written in place
  std::vector<ActivationFormat> value_formats_;  // per value (stored_format)
  std::vector<size_t> scratch_offset_;
  size_t arena_bytes_ = 0;
  size_t total_intermediate_bytes_ = 0;
  mutable std::mutex state_mutex_;
  mutable std::vector<std::unique_ptr<RunState>> state_pool_;
};

}  // namespace openge
