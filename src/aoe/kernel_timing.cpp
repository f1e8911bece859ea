#include "aoe/kernel_timing.h"

#include <algorithm>
#include <chrono>

#include "base/omp_threads.h"
#include "openge/random_inputs.h"

namespace openge::aoe {

double median(std::vector<double>& samples) {
  if (samples.empty()) return 0;
  const size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(mid), samples.end());
  return samples[mid];
}

NodeBench::NodeBench(const KernelRequest& request) : request_(request) {
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const ValueInfo& in = request.inputs[i];
    if (in.dtype == DType::kUndefined)
      inputs_.emplace_back();
    else if (in.value)
      inputs_.push_back(*in.value);
    else
      inputs_.push_back(random_tensor(in.dtype, in.shape, static_cast<uint32_t>(i)));
  }
  for (const ValueInfo& out : request.outputs)
    outputs_.push_back(out.dtype == DType::kUndefined ? Tensor() : Tensor(out.dtype, out.shape));
}

Result<double> NodeBench::median_us(const CompiledKernel& kernel, bool single_thread, int repetitions) {
  std::vector<const Tensor*> in;
  for (const Tensor& t : inputs_) in.push_back(t.defined() ? &t : nullptr);
  std::vector<Tensor*> out;
  for (Tensor& t : outputs_) out.push_back(t.defined() ? &t : nullptr);
  KernelContext ctx(request_.node, request_.opset, in, out);
  // The kernel's per-run state made once, as a run state of the executor holds it, so that the
  // timed runs are what a model run does.
  const std::unique_ptr<KernelState> state = kernel.make_state(ctx);
  ctx.set_prepared(nullptr, state.get());
  ScopedNumThreads threads(single_thread ? 1 : 0);
  const int warmup = std::max(1, repetitions / 5);
  std::vector<double> samples;
  for (int r = 0; r < warmup + repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    Status st = kernel.run(ctx);
    const auto end = std::chrono::steady_clock::now();
    if (!st.ok()) return st;
    if (r >= warmup) samples.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  return median(samples);
}

}  // namespace openge::aoe
