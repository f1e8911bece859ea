// Impl modes with real effects (OPT-op_select_implmode-2/3, OPT-op_precision_mode-4/5): the
// default / high_performance kernels use vectorisable approximations, high_precision the C
// library's functions. The high_precision results must equal libm's bit for bit; the fast ones
// must differ somewhere (or the mode would change nothing) while staying within a few ulp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "ops/op_test_util.h"

namespace openge {
namespace {
using namespace openge::testing;

int64_t ulp_distance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(static_cast<int64_t>(ia) - ib);
}

Tensor sweep(int64_t n, float lo, float hi) {
  Tensor t(DType::kFloat32, {n});
  for (int64_t i = 0; i < n; ++i)
    t.data<float>()[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  return t;
}

struct ModeResult {
  int64_t exact_mismatches = 0;  // high_precision vs libm
  int64_t fast_differs = 0;      // default vs libm: elements that differ
  int64_t fast_max_ulp = 0;
};

ModeResult compare(const std::string& op, const Tensor& x, const std::function<float(float, int64_t)>& libm) {
  ModeResult r;
  Node fast = make_node(op, 1), precise = make_node(op, 1);
  precise.impl_mode = "high_precision";
  auto y_fast = run_node(fast, {&x});
  auto y_precise = run_node(precise, {&x});
  EXPECT_TRUE(y_fast.ok() && y_precise.ok());
  if (!y_fast.ok() || !y_precise.ok()) return r;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float want = libm(x.data<float>()[i], i);
    const float p = (*y_precise)[0].data<float>()[i], f = (*y_fast)[0].data<float>()[i];
    r.exact_mismatches += std::memcmp(&p, &want, 4) != 0;
    r.fast_differs += std::memcmp(&f, &want, 4) != 0;
    r.fast_max_ulp = std::max(r.fast_max_ulp, ulp_distance(f, want));
  }
  return r;
}

void expect_modes_differ(const ModeResult& r, int64_t max_ulp) {
  EXPECT_EQ(r.exact_mismatches, 0) << "high_precision must be libm's result";
  EXPECT_GT(r.fast_differs, 0) << "the default implementation should be the fast approximation";
  EXPECT_LE(r.fast_max_ulp, max_ulp);
}

TEST(ImplMode, OPT_op_select_implmode_2_ErfHighPrecisionIsLibm) {
  const Tensor x = sweep(20001, -4.f, 4.f);
  expect_modes_differ(compare("Erf", x, [](float v, int64_t) { return std::erf(v); }), 1 << 12);
}

TEST(ImplMode, OPT_op_select_implmode_2_TanhHighPrecisionIsLibm) {
  const Tensor x = sweep(20001, -9.f, 9.f);
  expect_modes_differ(compare("Tanh", x, [](float v, int64_t) { return std::tanh(v); }), 16);
}

TEST(ImplMode, OPT_op_select_implmode_2_SigmoidHighPrecisionIsLibm) {
  const Tensor x = sweep(20001, -20.f, 20.f);
  expect_modes_differ(compare("Sigmoid", x, [](float v, int64_t) { return 1.f / (1.f + std::exp(-v)); }), 16);
}

TEST(ImplMode, OPT_op_precision_mode_4_SoftmaxHighPrecisionUsesLibmExp) {
  // One row of 4001 values: softmax = exp(x - max) / sum, the sum in float in index order.
  const Tensor x = sweep(4001, -30.f, 3.f);
  const float* v = x.data<float>();
  float m = v[0];
  for (int64_t i = 0; i < x.numel(); ++i) m = std::max(m, v[i]);
  std::vector<float> e(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) e[static_cast<size_t>(i)] = std::exp(v[i] - m);
  Node precise = make_node("Softmax", 1);
  precise.impl_mode = "high_precision";
  Node fast = make_node("Softmax", 1);
  auto yp = run_node(precise, {&x});
  auto yf = run_node(fast, {&x});
  ASSERT_TRUE(yp.ok() && yf.ok());
  // The sum's order is the kernel's; compare the ratios y[i] / y[j] = e[i] / e[j], which do not
  // depend on it: the exact kernel reproduces libm's exp ratios to 1 ulp of rounding.
  int64_t exact_far = 0, fast_differs = 0;
  const float* p = (*yp)[0].data<float>();
  const float* f = (*yf)[0].data<float>();
  const int64_t top = x.numel() - 1;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double want = static_cast<double>(e[static_cast<size_t>(i)]) / e[static_cast<size_t>(top)];
    exact_far += std::fabs(static_cast<double>(p[i]) / p[top] - want) > 4e-7 * want;
    fast_differs += p[i] != f[i];
  }
  EXPECT_EQ(exact_far, 0);
  EXPECT_GT(fast_differs, 0);
}

}  // namespace
}  // namespace openge
