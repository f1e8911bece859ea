// Windows, MelWeightMatrix, DFT, STFT (signal_ops.cpp) and Det (math_det.cpp). Expected values
// from NumPy (np.fft.fft / ifft / rfft, np.linalg.det; quoted) or by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

void expect_near(const V& got, const V& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(OpWindow, PeriodicAndSymmetricCosineWindows) {
  const Tensor five = i64({}, {5});
  // 0.5 - 0.5 cos(2 pi n / 5)
  expect_near(values(run_unary("HannWindow", five)),
              {0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874738, 0.3454915028125264}, 1e-7);
  Node hamming = make_node("HammingWindow", 1);
  set_int(hamming, "periodic", 0);  // 25/46 - 21/46 cos(2 pi n / 4)
  expect_near(values(run_ok(hamming, {&five})),
              {0.08695652173913043, 0.5434782608695652, 1.0, 0.5434782608695653, 0.08695652173913043}, 1e-7);
  Node blackman = make_node("BlackmanWindow", 1);
  set_int(blackman, "output_datatype", static_cast<int64_t>(DType::kFloat64));
  const Tensor b = run_ok(blackman, {&five});
  EXPECT_EQ(b.dtype(), DType::kFloat64);
  expect_near(values(b), {0.0, 0.2007701432625304, 0.8492298567374694, 0.8492298567374697, 0.2007701432625305}, 1e-15);
}

TEST(OpWindow, HostileSizesAreErrors) {
  const Tensor negative = i32({}, {-4});
  EXPECT_FALSE(run_node(make_node("HannWindow", 1), {&negative}).ok());
  const Tensor huge = i64({}, {int64_t{1} << 40});
  auto r = run_node(make_node("HannWindow", 1), {&huge});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("limit"), std::string::npos) << r.status().message();
  const Tensor zero = i64({}, {0});
  EXPECT_EQ(run_unary("HannWindow", zero).numel(), 0);
}

TEST(OpMelWeightMatrix, TriangularFiltersOfTheOnnxExample) {
  // ONNX's example (num_mel_bins 8, dft_length 16, 8192 Hz, 0..4096 Hz). Its reference formula
  // in NumPy gives band edges [0,0,0,1,1,2,3,4,5,6] and this 9 x 8 matrix (rows 6..8 zero).
  const Tensor bins = i32({}, {8}), dft = i32({}, {16}), rate = i32({}, {8192});
  const Tensor lo = f32({}, {0.0f}), hi = f32({}, {4096.0f});
  const Tensor y = run_ok(make_node("MelWeightMatrix", 5), {&bins, &dft, &rate, &lo, &hi});
  ASSERT_EQ(y.shape(), (Shape{9, 8}));
  V want(72, 0.0);
  for (auto [row, col] :
       std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}})
    want[static_cast<size_t>(row * 8 + col)] = 1.0;
  EXPECT_EQ(values(y), want);
  const Tensor bad_rate = i32({}, {0});
  EXPECT_FALSE(run_node(make_node("MelWeightMatrix", 5), {&bins, &dft, &bad_rate, &lo, &hi}).ok());
  // An upper edge far above Nyquist puts band edges outside the matrix: dropped, no crash.
  const Tensor far = f32({}, {1e6f});
  EXPECT_EQ(run_ok(make_node("MelWeightMatrix", 5), {&bins, &dft, &rate, &lo, &far}).shape(), (Shape{9, 8}));
}

TEST(OpDft, RealInputAlongAxis1MatchesNumPy) {
  const Tensor x = f32({1, 5, 1}, {1, 2, 3, 4, 5});
  const Tensor y = run_ok(make_node("DFT", 1), {&x});
  ASSERT_EQ(y.shape(), (Shape{1, 5, 2}));
  // np.fft.fft([1,2,3,4,5])
  expect_near(
      values(y),
      {15, 0, -2.5, 3.4409548011779334, -2.5, 0.8122992405822659, -2.5, -0.8122992405822659, -2.5, -3.4409548011779334},
      2e-6);
}

