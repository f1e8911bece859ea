#include "kernels/onednn_common.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "base/parallel.h"
#include "base/aligned_memory.h"

namespace openge::onednn {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

dnnl::memory::format_tag activation_tag(ActivationFormat f) {
  static_assert(kC0 == 16, "NC1HWC0 maps to nChw16c");
  switch (f) {
    case ActivationFormat::kNhwc:
      return dnnl::memory::format_tag::nhwc;
    case ActivationFormat::kNc1hwc0:
      return dnnl::memory::format_tag::nChw16c;
    case ActivationFormat::kNchw:
      break;
  }
  return dnnl::memory::format_tag::nchw;
}

std::optional<dnnl::memory::data_type> to_dnnl(DType t) {
  switch (t) {
    case DType::kFloat32:
      return dnnl::memory::data_type::f32;
    case DType::kBFloat16:
      return dnnl::memory::data_type::bf16;
    default:
      return std::nullopt;
  }
}

dnnl::memory::dims to_dims(const Shape& s) { return dnnl::memory::dims(s.begin(), s.end()); }

std::optional<Shape> static_shape(const ValueInfo& info) {
  if (!info.shape_known) return std::nullopt;
  // A zero-sized dim (a dynamic batch of 0): oneDNN 2.6 divides by it while blocking some
  // primitives (SIGFPE in matmul), so no AI Core kernel is built; the reference kernel writes the
  // empty output.
  for (int64_t d : info.shape)
    if (d <= 0) return std::nullopt;
  return info.shape;
}

void append_activation(dnnl::post_ops& ops, const FusedActivation& act) {
  using A = dnnl::algorithm;
  switch (act.kind) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      ops.append_eltwise(1.0f, A::eltwise_relu, 0.0f, 0.0f);
      return;
    case Activation::kLeakyRelu:
      ops.append_eltwise(1.0f, A::eltwise_relu, act.alpha, 0.0f);
      return;
    case Activation::kClip:
      ops.append_eltwise(1.0f, A::eltwise_clip, act.alpha, act.beta);
      return;
    case Activation::kSigmoid:
      ops.append_eltwise(1.0f, A::eltwise_logistic, 0.0f, 0.0f);
      return;
    case Activation::kTanh:
      ops.append_eltwise(1.0f, A::eltwise_tanh, 0.0f, 0.0f);
      return;
    case Activation::kGelu:
      ops.append_eltwise(1.0f, A::eltwise_gelu_erf, 0.0f, 0.0f);
      return;
    case Activation::kSwish:
      ops.append_eltwise(1.0f, A::eltwise_swish, 1.0f, 0.0f);
      return;
    case Activation::kHardSwish:
      ops.append_eltwise(1.0f, A::eltwise_hardswish, 0.0f, 0.0f);
      return;
    case Activation::kHardSigmoid:  // oneDNN 2.6 has no hardsigmoid: clip(alpha * x + beta, 0, 1)
      ops.append_eltwise(1.0f, A::eltwise_linear, act.alpha, act.beta);
      ops.append_eltwise(1.0f, A::eltwise_clip, 0.0f, 1.0f);
      return;
  }
}

dnnl::primitive_attr make_attr(const dnnl::post_ops& ops) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_post_ops(ops);
  return attr;
}

void reorder_constant_into(const dnnl::memory::desc& src_md, const void* data, dnnl::memory& dst) {
  dnnl::memory src = wrap(src_md, data);
  dnnl::reorder(src, dst).execute(thread_stream(), src, dst);
  thread_stream().wait();
}

dnnl::memory reorder_constant(const dnnl::memory::desc& src_md, const void* data, const dnnl::memory::desc& dst_md) {
  dnnl::memory dst(dst_md, cpu_engine());
  reorder_constant_into(src_md, data, dst);
  return dst;
}

void* thread_scratchpad(size_t bytes) { return thread_buffer(0, bytes); }

void* thread_buffer(size_t slot, size_t bytes) {
  struct Buffer {
    std::unique_ptr<void, void (*)(void*)> data{nullptr, std::free};
    size_t size = 0;
  };
  thread_local Buffer buffers[kThreadBufferSlots];
  Buffer& buffer = buffers[slot];
  if (bytes > buffer.size) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    buffer.data.reset(allocate_aligned(rounded));  // throws bad_alloc: the Session turns it into an error
    buffer.size = rounded;
  }
  return buffer.data.get();
}

KernelWorkspace OneDnnKernel::last_workspace() const {
  const size_t bytes = scratchpad_bytes();
  if (bytes == 0) return {};
  return {thread_scratchpad(bytes), bytes};
}

PrimitiveArgs::PrimitiveArgs(const dnnl::memory::desc& scratchpad_md) : scratchpad_bytes_(scratchpad_md.get_size()) {
  memories_.reserve(6);
  args_.reserve(6);
  if (scratchpad_bytes_ > 0) add(DNNL_ARG_SCRATCHPAD, scratchpad_md);
}

void PrimitiveArgs::add(int arg, const dnnl::memory::desc& md) {
  add_fixed(arg, dnnl::memory(md, cpu_engine(), DNNL_MEMORY_NONE));
}

void PrimitiveArgs::add_fixed(int arg, const dnnl::memory& memory) {
  memories_.push_back(memory);
  args_.push_back(dnnl_exec_arg_t{arg, memories_.back().get()});
}

void PrimitiveArgs::set(int arg, const void* data) {
  for (size_t i = 0; i < args_.size(); ++i)
    if (args_[i].arg == arg) memories_[i].set_data_handle(const_cast<void*>(data));
}

