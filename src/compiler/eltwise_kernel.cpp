#include "compiler/eltwise_kernel.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "base/parallel.h"
#include "base/trusted_path.h"

namespace openge::compiler {
namespace {

using KernelFn = int (*)(const float* const*, float*, int64_t, int64_t, int64_t*, int*);

// Below this many elements a chunk costs more in thread wake-up than it saves.
constexpr int64_t kMinElementsPerChunk = 16384;

class EltwiseKernel final : public CompiledKernel {
 public:
  EltwiseKernel(std::shared_ptr<SharedObject> so, EltwiseKernelSpec spec, EltwiseKernelChecks checks)
      : so_(std::move(so)), fn_(reinterpret_cast<KernelFn>(so_->symbol())), spec_(std::move(spec)), checks_(checks) {}

  Engine engine() const override { return Engine::kAiCore; }

  Status run(KernelContext& ctx) const override {
    // Small per-run lists on the stack (a run allocates nothing); unusually many inputs or
    // threads in temporaries.
    constexpr size_t kInline = 64;
    const float* ins_inline[kInline];
    std::vector<const float*> ins_heap;
    if (spec_.inputs.size() > kInline) ins_heap.resize(spec_.inputs.size());
    const float** ins = spec_.inputs.size() > kInline ? ins_heap.data() : ins_inline;
    for (size_t k = 0; k < spec_.inputs.size(); ++k) {
      const Tensor& t = ctx.input(k);
      // Compiled for these sizes: anything else would be read out of bounds.
      if (t.dtype() != DType::kFloat32 || t.numel() != spec_.inputs[k].mod)
        return ctx.error("kernel " + spec_.kernel_name + " was compiled for " + std::to_string(spec_.inputs[k].mod) +
                         " fp32 elements in input " + std::to_string(k) + ", got " + std::to_string(t.numel()));
      ins[k] = t.data<float>();
    }
    Tensor& y = ctx.output(0);
    if (y.numel() != spec_.numel)
      return ctx.error("kernel " + spec_.kernel_name + ": output size differs from the compiled one");
    float* out = y.data<float>();
    const int64_t n = spec_.numel;
    const int64_t chunks = std::clamp<int64_t>(n / kMinElementsPerChunk, 1, std::max(1, num_threads()));
    int done_inline[kInline] = {}, codes_inline[kInline] = {};
    int64_t reports_inline[kInline * 4] = {};
    std::vector<int> done_heap, codes_heap;
    std::vector<int64_t> reports_heap;
    const bool inline_chunks = static_cast<size_t>(chunks) <= kInline;
    if (!inline_chunks) {
      done_heap.assign(static_cast<size_t>(chunks), 0);
      codes_heap.assign(static_cast<size_t>(chunks), 0);
      reports_heap.assign(static_cast<size_t>(chunks) * 4, 0);
    }
    int* done = inline_chunks ? done_inline : done_heap.data();
    int* codes = inline_chunks ? codes_inline : codes_heap.data();
    int64_t* reports = inline_chunks ? reports_inline : reports_heap.data();
    int64_t unsignalled = -1;  // check_flag: the first chunk whose flag the wait did not see
    parallel_for(chunks, int64_t{1} << 20, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c)
        codes[static_cast<size_t>(c)] = fn_(ins, out, n * c / chunks, n * (c + 1) / chunks,
                                            &reports[static_cast<size_t>(c) * 4], &done[static_cast<size_t>(c)]);
      // The thread that ran chunk 0 is the stream's synchronisation point: once its own chunks
      // are done it waits for every chunk's flag while the others may still be running.
      if (checks_.check_flag && b == 0) unsignalled = wait_flags(done, chunks);
    });
    for (int64_t c = 0; c < chunks; ++c)
      if (codes[static_cast<size_t>(c)] != 0)
        return oom_error(ctx, codes[static_cast<size_t>(c)], &reports[static_cast<size_t>(c) * 4]);
    if (unsignalled >= 0) return sync_timeout_error(ctx, unsignalled, chunks);
    return Status::Ok();
  }

