// A generated elementwise kernel loaded from its shared object, as the AI Core engine's kernel of
// a FusedElementwise node: the output is cut into chunks that parallel_for runs at once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen_eltwise.h"
#include "ops/kernel.h"

namespace openge::compiler {

// dlopen'ed shared object; closed when the last kernel using it goes.
class SharedObject {
 public:
  static Result<std::shared_ptr<SharedObject>> open(const std::string& path, const std::string& symbol);
  ~SharedObject();
  void* symbol() const { return symbol_; }

 private:
  void* handle_ = nullptr;
  void* symbol_ = nullptr;
};

struct EltwiseKernelChecks {
  bool oom = false;                       // the kernel reports out-of-bounds accesses (EZ9999)
  bool check_flag = false;                // every chunk's set_flag must reach the launching thread's wait_flag
  int64_t check_flag_timeout_ms = 10000;  // how long wait_flag waits (stream_sync_timeout when set)
};

std::unique_ptr<CompiledKernel> make_eltwise_kernel(std::shared_ptr<SharedObject> so, EltwiseKernelSpec spec,
                                                    EltwiseKernelChecks checks);

}  // namespace openge::compiler
