#include "kernels/onednn_common.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

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

std::optional<dnnl::memory::data_type> to_dnnl(DType t) {
  switch (t) {
    case DType::kFloat32: return dnnl::memory::data_type::f32;
    case DType::kBFloat16: return dnnl::memory::data_type::bf16;
    default: return std::nullopt;
  }
}

dnnl::memory::dims to_dims(const Shape& s) { return dnnl::memory::dims(s.begin(), s.end()); }

std::optional<Shape> static_shape(const ValueInfo& info) {
  if (!info.shape_known) return std::nullopt;
  for (int64_t d : info.shape)
    if (d < 0) return std::nullopt;
  return info.shape;
}

void append_activation(dnnl::post_ops& ops, const FusedActivation& act) {
  using A = dnnl::algorithm;
  switch (act.kind) {
    case Activation::kNone: return;
    case Activation::kRelu: ops.append_eltwise(1.0f, A::eltwise_relu, 0.0f, 0.0f); return;
    case Activation::kLeakyRelu: ops.append_eltwise(1.0f, A::eltwise_relu, act.alpha, 0.0f); return;
    case Activation::kClip: ops.append_eltwise(1.0f, A::eltwise_clip, act.alpha, act.beta); return;
    case Activation::kSigmoid: ops.append_eltwise(1.0f, A::eltwise_logistic, 0.0f, 0.0f); return;
    case Activation::kTanh: ops.append_eltwise(1.0f, A::eltwise_tanh, 0.0f, 0.0f); return;
    case Activation::kGelu: ops.append_eltwise(1.0f, A::eltwise_gelu_erf, 0.0f, 0.0f); return;
    case Activation::kSwish: ops.append_eltwise(1.0f, A::eltwise_swish, 1.0f, 0.0f); return;
    case Activation::kHardSwish: ops.append_eltwise(1.0f, A::eltwise_hardswish, 0.0f, 0.0f); return;
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

Status execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad_md,
               std::unordered_map<int, dnnl::memory>& args, const KernelContext& ctx) {
  try {
    const size_t bytes = scratchpad_md.get_size();
    if (bytes > 0) args[DNNL_ARG_SCRATCHPAD] = wrap(scratchpad_md, thread_scratchpad(bytes));
    dnnl::stream& stream = thread_stream();
    prim.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& e) {
    return ctx.error(std::string("oneDNN failed: ") + e.what());
  }
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

}  // namespace openge::onednn
