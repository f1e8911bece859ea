// Shared plumbing of the oneDNN kernels: one CPU engine per process, one stream per calling
// thread, dtype mapping, post-op lists from the fused ops' epilogue, and a primitive runner
// that gives every run its own scratchpad, so that one compiled primitive can serve concurrent
// runs (primitives are immutable after creation; only the scratchpad is per-execution state).
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <vector>

#include "ops/kernel.h"
#include "ops/layout/activation_format.h"
#include "ops/fused/fused_ops.h"

namespace openge::onednn {

dnnl::engine& cpu_engine();
// The calling thread's stream (CPU streams are cheap; one per thread avoids sharing one
// across concurrent runs).
dnnl::stream& thread_stream();

// fp32 and bf16 (fp32 accumulation); nullopt for the rest (fp16 is not supported by
// oneDNN 2.6 on CPUs without AVX512-FP16 / AMX, so those nodes stay on the AI CPU engine).
std::optional<dnnl::memory::data_type> to_dnnl(DType t);

// Row-major dims and strides of a plain tensor.
dnnl::memory::dims to_dims(const Shape& s);
// The memory tag of an N x C x H x W activation stored in `f` (NC1HWC0 is oneDNN's nChw16c).
dnnl::memory::format_tag activation_tag(ActivationFormat f);
// Static, fully known and non-empty (every dim > 0) shape of an input/output, or nullopt: a
// zero-sized tensor never reaches a oneDNN primitive.
std::optional<Shape> static_shape(const ValueInfo& info);

// Appends the eltwise post-op for `act` (no-op for kNone).
void append_activation(dnnl::post_ops& ops, const FusedActivation& act);

// An attribute with user scratchpad and the given post-ops.
dnnl::primitive_attr make_attr(const dnnl::post_ops& ops);

// Creating a primitive descriptor throws dnnl::error with status `unimplemented` when oneDNN
// has no implementation (a dtype this CPU lacks, an odd broadcast …): that means "not
// covered" (nullptr), anything else is a real failure.
template <class Fn>
auto try_create(Fn&& fn) -> std::optional<decltype(fn())> {
  try {
    return fn();
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments) return std::nullopt;
    throw;
  }
}

// Reorders a constant tensor (plain layout `src_md`, data `data`) once into `dst_md`.
dnnl::memory reorder_constant(const dnnl::memory::desc& src_md, const void* data, const dnnl::memory::desc& dst_md);
// The same into memory the caller placed (`dst` has the target layout).
void reorder_constant_into(const dnnl::memory::desc& src_md, const void* data, dnnl::memory& dst);

// A per-thread scratchpad of at least `bytes` that grows to the largest request; runs on
// different threads never share it, and one thread runs one primitive at a time.
void* thread_scratchpad(size_t bytes);
// The same for other per-run staging (slot 0 is the scratchpad's; a kernel that needs a second
// buffer at the same time, e.g. activations reordered around a primitive, uses slot 1).
void* thread_buffer(size_t slot, size_t bytes);
// The slots: 0 oneDNN's scratchpad, 1 activations staged in a primitive's own layout
// (ActivationStaging below), 2 the float32 copies of a widened fp16/bf16 kernel
// (widened_kernel.cpp), alive while its oneDNN primitive runs, 3-5 a training convolution's
// tensors in the layouts its primitive chose (onednn_conv_train.cpp).
inline constexpr size_t kWidenedSlot = 2;
inline constexpr size_t kTrainingStagingSlot = 3;
inline constexpr size_t kTrainingStagingSlots = 3;
inline constexpr size_t kThreadBufferSlots = kTrainingStagingSlot + kTrainingStagingSlots;

// The arguments of one primitive, made once per run state (KernelState): memory objects whose
// data handles are set per run, and the C argument array that dnnl_primitive_execute reads.
// (dnnl::primitive::execute builds a std::unordered_map and a std::vector on every call; this
// does not.)
class PrimitiveArgs : public KernelState {
 public:
  // `scratchpad_md`: the primitive's user scratchpad (size 0: none); the calling thread's
  // scratchpad buffer is bound at each execute.
  explicit PrimitiveArgs(const dnnl::memory::desc& scratchpad_md);
  // An argument whose data is bound per run with set().
  void add(int arg, const dnnl::memory::desc& md);
  // An argument fixed for the kernel's lifetime (packed weights, a constant bias).
  void add_fixed(int arg, const dnnl::memory& memory);
  void set(int arg, const void* data);
  // Runs `prim` on the calling thread's stream and waits; oneDNN errors name the node.
  Status execute(const dnnl::primitive& prim, const KernelContext& ctx);