TEST(OpDft, DftLengthPadsAndOnesidedKeepsHalf) {
  const Tensor x = f32({1, 5, 1}, {1, 2, 3, 4, 5});
  const Tensor eight = i64({}, {8});
  Node n = make_node("DFT", 2);
  set_int(n, "onesided", 1);
  const Tensor y = run_ok(n, {&x, &eight});
  ASSERT_EQ(y.shape(), (Shape{1, 5, 2}));  // 8 / 2 + 1 = 5 bins
  // np.fft.fft([1,2,3,4,5], 8)[:5]
  expect_near(values(y),
              {15, 0, -5.414213562373095, -7.242640687119286, 3, 2, -2.585786437626905, -1.2426406871192857, 3, 0},
              1e-5);
}

TEST(OpDft, InverseOfComplexInputScalesByOneOverN) {
  const Tensor x = f32({1, 3, 2}, {1, 2, 3, -1, 0.5f, 0});
  Node n = make_node("DFT", 1);
  set_int(n, "inverse", 1);
  // np.fft.ifft([1+2j, 3-1j, 0.5])
  expect_near(
      values(run_ok(n, {&x})),
      {1.5, 0.3333333333333333, 0.03867513459481287, 1.5550211698203653, -0.5386751345948129, 0.1116454968463012},
      1e-6);
}

TEST(OpDft, OtherAxisAndHalfPrecision) {
  // [1, 2, 3, 1]: axis 2 transforms each row of 3.
  const Tensor x = f16({1, 2, 3, 1}, {1, 0, 0, 1, 1, 1});
  Node n = make_node("DFT", 1);
  set_int(n, "axis", 2);
  const Tensor y = run_ok(n, {&x});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  ASSERT_EQ(y.shape(), (Shape{1, 2, 3, 2}));
  // fft([1,0,0]) = [1,1,1]; fft([1,1,1]) = [3,0,0]
  expect_near(values(y), {1, 0, 1, 0, 1, 0, 3, 0, 0, 0, 0, 0}, 2e-3);
  set_int(n, "axis", 3);
  EXPECT_FALSE(run_node(n, {&x}).ok()) << "the complex dim is not a signal axis";
}

TEST(OpStft, FramesOfARealSignalWithAWindow) {
  // signal 0..7, frame 4 (from the window), step 2: frames start at 0, 2, 4.
  std::vector<float> s(8);
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<float>(i);
  const Tensor signal = f32({1, 8, 1}, s);
  const Tensor step = i64({}, {2});
  const Tensor window = f32({4}, {0, 1, 1, 0});
  const Tensor y = run_ok(make_node("STFT", 3), {&signal, &step, &window});
  ASSERT_EQ(y.shape(), (Shape{1, 3, 3, 2}));
  // Frame f windowed is [0, 2f+1, 2f+2, 0]: fft bins 0..2 = [a+b, -i a - b... ] by hand:
  // X0 = a + b, X1 = -i a - b, X2 = -a + b with a = 2f+1, b = 2f+2.
  V want;
  for (int f = 0; f < 3; ++f) {
    const double a = 2 * f + 1, b = 2 * f + 2;
    for (double v : {a + b, 0.0, -b, -a, b - a, 0.0}) want.push_back(v);
  }
  expect_near(values(y), want, 1e-5);
  const Tensor length = i64({}, {3});
  EXPECT_FALSE(run_node(make_node("STFT", 4), {&signal, &step, &window, &length}).ok())
      << "frame_length != window length";
  const Tensor zero_step = i64({}, {0});
  EXPECT_FALSE(run_node(make_node("STFT", 3), {&signal, &zero_step, &window}).ok());
}

TEST(OpDet, DeterminantsOfABatch) {
  // np.linalg.det: 22, -1, 0
  const Tensor x = f32({3, 3, 3}, {1, 2, 3, 0, 4, 5, 1, 0, 6,  //
                                   0, 1, 0, 1, 0, 0, 0, 0, 1,  //
                                   1, 2, 3, 2, 4, 6, 0, 0, 1});
  const Tensor y = run_unary("Det", x);
  ASSERT_EQ(y.shape(), (Shape{3}));
  expect_near(values(y), {22, -1, 0}, 1e-5);
  const Tensor d = f32({2, 2}, {3, 1, 4, 2});
  const Tensor yd = run_unary("Det", d);
  EXPECT_EQ(yd.shape(), (Shape{}));
  expect_near(values(yd), {2}, 1e-6);
  const Tensor rect = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(run_node(make_node("Det", 1), {&rect}).ok());
}

}  // namespace
}  // namespace openge::testing
