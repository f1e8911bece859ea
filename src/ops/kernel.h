// The kernel contract: the object chosen for one node of a compiled graph. It is created once when the graph is
// compiled (oneDNN primitives, packed weights …) and then run for every inference, possibly
// from several runs of the same Executable at once, so run() must not mutate shared state.
#pragma once
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ops/kernel_variant.h"
#include "ops/op_context.h"

namespace openge {

enum class Engine { kAiCore, kAiCpu };
inline const char* engine_name(Engine e) { return e == Engine::kAiCore ? "AI_CORE" : "AI_CPU"; }

// Memory a kernel works in besides its inputs and outputs (oneDNN's scratchpad): what an
// exception dump writes as the failing op's workspace (docs/FORMATS.md, "Exception dump"; one OpBuffer).
struct KernelWorkspace {
  const void* data = nullptr;
  size_t size = 0;
};

class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual Status run(KernelContext& ctx) const = 0;
  virtual Engine engine() const = 0;
  // False when the kernel keeps its own (packed) copy of constant input `input` and never reads
  // the input in run(): the compiled graph may then drop the constant (packed_constant_release.h).
  virtual bool reads_input_at_run_time(size_t input) const { return true; }
  // The workspace of this kernel's last run on the calling thread, as that run left it; valid
  // until the thread runs another kernel, so it is asked right after a run that failed or timed
  // out. Empty for kernels that have none (the reference and AI CPU kernels).
  virtual KernelWorkspace last_workspace() const { return {}; }
  // Bytes of scratch the kernel needs while it runs: the memory plan places them in the arena
  // for the length of the node (KernelContext::scratch()), instead of a temporary per run.
  virtual size_t scratch_bytes() const { return 0; }
  // Per-run-state mutable state (KernelContext::state()), or null when the kernel needs none.
  // `ctx` is the context the state will run with: its tensors (not their bytes) and scratch
  // stay the same for every run, so the state may bind pointers to them.
  virtual std::unique_ptr<KernelState> make_state(KernelContext& ctx) const { return nullptr; }
};

// The kernel's state for this run: the one the executor prepared, else one made now into `temp`
// (a kernel run outside an executor: kernel tests, subgraph runs of folded nodes).
template <class S>
S& state_for_run(const CompiledKernel& kernel, KernelContext& ctx, std::unique_ptr<KernelState>& temp) {
  if (ctx.state()) return static_cast<S&>(*ctx.state());
  temp = kernel.make_state(ctx);
  return static_cast<S&>(*temp);
}

// What kernel selection knows about a node: inferred infos of its inputs and outputs (static
// shapes when known; constant data for initializers such as weights).
struct KernelRequest {
  const Node& node;
  int64_t opset;
  std::vector<ValueInfo> inputs;  // dtype kUndefined for an omitted optional input
  std::vector<ValueInfo> outputs;
  // deterministic=1: kernels that reduce are built so that no thread count changes their bits
  // (kernels/fixed_plan_kernel.h).
  bool deterministic = false;
  // Which implementation to build (the default, or a tuned one: src/aoe/tuned_selection.h).
  KernelVariant variant = {};
};

// The AI Core engine's kernel for this node, or nullptr when the engine does not cover it
// (op type, dtype, dynamic shape …); the AI CPU engine then runs the node. An error only for
// a real failure (e.g. oneDNN rejected a primitive it should support).
Result<std::unique_ptr<CompiledKernel>> make_aicore_kernel(const KernelRequest& request);

}  // namespace openge