 private:
  std::vector<dnnl::memory> memories_;
  std::vector<dnnl_exec_arg_t> args_;
  size_t scratchpad_bytes_ = 0;
};

// Copies `src` into `dst` (same size) in parallel, unless they already share storage: the
// residual of a fused Add is accumulated in place by oneDNN's sum post-op.
void copy_residual(const Tensor& src, Tensor& dst);

// The argument lists of a staged primitive (ActivationStaging) for one run state: the
// primitive's own, to which its kernel adds weights and bias, and one per reorder around it.
struct StagedArgs : KernelState {
  explicit StagedArgs(const dnnl::memory::desc& scratchpad_md) : prim(scratchpad_md) {}
  PrimitiveArgs prim;
  std::optional<PrimitiveArgs> src_in, residual_in, dst_out;
};

// Activations that arrive and leave in ONNX's plain layout while the primitive runs on another
// (int8 convolutions on channels-last; a tuned convolution on oneDNN's blocked layout, which its
// Winograd kernels need): reordered through the thread's staging buffer (slot 1) around it.
struct ActivationStaging {
  struct Reorder {
    dnnl::reorder prim;
    dnnl::memory::desc plain_md, scratchpad_md;
  };
  dnnl::memory::desc src_md, dst_md;       // the primitive's layouts
  std::optional<Reorder> src_in, dst_out;  // plain -> primitive, primitive -> plain; none when equal
  std::optional<Reorder> residual_in;      // a sum post-op's residual, plain -> the dst layout

  // Reorders between `plain` (ONNX's layout) and the primitive's (`src_md`/`dst_md`).
  static ActivationStaging make(const dnnl::memory::desc& src_plain, const dnnl::memory::desc& src_chosen,
                                const dnnl::memory::desc& dst_plain, const dnnl::memory::desc& dst_chosen,
                                bool residual);
  // The argument lists for one run state: the primitive's src and dst (its scratchpad
  // `scratchpad_md`) and each reorder's; the kernel adds the primitive's other arguments to `prim`.
  std::unique_ptr<StagedArgs> make_args(const dnnl::memory::desc& scratchpad_md) const;
  // Runs `prim` with `args` (weights, bias … bound by the kernel) plus src = `x` and dst = `y`,
  // staged where the layouts differ; `residual` (or null) is placed into dst first for a sum
  // post-op.
  Status run(const dnnl::primitive& prim, StagedArgs& args, const Tensor& x, Tensor& y, const Tensor* residual,
             const KernelContext& ctx) const;
};

// Wraps a borrowed tensor buffer.
inline dnnl::memory wrap(const dnnl::memory::desc& md, const void* data) {
  return dnnl::memory(md, cpu_engine(), const_cast<void*>(data));
}

class OneDnnKernel : public CompiledKernel {
 public:
  Engine engine() const override { return Engine::kAiCore; }
  // The calling thread's scratchpad (thread_scratchpad), of this kernel's size: the run left its
  // primitive's scratchpad there, and no other primitive has run on the thread since.
  KernelWorkspace last_workspace() const override;

 protected:
  // The largest scratchpad its primitives ask for (0: none).
  virtual size_t scratchpad_bytes() const { return 0; }
};

// A primitive that reads input 0 as argument kSrcArg and writes output 0 as kDstArg (pooling,
// reorder), its arguments bound once per run state.
template <class Primitive, int kSrcArg, int kDstArg>
class SrcDstKernel final : public OneDnnKernel {
 public:
  Primitive prim;
  dnnl::memory::desc src_md, dst_md, scratchpad_md;

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    PrimitiveArgs& args = state_for_run<PrimitiveArgs>(*this, ctx, temp);
    args.set(kSrcArg, ctx.input(0).raw());
    args.set(kDstArg, ctx.output(0).raw());
    return args.execute(prim, ctx);
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    auto args = std::make_unique<PrimitiveArgs>(scratchpad_md);
    args->add(kSrcArg, src_md);
    args->add(kDstArg, dst_md);
    return args;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
};

}  // namespace openge::onednn
