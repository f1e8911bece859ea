// One run's working memory, made once and reused by every later run of the same Executable, so
// that a run of a static-shape graph allocates nothing (docs/DECISIONS.md, "allocation-free
// runs"). Concurrent runs each take their own from the Executable's pool.
//
// - the arena: every planned intermediate, the graph outputs and the kernels' scratch;
// - one slot per value: kArena slots are tensors placed in the arena when the state is made and
//   never touched again; kShared slots keep their compiled shape and share a graph input's or an
//   aliased input's storage during a run (dropped after it); kDynamic slots are assigned per run;
// - per node: its input and output pointer lists and, for a prepared node (static shapes, every
//   output in the arena), the KernelContext its kernel runs with and the kernel's own state.
#pragma once
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "ops/op_context.h"
#include "openge/tensor.h"

namespace openge {

struct NodeRunState {
  std::vector<const Tensor*> inputs;          // constant, slot or null (omitted input)
  std::vector<Tensor*> outputs;               // slot or null (omitted output)
  std::vector<const Tensor*> const_outputs;   // the same, for RunObserver
  std::optional<KernelContext> context;       // prepared nodes only
  std::unique_ptr<KernelState> kernel_state;  // CompiledKernel::make_state(), if any
};

struct RunState {
  std::unique_ptr<void, void (*)(void*)> arena{nullptr, std::free};
  std::vector<Tensor> slots;
  std::vector<NodeRunState> nodes;
};

}  // namespace openge
