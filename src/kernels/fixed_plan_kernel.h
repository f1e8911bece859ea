// deterministic=1 for the AI Core engine. oneDNN picks a primitive's blocking (how the reduction
// over K or over input channels is cut and in which order the pieces are added) from the thread
// count it sees when the primitive is created, and its gemm paths split K between threads when
// they run; so a Conv or MatMul can give other bits at another thread count (measured: a 3x3
// Conv with 2048 input channels differs between 1 and 16 threads, brgconv). Under
// deterministic=1 the kernels that reduce are created and run with a one-thread plan, the one
// configuration that no thread count changes; the reference kernels need nothing (each output
// is reduced by one thread in an order fixed by the shapes, see parallel_for).
#pragma once
#include "base/omp_threads.h"
#include "ops/kernel.h"

namespace openge {

// `build()`'s kernel created under a one-thread plan and wrapped so that it also runs on one
// thread; nullptr stays nullptr.
template <class Build>
Result<std::unique_ptr<CompiledKernel>> make_fixed_plan_kernel(Build&& build);

std::unique_ptr<CompiledKernel> wrap_fixed_plan(std::unique_ptr<CompiledKernel> kernel);

template <class Build>
Result<std::unique_ptr<CompiledKernel>> make_fixed_plan_kernel(Build&& build) {
  Result<std::unique_ptr<CompiledKernel>> made = std::unique_ptr<CompiledKernel>();
  {
    ScopedNumThreads one(1);
    made = build();
  }
  if (!made.ok() || !*made) return made;
  return wrap_fixed_plan(std::move(made.value()));
}

}  // namespace openge
