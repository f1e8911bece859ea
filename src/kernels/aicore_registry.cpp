// Placeholder until the oneDNN kernels land: the AI Core engine covers nothing yet.
#include "kernels/compiled_kernel.h"

namespace openge {

Result<std::unique_ptr<CompiledKernel>> make_aicore_kernel(const KernelRequest& request) {
  return std::unique_ptr<CompiledKernel>();
}

}  // namespace openge
