// Measuring one node's kernel on the node's real shapes: constant inputs (weights) as the model
// has them, the others seeded random data, outputs allocated once; a few warm-up runs, then the
// median of `repetitions` timed runs. The kernel runs under the thread setting it would have in
// the compiled graph (its own team or the calling thread alone), as Executable::run sets it.
#pragma once
#include <vector>

#include "ops/kernel.h"

namespace openge::aoe {

class NodeBench {
 public:
  // Buffers for `request`'s node; every input and output must have a static shape.
  explicit NodeBench(const KernelRequest& request);
  // Median microseconds of one run of `kernel`; an error when the kernel fails.
  Result<double> median_us(const CompiledKernel& kernel, bool single_thread, int repetitions);

 private:
  const KernelRequest& request_;
  std::vector<Tensor> inputs_, outputs_;
};

// The median of `samples` (which it reorders).
double median(std::vector<double>& samples);

}  // namespace openge::aoe