Status PrimitiveArgs::execute(const dnnl::primitive& prim, const KernelContext& ctx) {
  try {
    if (scratchpad_bytes_ > 0) set(DNNL_ARG_SCRATCHPAD, thread_scratchpad(scratchpad_bytes_));
  } catch (const dnnl::error& e) {
    return ctx.error(std::string("oneDNN failed: ") + e.what());
  }
  dnnl::stream& stream = thread_stream();
  dnnl_status_t st = dnnl_primitive_execute(prim.get(), stream.get(), static_cast<int>(args_.size()), args_.data());
  if (st == dnnl_success) st = dnnl_stream_wait(stream.get());
  if (st != dnnl_success) return ctx.error("oneDNN failed: status " + std::to_string(static_cast<int>(st)));
  return Status::Ok();
}

void copy_residual(const Tensor& src, Tensor& dst) {
  if (src.raw() == dst.raw()) return;
  const char* s = static_cast<const char*>(src.raw());
  char* d = static_cast<char*>(dst.raw());
  const int64_t bytes = static_cast<int64_t>(dst.nbytes());
  constexpr int64_t kChunk = 64 * 1024;
  parallel_for((bytes + kChunk - 1) / kChunk, kChunk / 8, [&](int64_t begin, int64_t end) {
    const int64_t lo = begin * kChunk, hi = std::min(bytes, end * kChunk);
    std::memcpy(d + lo, s + lo, static_cast<size_t>(hi - lo));
  });
}

namespace {

std::optional<ActivationStaging::Reorder> make_reorder(const dnnl::memory::desc& plain,
                                                       const dnnl::memory::desc& chosen, bool to_chosen) {
  if (plain == chosen) return std::nullopt;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const auto& from = to_chosen ? plain : chosen;
  const auto& to = to_chosen ? chosen : plain;
  dnnl::reorder::primitive_desc pd(cpu_engine(), from, cpu_engine(), to, attr);
  return ActivationStaging::Reorder{dnnl::reorder(pd), plain, pd.scratchpad_desc()};
}

}  // namespace

ActivationStaging ActivationStaging::make(const dnnl::memory::desc& src_plain, const dnnl::memory::desc& src_chosen,
                                          const dnnl::memory::desc& dst_plain, const dnnl::memory::desc& dst_chosen,
                                          bool residual) {
  ActivationStaging s;
  s.src_md = src_chosen;
  s.dst_md = dst_chosen;
  s.src_in = make_reorder(src_plain, src_chosen, true);
  s.dst_out = make_reorder(dst_plain, dst_chosen, false);
  if (residual) s.residual_in = make_reorder(dst_plain, dst_chosen, true);
  return s;
}

std::unique_ptr<StagedArgs> ActivationStaging::make_args(const dnnl::memory::desc& scratchpad_md) const {
  auto args = std::make_unique<StagedArgs>(scratchpad_md);
  args->prim.add(DNNL_ARG_SRC, src_md);
  args->prim.add(DNNL_ARG_DST, dst_md);
  auto reorder_args = [](std::optional<PrimitiveArgs>& to_make, const Reorder& r, const dnnl::memory::desc& from,
                         const dnnl::memory::desc& to) {
    to_make.emplace(r.scratchpad_md);
    to_make->add(DNNL_ARG_FROM, from);
    to_make->add(DNNL_ARG_TO, to);
  };
  if (src_in) reorder_args(args->src_in, *src_in, src_in->plain_md, src_md);
  if (residual_in) reorder_args(args->residual_in, *residual_in, residual_in->plain_md, dst_md);
  if (dst_out) reorder_args(args->dst_out, *dst_out, dst_md, dst_out->plain_md);
  return args;
}

Status ActivationStaging::run(const dnnl::primitive& prim, StagedArgs& args, const Tensor& x, Tensor& y,
                              const Tensor* residual, const KernelContext& ctx) const {
  // The staging buffer is the running thread's, so every handle is bound per run.
  const size_t src_bytes = src_in ? (src_md.get_size() + 63) / 64 * 64 : 0;
  const size_t dst_bytes = dst_out ? dst_md.get_size() : 0;
  char* staging = src_bytes + dst_bytes > 0 ? static_cast<char*>(thread_buffer(1, src_bytes + dst_bytes)) : nullptr;
  const void* src = src_in ? staging : x.raw();
  void* dst = dst_out ? staging + src_bytes : y.raw();
  if (src_in) {
    args.src_in->set(DNNL_ARG_FROM, x.raw());
    args.src_in->set(DNNL_ARG_TO, src);
    OPENGE_RETURN_IF_ERROR(args.src_in->execute(src_in->prim, ctx));
  }
  if (residual) {
    if (residual_in) {
      args.residual_in->set(DNNL_ARG_FROM, residual->raw());
      args.residual_in->set(DNNL_ARG_TO, dst);
      OPENGE_RETURN_IF_ERROR(args.residual_in->execute(residual_in->prim, ctx));
    } else {
      copy_residual(*residual, y);
    }
  }
  args.prim.set(DNNL_ARG_SRC, src);
  args.prim.set(DNNL_ARG_DST, dst);
  OPENGE_RETURN_IF_ERROR(args.prim.execute(prim, ctx));
  if (dst_out) {
    args.dst_out->set(DNNL_ARG_FROM, dst);
    args.dst_out->set(DNNL_ARG_TO, y.raw());
    OPENGE_RETURN_IF_ERROR(args.dst_out->execute(dst_out->prim, ctx));
  }
  return Status::Ok();
}

}  // namespace openge::onednn
