// The prepare step of the op contract (docs/ARCHITECTURE.md, "The op contract"): an op's schema
// row may name a PrepareFn that, for a node whose shapes are all static, decides once what its
// reference kernel would decide on every run (attributes, shapes, strides, broadcast plans, loop
// partitions, scratch sizes) and returns an AI CPU kernel that only computes. The executor
// keeps it as the node's kernel; nodes without one, or with shapes known only at run time, run
// the schema's reference kernel.
#pragma once
#include <memory>

#include "ops/kernel.h"

namespace openge {

// A prepared reference kernel: runs on the AI CPU engine.
class PreparedKernel : public CompiledKernel {
 public:
  Engine engine() const override { return Engine::kAiCpu; }
};

// True when every present input and output of the request has a fully known shape.
inline bool all_shapes_static(const KernelRequest& request) {
  auto known = [](const ValueInfo& v) {
    if (v.dtype == DType::kUndefined) return true;  // an omitted optional input
    if (!v.shape_known || v.kind != ValueKind::kTensor) return false;
    for (int64_t d : v.shape)
      if (d < 0) return false;
    return true;
  };
  for (const ValueInfo& v : request.inputs)
    if (!known(v)) return false;
  for (const ValueInfo& v : request.outputs)
    if (!known(v)) return false;
  return true;
}

// "Not prepared": the node runs the schema's reference kernel.
inline Result<std::unique_ptr<CompiledKernel>> not_prepared() { return std::unique_ptr<CompiledKernel>(); }

}  // namespace openge
