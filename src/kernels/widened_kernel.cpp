#include "kernels/widened_kernel.h"

#include "base/float_convert.h"
#include "kernels/onednn_common.h"

namespace openge {
namespace {

bool narrow(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// Floats rounded up to a 64-byte line, so that each tensor in the scratch buffer is aligned for
// oneDNN.
size_t padded(int64_t numel) { return (static_cast<size_t>(numel) + 15) / 16 * 16; }

class WidenedKernel final : public CompiledKernel {
 public:
  WidenedKernel(std::unique_ptr<CompiledKernel> inner, std::vector<Tensor> constants, std::vector<char> widen_inputs,
                std::vector<char> narrow_outputs)
      : inner_(std::move(inner)),
        constants_(std::move(constants)),
        widen_inputs_(std::move(widen_inputs)),
        narrow_outputs_(std::move(narrow_outputs)) {}

  Status run(KernelContext& ctx) const override {
    // The float32 copies live in this thread's scratch buffer, sized by the largest widened node
    // it has run: after the first run nothing tensor-sized is allocated (runs on other threads
    // have their own buffer; one thread runs one node at a time).
    size_t floats = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && !constants_[i].defined() && widen_inputs_[i]) floats += padded(ctx.input(i).numel());
    for (size_t o = 0; o < ctx.num_outputs(); ++o)
      if (ctx.has_output(o) && narrow_outputs_[o]) floats += padded(ctx.output(o).numel());
    float* scratch = static_cast<float*>(onednn::thread_buffer(onednn::kWidenedSlot, floats * sizeof(float)));
    std::vector<Tensor> wide(ctx.num_inputs() + ctx.num_outputs());
    std::vector<const Tensor*> inputs(ctx.num_inputs(), nullptr);
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) continue;
      if (constants_[i].defined()) {
        inputs[i] = &constants_[i];
      } else if (widen_inputs_[i]) {
        const Tensor& in = ctx.input(i);
        wide[i] = Tensor::borrow(DType::kFloat32, in.shape(), scratch);
        widen_to_float(in, scratch);
        scratch += padded(in.numel());
        inputs[i] = &wide[i];
      } else {
        inputs[i] = &ctx.input(i);
      }
    }
    std::vector<Tensor*> outputs(ctx.num_outputs(), nullptr);
    for (size_t o = 0; o < ctx.num_outputs(); ++o) {
      if (!ctx.has_output(o)) continue;
      Tensor& out = ctx.output(o);
      if (!narrow_outputs_[o]) {
        outputs[o] = &out;
        continue;
      }
      Tensor& w = wide[ctx.num_inputs() + o];
      w = Tensor::borrow(DType::kFloat32, out.shape(), scratch);
      scratch += padded(out.numel());
      outputs[o] = &w;
    }
    KernelContext wide_ctx(ctx.node(), ctx.opset(), std::move(inputs), outputs);
    wide_ctx.set_prepared(ctx.scratch(), ctx.state());
    OPENGE_RETURN_IF_ERROR(inner_->run(wide_ctx));
    for (size_t o = 0; o < ctx.num_outputs(); ++o)
      if (ctx.has_output(o) && narrow_outputs_[o]) narrow_from_float(outputs[o]->data<float>(), ctx.output(o));
    return Status::Ok();
  }

  Engine engine() const override { return inner_->engine(); }
  KernelWorkspace last_workspace() const override { return inner_->last_workspace(); }
  size_t scratch_bytes() const override { return inner_->scratch_bytes(); }
  std::unique_ptr<KernelState> make_state(KernelContext& ctx) const override { return inner_->make_state(ctx); }

 private:
  std::unique_ptr<CompiledKernel> inner_;
  std::vector<Tensor> constants_;  // per input: its float32 copy when it is a narrow constant
  std::vector<char> widen_inputs_;
  std::vector<char> narrow_outputs_;
};

}  // namespace

bool has_narrow_float(const KernelRequest& request) {
  for (const ValueInfo& v : request.inputs)
    if (narrow(v.dtype)) return true;
  for (const ValueInfo& v : request.outputs)
    if (narrow(v.dtype)) return true;
  return false;
}

Result<std::unique_ptr<CompiledKernel>> make_widened_kernel(const KernelRequest& request, KernelFactory make) {
  KernelRequest wide = request;
  std::vector<Tensor> constants(request.inputs.size());
  std::vector<char> widen_inputs(request.inputs.size(), 0), narrow_outputs(request.outputs.size(), 0);
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    ValueInfo& in = wide.inputs[i];
    if (!narrow(in.dtype)) continue;
    in.dtype = DType::kFloat32;
    if (in.value) {
      constants[i] = widened_copy(*in.value);
      in.value = &constants[i];
    } else {
      widen_inputs[i] = 1;
    }
  }
  for (size_t o = 0; o < request.outputs.size(); ++o) {
    if (!narrow(request.outputs[o].dtype)) continue;
    wide.outputs[o].dtype = DType::kFloat32;
    narrow_outputs[o] = 1;
  }
  auto inner = make(wide);
  if (!inner.ok() || !*inner) return inner;
  return std::unique_ptr<CompiledKernel>(new WidenedKernel(std::move(inner.value()), std::move(constants),
                                                           std::move(widen_inputs), std::move(narrow_outputs)));
}

}  // namespace openge
