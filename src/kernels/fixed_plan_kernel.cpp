#include "kernels/fixed_plan_kernel.h"

namespace openge {
namespace {

class FixedPlanKernel final : public CompiledKernel {
 public:
  explicit FixedPlanKernel(std::unique_ptr<CompiledKernel> inner) : inner_(std::move(inner)) {}
  // oneDNN's gemm paths read the thread count again when they run: keep it at the plan's.
  Status run(KernelContext& ctx) const override {
    ScopedNumThreads one(1);
    return inner_->run(ctx);
  }
  Engine engine() const override { return inner_->engine(); }
  KernelWorkspace last_workspace() const override { return inner_->last_workspace(); }
  size_t scratch_bytes() const override { return inner_->scratch_bytes(); }
  std::unique_ptr<KernelState> make_state(KernelContext& ctx) const override { return inner_->make_state(ctx); }

 private:
  std::unique_ptr<CompiledKernel> inner_;
};

}  // namespace

std::unique_ptr<CompiledKernel> wrap_fixed_plan(std::unique_ptr<CompiledKernel> kernel) {
  return std::make_unique<FixedPlanKernel>(std::move(kernel));
}

}  // namespace openge