 private:
  // wait_flag: every chunk's flag, until check_flag_timeout_ms has passed; the first chunk whose
  // flag never came, or -1.
  int64_t wait_flags(const int* done, int64_t chunks) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(checks_.check_flag_timeout_ms);
    for (int64_t c = 0; c < chunks; ++c)
      while (!__atomic_load_n(&done[static_cast<size_t>(c)], __ATOMIC_ACQUIRE)) {
        if (std::chrono::steady_clock::now() >= deadline) return c;
        std::this_thread::yield();
      }
    return -1;
  }

  // CANN's two messages of a synchronisation mismatch (OPT-op_debug_config-13), at the faulty operator.
  Status sync_timeout_error(KernelContext& ctx, int64_t chunk, int64_t chunks) const {
    return internal_error(
        "EZ9999: Aicore kernel execute failed, device_id=0, stream_id=0, task_id=" + std::to_string(chunk) +
        ", fault kernel_name=" + spec_.kernel_name + ", fault op " + ctx.node().op_type + " '" + spec_.node_name +
        "'; rtStreamSynchronizeWithTimeout execute "
        "failed, reason=[stream sync timeout]: after " +
        std::to_string(checks_.check_flag_timeout_ms) + " ms chunk " + std::to_string(chunk) + " of " +
        std::to_string(chunks) +
        " has not set its flag (set_flag PIPE_MTE3 -> PIPE_S, EVENT_ID0; op_debug_config check_flag)");
  }

  Status oom_error(KernelContext& ctx, int code, const int64_t* r) const {
    std::string ops;
    for (const EltwiseStep& s : spec_.program.steps) ops += (ops.empty() ? "" : ", ") + s.op + " '" + s.name + "'";
    const bool read = r[0] == 1;
    const std::string what =
        read ? "read of input " + std::to_string(r[1]) + " ('" + spec_.input_names[static_cast<size_t>(r[1])] + "')"
             : "write of the output";
    char trap[16];
    std::snprintf(trap, sizeof trap, "0X%X", static_cast<unsigned>(code));
    return internal_error("EZ9999: out-of-bounds Global Memory access in kernel " + spec_.kernel_name + " of " +
                          ctx.node().op_type + " '" + spec_.node_name + "' (ops " + ops + "): " + what +
                          " at element " + std::to_string(r[2]) + " of a tensor of " + std::to_string(r[3]) +
                          " elements (trap " + trap + ", op_debug_config oom)");
  }

  std::shared_ptr<SharedObject> so_;
  KernelFn fn_;
  EltwiseKernelSpec spec_;
  EltwiseKernelChecks checks_;
};

}  // namespace

Result<std::shared_ptr<SharedObject>> SharedObject::open(const std::string& path, const std::string& symbol) {
  // dlopen runs the file's constructors: only a file no other user could have written or replaced.
  OPENGE_RETURN_IF_ERROR(check_trusted_file(path, "compiled kernel"));
  auto so = std::shared_ptr<SharedObject>(new SharedObject());
  so->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!so->handle_) return internal_error("cannot load the compiled kernel " + path + ": " + dlerror());
  so->symbol_ = dlsym(so->handle_, symbol.c_str());
  if (!so->symbol_) return internal_error("the compiled kernel " + path + " has no function " + symbol);
  return so;
}

SharedObject::~SharedObject() {
  if (handle_) dlclose(handle_);
}

std::unique_ptr<CompiledKernel> make_eltwise_kernel(std::shared_ptr<SharedObject> so, EltwiseKernelSpec spec,
                                                    EltwiseKernelChecks checks) {
  return std::make_unique<EltwiseKernel>(std::move(so), std::move(spec), checks);
}

}  // namespace openge::compiler
