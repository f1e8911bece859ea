// AI Core QLinearConv / QLinearMatMul (int8 oneDNN primitives) against the reference kernels on
// random data, bit for bit, with and without output zero points (rounded in a post-op before
// oneDNN adds the zero point, onednn_qlinear.h).
#include <cstring>

#include "kernel_test_util.h"
#include "kernels/onednn_qlinear.h"
#include "ops/op_registry.h"
#include "../ops/op_test_util.h"

namespace openge::testing {
namespace {

template <class T>
Tensor random_ints(DType dt, Shape shape, uint32_t seed, int lo, int hi) {
  Tensor t(dt, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(dist(gen));
  return t;
}
Tensor scalar_of(DType dt, double v) {
  Tensor t(dt, {});
  if (dt == DType::kFloat32) t.data<float>()[0] = static_cast<float>(v);
  if (dt == DType::kUInt8) t.data<uint8_t>()[0] = static_cast<uint8_t>(v);
  if (dt == DType::kInt8) t.data<int8_t>()[0] = static_cast<int8_t>(v);
  return t;
}
Tensor scales(int64_t n, uint32_t seed) {
  Tensor t(DType::kFloat32, {n});
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(0.002f, 0.02f);
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = dist(gen);
  return t;
}

// Elements that differ, and the largest difference.
struct Diff {
  int64_t count = 0;
  double max = 0;
};
Diff compare(const Tensor& a, const Tensor& b) {
  Diff d;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double e = std::abs(a.scalar_as_double(i) - b.scalar_as_double(i));
    d.count += e != 0;
    d.max = std::max(d.max, e);
  }
  return d;
}

// The AI Core kernel of `node` (every input but the first constant) against the reference output:
// identical, element for element.
void expect_int8_kernel_matches(const Node& node, const std::vector<const Tensor*>& in, const Tensor& expected,
                                int y_zp) {
  std::vector<bool> constant(in.size(), true);
  constant[0] = false;
  auto kernel = make_kernel(node, in, constant, expected.dtype(), expected.shape());
  ASSERT_NE(kernel, nullptr) << "no int8 primitive for this form";
  EXPECT_EQ(kernel->engine(), Engine::kAiCore);
  const Tensor got = run_kernel(*kernel, node, in, expected.dtype(), expected.shape());
  const Diff d = compare(got, expected);
  EXPECT_EQ(d.count, 0) << d.count << " of " << expected.numel() << " differ, by up to " << d.max << " (y_zero_point "
                        << y_zp << ")";
  // As a run state runs it: argument lists (the staging reorders' too) made once, two runs
  // through them, each into a new output buffer.
  for (const auto& run : run_kernel_on_one_state(*kernel, node, {in, in}, {expected}))
    EXPECT_EQ(compare(run[0], expected).count, 0) << "a run on one run state";
}

struct QConvCase {
  int64_t n, c, h, w, m, k, stride, pad, group;
  DType x_dtype, y_dtype;
  int x_zp, y_zp;
  bool per_channel, bias;
};
void PrintTo(const QConvCase& k, std::ostream* os) {
  *os << "x" << k.n << "x" << k.c << "x" << k.h << "x" << k.w << " m" << k.m << " k" << k.k << " s" << k.stride << " p"
      << k.pad << " g" << k.group << " " << dtype_name(k.x_dtype) << "->" << dtype_name(k.y_dtype) << " xzp" << k.x_zp
      << " yzp" << k.y_zp << (k.per_channel ? " per-channel" : "") << (k.bias ? " bias" : "");
}

class QLinearConvKernelTest : public ::testing::TestWithParam<QConvCase> {};

TEST_P(QLinearConvKernelTest, Int8PrimitiveMatchesReferenceQLinearConv) {
  const QConvCase k = GetParam();
  const bool u8 = k.x_dtype == DType::kUInt8;
  Tensor x = u8 ? random_ints<uint8_t>(DType::kUInt8, {k.n, k.c, k.h, k.w}, 1, 0, 255)
                : random_ints<int8_t>(DType::kInt8, {k.n, k.c, k.h, k.w}, 1, -128, 127);
  Tensor w = random_ints<int8_t>(DType::kInt8, {k.m, k.c / k.group, k.k, k.k}, 2, -127, 127);
  Tensor xs = scalar_of(DType::kFloat32, 0.03), xz = scalar_of(k.x_dtype, k.x_zp);
  Tensor ws = k.per_channel ? scales(k.m, 3) : scalar_of(DType::kFloat32, 0.01);
  Tensor wz = k.per_channel ? Tensor(DType::kInt8, {k.m}) : scalar_of(DType::kInt8, 0);
  std::memset(wz.raw(), 0, wz.nbytes());
  // An output scale that spreads the results over the whole range (and saturates some).
  const double sum_range = 0.03 * 0.01 * 128 * 80 * std::sqrt(static_cast<double>(k.c / k.group * k.k * k.k));
  Tensor ys = scalar_of(DType::kFloat32, sum_range / 100), yz = scalar_of(k.y_dtype, k.y_zp);
  Tensor b = random_ints<int32_t>(DType::kInt32, {k.m}, 4, -20000, 20000);
  Node node = make_node("QLinearConv", k.bias ? 9 : 8);
  set_ints(node, "strides", {k.stride, k.stride});
  set_ints(node, "pads", {k.pad, k.pad, k.pad, k.pad});
  set_int(node, "group", k.group);
  std::vector<const Tensor*> in{&x, &xs, &xz, &w, &ws, &wz, &ys, &yz};
  if (k.bias) in.push_back(&b);
  auto ref = run_node(node, in);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  expect_int8_kernel_matches(node, in, (*ref)[0], k.y_zp);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, QLinearConvKernelTest,
    ::testing::Values(
        QConvCase{1, 16, 10, 10, 32, 3, 1, 1, 1, DType::kUInt8, DType::kUInt8, 128, 0, true,
                  true},                                                                          // u8s8, per-channel
        QConvCase{2, 8, 9, 11, 16, 3, 2, 1, 1, DType::kUInt8, DType::kInt8, 7, 0, false, false},  // strided, odd
        QConvCase{1, 32, 7, 7, 64, 1, 1, 0, 1, DType::kInt8, DType::kInt8, -5, 0, true, true},    // s8s8 1x1
        QConvCase{1, 3, 20, 20, 8, 7, 2, 3, 1, DType::kUInt8, DType::kUInt8, 0, 0, true, true},   // stem
        QConvCase{1, 24, 12, 12, 24, 3, 1, 1, 24, DType::kUInt8, DType::kUInt8, 100, 0, true, true},   // depthwise
        QConvCase{1, 8, 10, 10, 12, 3, 1, 1, 2, DType::kInt8, DType::kUInt8, 3, 0, true, false},       // groups
        QConvCase{1, 16, 10, 10, 32, 3, 1, 1, 1, DType::kUInt8, DType::kUInt8, 128, 117, true, true},  // output zp
        QConvCase{1, 16, 8, 8, 16, 3, 1, 1, 1, DType::kInt8, DType::kInt8, 0, -20, false, true}));

struct QMatMulCase {
  Shape a;
  int64_t n;
  DType a_dtype, y_dtype;
  int a_zp, y_zp;
  bool per_column;
};
void PrintTo(const QMatMulCase& k, std::ostream* os) {
  *os << shape_to_string(k.a) << " n" << k.n << " " << dtype_name(k.a_dtype) << "->" << dtype_name(k.y_dtype) << " azp"
      << k.a_zp << " yzp" << k.y_zp << (k.per_column ? " per-column" : "");
}

class QLinearMatMulKernelTest : public ::testing::TestWithParam<QMatMulCase> {};

TEST_P(QLinearMatMulKernelTest, Int8PrimitiveMatchesReferenceQLinearMatMul) {
  const QMatMulCase k = GetParam();
  const int64_t K = k.a.back();
  Tensor a = k.a_dtype == DType::kUInt8 ? random_ints<uint8_t>(DType::kUInt8, k.a, 5, 0, 255)
                                        : random_ints<int8_t>(DType::kInt8, k.a, 5, -128, 127);
  Tensor b = random_ints<int8_t>(DType::kInt8, {K, k.n}, 6, -127, 127);
  Tensor as = scalar_of(DType::kFloat32, 0.05), az = scalar_of(k.a_dtype, k.a_zp);
  Tensor bs = k.per_column ? scales(k.n, 7) : scalar_of(DType::kFloat32, 0.01);
  Tensor bz = k.per_column ? Tensor(DType::kInt8, {k.n}) : scalar_of(DType::kInt8, 0);
  std::memset(bz.raw(), 0, bz.nbytes());
  Tensor ys = scalar_of(DType::kFloat32, 0.05 * 0.01 * 128 * 80 * std::sqrt(static_cast<double>(K)) / 100);
  Tensor yz = scalar_of(k.y_dtype, k.y_zp);
  Node node = make_node("QLinearMatMul", 8);
  std::vector<const Tensor*> in{&a, &as, &az, &b, &bs, &bz, &ys, &yz};
  auto ref = run_node(node, in);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  expect_int8_kernel_matches(node, in, (*ref)[0], k.y_zp);
}

INSTANTIATE_TEST_SUITE_P(Forms, QLinearMatMulKernelTest,
                         ::testing::Values(QMatMulCase{{64, 256}, 96, DType::kUInt8, DType::kUInt8, 128, 0, true},
                                           QMatMulCase{{2, 7, 100}, 33, DType::kInt8, DType::kInt8, -3, 0, false},
                                           QMatMulCase{{1, 2048}, 1000, DType::kUInt8, DType::kInt8, 0, 0, true},
                                           QMatMulCase{{64, 256}, 96, DType::kUInt8, DType::kUInt8, 128, 90, true}));

// Forms oneDNN 2.6 has no int8 kernel for stay on the reference kernel (no AI Core kernel).
TEST(QLinearKernels, Uint8WeightsOrWeightZeroPointsStayOnTheReferenceKernel) {
  Tensor x = random_ints<uint8_t>(DType::kUInt8, {1, 4, 5, 5}, 1, 0, 255);
  Tensor xs = scalar_of(DType::kFloat32, 0.03), xz = scalar_of(DType::kUInt8, 0);
  Tensor ys = scalar_of(DType::kFloat32, 0.5), yz = scalar_of(DType::kUInt8, 0);
  Tensor ws = scalar_of(DType::kFloat32, 0.01);
  Node node = make_node("QLinearConv", 8);
  const Tensor w_u8 = random_ints<uint8_t>(DType::kUInt8, {4, 4, 3, 3}, 2, 0, 255);
  const Tensor wz_u8 = scalar_of(DType::kUInt8, 128);
  const Tensor w_s8 = random_ints<int8_t>(DType::kInt8, {4, 4, 3, 3}, 2, -127, 127);
  const Tensor wz_s8 = scalar_of(DType::kInt8, 3);
  for (const auto& [w, wz] : {std::pair{&w_u8, &wz_u8}, std::pair{&w_s8, &wz_s8}}) {
    KernelRequest req{node, 13, {}, {}};
    for (const Tensor* t : std::vector<const Tensor*>{&x, &xs, &xz, w, &ws, wz, &ys, &yz})
      req.inputs.push_back(info_of(t, t != &x));
    req.outputs.push_back(ValueInfo{DType::kUInt8, true, {1, 4, 3, 3}, nullptr});
    auto k = make_aicore_kernel(req);
    ASSERT_TRUE(k.ok()) << k.status().message();
    EXPECT_EQ(*k, nullptr);
  }
}

// Without VNNI oneDNN sums pairs of u8*s8 products in saturating int16: exact only for |w| <= 64.
TEST(QLinearKernels, WithoutVnniOnlyWeightsUpTo64AreExact) {
  EXPECT_TRUE(onednn::int8_weights_safe(true, 128));
  EXPECT_TRUE(onednn::int8_weights_safe(false, 64));   // 2 * 255 * 64 = 32640 <= 32767
  EXPECT_FALSE(onednn::int8_weights_safe(false, 65));  // 2 * 255 * 65 = 33150 overflows int16
}

}  // namespace
}  // namespace openge::testing
