// Builds AI Core kernels for single-node graphs and runs them on random data.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "ops/kernel.h"
#include "openge/half.h"
#include "ops/node_eval.h"

namespace openge::testing {

inline Tensor random_tensor(Shape shape, uint32_t seed, DType dtype = DType::kFloat32) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(gen);
  if (dtype == DType::kFloat32) return t;
  Tensor c(dtype, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DType::kFloat16) c.data<Float16>()[i] = Float16(t.data<float>()[i]);
    if (dtype == DType::kBFloat16) c.data<BFloat16>()[i] = BFloat16(t.data<float>()[i]);
  }
  return c;
}

inline ValueInfo info_of(const Tensor* t, bool constant) {
  if (!t) return ValueInfo{};
  return ValueInfo{t->dtype(), true, t->shape(), constant ? t : nullptr};
}

// The AI Core kernel for `node` (inputs flagged in `constant` are known at compile time).
inline std::unique_ptr<CompiledKernel> make_kernel(const Node& node, const std::vector<const Tensor*>& inputs,
                                                   const std::vector<bool>& constant, DType out_dtype,
                                                   const Shape& out_shape) {
  KernelRequest req{node, 17, {}, {}};
  for (size_t i = 0; i < inputs.size(); ++i)
    req.inputs.push_back(info_of(inputs[i], i < constant.size() && constant[i]));
  req.outputs.push_back(ValueInfo{out_dtype, true, out_shape, nullptr});
  auto k = make_aicore_kernel(req);
  EXPECT_TRUE(k.ok()) << k.status().message();
  return k.ok() ? std::move(k.value()) : nullptr;
}

inline Tensor run_kernel(const CompiledKernel& k, const Node& node, const std::vector<const Tensor*>& inputs,
                         DType dtype, const Shape& out_shape) {
  Tensor out(dtype, out_shape);
  KernelContext ctx(node, 17, inputs, {&out});
  Status st = k.run(ctx);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

// Runs `k` as a run state of the executor does: one context whose tensors stay the same objects,
// the kernel's state made once (make_state), and every run with other bytes behind them (the
// output in a new buffer each run, so that nothing bound in the state can still point at the last
// one). `runs[r]` are run r's inputs (null: omitted, the same in every run); returns each run's
// outputs.
inline std::vector<std::vector<Tensor>> run_kernel_on_one_state(const CompiledKernel& k, const Node& node,
                                                                const std::vector<std::vector<const Tensor*>>& runs,
                                                                const std::vector<Tensor>& output_like,
                                                                int64_t opset = 17) {
  std::vector<Tensor> in_slots(runs.at(0).size()), out_slots(output_like.size());
  std::vector<const Tensor*> in;
  for (size_t i = 0; i < in_slots.size(); ++i) in.push_back(runs[0][i] ? &in_slots[i] : nullptr);
  std::vector<Tensor*> out;
  for (Tensor& t : out_slots) out.push_back(&t);
  KernelContext ctx(node, opset, in, out);
  const std::unique_ptr<KernelState> state = k.make_state(ctx);
  ctx.set_prepared(nullptr, state.get());
  std::vector<std::vector<Tensor>> results;
  for (const auto& run : runs) {
    for (size_t i = 0; i < in_slots.size(); ++i)
      if (run[i]) in_slots[i] = *run[i];
    for (size_t o = 0; o < out_slots.size(); ++o) out_slots[o] = Tensor(output_like[o].dtype(), output_like[o].shape());
    Status st = k.run(ctx);
    EXPECT_TRUE(st.ok()) << st.message();
    results.push_back(out_slots);
  }
  return results;
}

inline double to_double(const Tensor& t, int64_t i) { return t.scalar_as_double(i); }

// A 0-d float32 or uint8 tensor holding `v` (a quantization scale or zero point).
inline Tensor scalar_of(DType dtype, double v) {
  Tensor t(dtype, {});
  if (dtype == DType::kFloat32) t.data<float>()[0] = static_cast<float>(v);
  if (dtype == DType::kUInt8) t.data<uint8_t>()[0] = static_cast<uint8_t>(v);
  return t;
}

// Max |a - b| / (1 + |b|).
inline double max_rel_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return 1e30;
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = to_double(a, i), y = to_double(b, i);
    worst = std::max(worst, std::abs(x - y) / (1.0 + std::abs(y)));
    if (std::isnan(x) != std::isnan(y)) return 1e30;
  }
  return worst;
}

inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() &&
         std::equal(static_cast<const char*>(a.raw()), static_cast<const char*>(a.raw()) + a.nbytes(),
                    static_cast<const char*>(b.raw()));
}

// NCHW <-> NHWC copies for checking channels-last kernels against plain ones.
inline Tensor to_nhwc(const Tensor& t) {
  const Shape& s = t.shape();
  Tensor o(DType::kFloat32, {s[0], s[2], s[3], s[1]});
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t w = 0; w < s[3]; ++w)
          o.data<float>()[((n * s[2] + h) * s[3] + w) * s[1] + c] =
              t.data<float>()[((n * s[1] + c) * s[2] + h) * s[3] + w];
  return o;
}
inline Tensor to_nchw(const Tensor& t) {
  const Shape& s = t.shape();  // N H W C
  Tensor o(DType::kFloat32, {s[0], s[3], s[1], s[2]});
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t h = 0; h < s[1]; ++h)
      for (int64_t w = 0; w < s[2]; ++w)
        for (int64_t c = 0; c < s[3]; ++c)
          o.data<float>()[((n * s[3] + c) * s[1] + h) * s[2] + w] =
              t.data<float>()[((n * s[1] + h) * s[2] + w) * s[3] + c];
  return o;
}

}  // namespace openge::testing
