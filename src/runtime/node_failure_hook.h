// What a run tells when one of its nodes fails: the exception dump (dump/exception_dump.h)
// implements it; the session hands it to the compile (CompileOptions::failure_hook). The runtime
// knows only this interface, so it depends on no artifact writer.
#pragma once
#include <cstddef>
#include <vector>

#include "ops/kernel.h"
#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

struct CompiledNode;  // runtime/executable.h

class NodeFailureHook {
 public:
  virtual ~NodeFailureHook() = default;
  // Node `index` of a run failed with `failure` (outputs may be empty when the op failed before
  // they were allocated; `workspace` is empty when its kernel has none or did not run). Returns
  // the run's error: `failure`, possibly naming what the hook wrote; it never replaces it.
  virtual Status on_node_failed(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                                const std::vector<const Tensor*>& outputs, KernelWorkspace workspace,
                                const Status& failure) const = 0;
};

}  // namespace openge
