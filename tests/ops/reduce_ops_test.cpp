// Reduction family: Reduce*, ArgMax/ArgMin, TopK, CumSum, Softmax/LogSoftmax. Expectations are
// hand-computed or come from naive double-precision loops written independently here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "op_test_util.h"
#include "openge/half.h"

namespace openge {
namespace {

using testing::make_node;
using testing::make_tensor;
using testing::run_node;
using testing::set_int;
using testing::set_ints;

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.scalar_as_double(i));
  return v;
}

Tensor random_tensor(Shape shape, uint32_t seed) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

Tensor iota(DType dt, Shape shape, float start = 1.0f) {
  Tensor t(dt, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float v = start + static_cast<float>(i);
    switch (dt) {
      case DType::kFloat32:
        t.data<float>()[i] = v;
        break;
      case DType::kFloat16:
        t.data<Float16>()[i] = Float16(v);
        break;
      case DType::kInt32:
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DType::kInt64:
        t.data<int64_t>()[i] = static_cast<int64_t>(v);
        break;
      default:
        ADD_FAILURE() << "iota: unexpected dtype";
    }
  }
  return t;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

TEST(OpReduceSum, AxesFromInputAtOpset13) {
  Node n = make_node("ReduceSum", 2);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor axes = make_tensor<int64_t>(DType::kInt64, {1}, {1});
  auto out = run_node(n, {&x, &axes}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{6, 15}));
}

TEST(OpReduceSum, AxesFromAttributeBeforeOpset13) {
  Node n = make_node("ReduceSum", 1);
  set_ints(n, "axes", {0});
  set_int(n, "keepdims", 0);
  Tensor x = iota(DType::kFloat32, {2, 3});
  auto out = run_node(n, {&x}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{3}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{5, 7, 9}));
}

TEST(OpReduceSum, EmptyAxesReduceAllOrNothing) {
  Tensor x = iota(DType::kInt64, {2, 2});
  Node all = make_node("ReduceSum", 1);
  set_int(all, "keepdims", 0);
  auto out = run_node(all, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), Shape{});
  EXPECT_EQ((*out)[0].data<int64_t>()[0], 10);

  Node noop = make_node("ReduceSum", 1);
  set_int(noop, "noop_with_empty_axes", 1);
  out = run_node(noop, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 2, 3, 4}));
}

TEST(OpReduceSum, NonAdjacentAxesMatchNaiveSum) {
  Tensor x = random_tensor({3, 4, 5, 6}, 1);
  Node n = make_node("ReduceSum", 1);
  set_ints(n, "axes", {0, 2});
  auto out = run_node(n, {&x}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 4, 1, 6}));
  std::vector<double> want(24, 0.0);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 5; ++c)
        for (int d = 0; d < 6; ++d) want[b * 6 + d] += x.data<float>()[((a * 4 + b) * 5 + c) * 6 + d];
  expect_near_all(values_of((*out)[0]), want, 1e-5);
}

TEST(OpReduceSum, Fp16AccumulatesInFloat) {
  // Summing 4096 ones in fp16 would stall at 2048; accumulating in fp32 gives 4096 exactly.
  Tensor x(DType::kFloat16, {4096});
  for (int i = 0; i < 4096; ++i) x.data<Float16>()[i] = Float16(1.0f);
  Node n = make_node("ReduceSum", 1);
  set_int(n, "keepdims", 0);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kFloat16);
  EXPECT_EQ((*out)[0].scalar_as_double(0), 4096.0);
}

TEST(OpReduceSum, RejectsBadAxes) {
  Tensor x = iota(DType::kFloat32, {2, 3});
  Node dup = make_node("ReduceSum", 1);
  set_ints(dup, "axes", {1, -1});
  auto out = run_node(dup, {&x}, 11);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("repeat"), std::string::npos) << out.status().message();
  Node range = make_node("ReduceSum", 1);
  set_ints(range, "axes", {2});
  out = run_node(range, {&x}, 11);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("out of range"), std::string::npos) << out.status().message();
}

TEST(OpReduceMean, LastAxisMatchesNaiveMean) {
  // LayerNorm as PyTorch exports it: ReduceMean over the last axis.
  Tensor x = random_tensor({4, 7, 77}, 2);
  Node n = make_node("ReduceMean", 1);
  set_ints(n, "axes", {-1});
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{4, 7, 1}));
  std::vector<double> want(28, 0.0);
  for (int r = 0; r < 28; ++r) {
    for (int i = 0; i < 77; ++i) want[r] += x.data<float>()[r * 77 + i];
    want[r] /= 77;
  }
  expect_near_all(values_of((*out)[0]), want, 1e-5);
}

TEST(OpReduceMean, MiddleAxisMatchesNaiveMean) {
  Tensor x = random_tensor({3, 10, 300}, 3);
  Node n = make_node("ReduceMean", 1);
  set_ints(n, "axes", {1});
  set_int(n, "keepdims", 0);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 300}));
  std::vector<double> want(900, 0.0);
  for (int o = 0; o < 3; ++o)
    for (int r = 0; r < 10; ++r)
      for (int i = 0; i < 300; ++i) want[o * 300 + i] += x.data<float>()[(o * 10 + r) * 300 + i] / 10.0;
  expect_near_all(values_of((*out)[0]), want, 1e-5);
}

TEST(OpReduceMax, PicksMaximumAndPropagatesNaN) {
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 3}, {-5, -2, -9, 1, std::nanf(""), 3});
  Node n = make_node("ReduceMax", 1);
  set_ints(n, "axes", {1});
  set_int(n, "keepdims", 0);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].data<float>()[0], -2.0f);
  EXPECT_TRUE(std::isnan((*out)[0].data<float>()[1]));
}

TEST(OpReduceMin, Int32AlongFirstAxis) {
  Tensor x = make_tensor<int32_t>(DType::kInt32, {2, 3}, {4, -7, 9, 5, 2, -10});
  Node n = make_node("ReduceMin", 1);
  set_ints(n, "axes", {0});
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{4, -7, -10}));
}

TEST(OpReduceProd, MultipliesRows) {
  Tensor x = iota(DType::kFloat32, {2, 3});
  Node n = make_node("ReduceProd", 1);
  set_ints(n, "axes", {1});
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{6, 120}));
}

TEST(OpReduceL2, IsEuclideanNorm) {
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 2}, {3, 4, 5, 12});
  Node n = make_node("ReduceL2", 1);
  set_ints(n, "axes", {1});
  set_int(n, "keepdims", 0);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{5, 13}));
}

TEST(OpReduceLogSumExp, StaysFiniteForLargeInputs) {
  // Naive log(sum(exp(x))) overflows float at x = 1000; the max-shifted form gives 1000 + ln 2.
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 2}, {1000, 1000, 0, std::log(3.0f)});
  Node n = make_node("ReduceLogSumExp", 1);
  set_ints(n, "axes", {1});
  set_int(n, "keepdims", 0);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  expect_near_all(values_of((*out)[0]), {1000 + std::log(2.0), std::log(4.0)}, 1e-6);
}

TEST(OpReduceL1, SumSquareAndLogSumByHand) {
  Tensor x = make_tensor<float>(DType::kFloat32, {1, 3}, {-1, 2, 3});
  const std::vector<std::pair<const char*, double>> cases = {
      {"ReduceL1", 6}, {"ReduceSumSquare", 14}, {"ReduceLogSum", std::log(4.0)}};
  for (const auto& [op, want] : cases) {
    Node n = make_node(op, 1);
    set_ints(n, "axes", {1});
    set_int(n, "keepdims", 0);
    auto out = run_node(n, {&x}, 13);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status().message();
    EXPECT_NEAR((*out)[0].scalar_as_double(0), want, 1e-6) << op;
  }
}

TEST(OpArgMax, FirstOrLastIndexOfTies) {
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 3}, {1, 3, 3, 5, 2, 5});
  Node n = make_node("ArgMax", 1);
  set_int(n, "axis", 1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 0}));
  set_int(n, "select_last_index", 1);
  set_int(n, "keepdims", 0);
  out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{2}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{2, 2}));
}

TEST(OpArgMin, AlongFirstAxis) {
  Tensor x = make_tensor<int64_t>(DType::kInt64, {3, 2}, {4, 1, 2, 8, 2, 0});
  Node n = make_node("ArgMin", 1);
  set_int(n, "keepdims", 0);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 2}));
}

TEST(OpTopK, LargestWithTiesTakesLowerIndexFirst) {
  Tensor x = make_tensor<float>(DType::kFloat32, {5}, {1, 5, 3, 5, 2});
  Tensor k = make_tensor<int64_t>(DType::kInt64, {1}, {3});
  Node n = make_node("TopK", 2, 2);
  auto out = run_node(n, {&x, &k}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{5, 5, 3}));
  EXPECT_EQ(values_of((*out)[1]), (std::vector<double>{1, 3, 2}));
  set_int(n, "largest", 0);
  out = run_node(n, {&x, &k}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values_of((*out)[1]), (std::vector<double>{0, 4, 2}));
}

TEST(OpTopK, AttributeKAtOpset1AlongFirstAxis) {
  Tensor x = make_tensor<int32_t>(DType::kInt32, {3, 2}, {1, 9, 7, 2, 4, 6});
  Node n = make_node("TopK", 1, 2);
  set_int(n, "k", 2);
  set_int(n, "axis", 0);
  auto out = run_node(n, {&x}, 1);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{7, 9, 4, 6}));
  EXPECT_EQ(values_of((*out)[1]), (std::vector<double>{1, 0, 2, 2}));
}

TEST(OpTopK, NaNRanksAboveNumbersAndKTooLargeIsAnError) {
  Tensor x = make_tensor<float>(DType::kFloat32, {4}, {1, std::nanf(""), 3, 2});
  Tensor k = make_tensor<int64_t>(DType::kInt64, {1}, {2});
  Node n = make_node("TopK", 2, 2);
  auto out = run_node(n, {&x, &k}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(std::isnan((*out)[0].data<float>()[0]));
  EXPECT_EQ((*out)[0].data<float>()[1], 3.0f);
  Tensor big = make_tensor<int64_t>(DType::kInt64, {1}, {5});
  out = run_node(n, {&x, &big}, 11);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("k = 5"), std::string::npos) << out.status().message();
}

TEST(OpTopK, RejectsNegativeOrMalformedK) {
  Tensor x = make_tensor<float>(DType::kFloat32, {3}, {1, 2, 3});
  Node n = make_node("TopK", 2, 2);
  Tensor negative = make_tensor<int64_t>(DType::kInt64, {1}, {-1});
  EXPECT_FALSE(run_node(n, {&x, &negative}, 11).ok());
  Tensor two_values = make_tensor<int64_t>(DType::kInt64, {2}, {1, 1});
  auto out = run_node(n, {&x, &two_values}, 11);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("exactly one value"), std::string::npos) << out.status().message();
}

TEST(OpArgMax, EmptyAxisIsAnError) {
  Tensor x(DType::kFloat32, {2, 0});
  Node n = make_node("ArgMax", 1);
  set_int(n, "axis", 1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("size 0"), std::string::npos) << out.status().message();
}

TEST(OpCumSum, RejectsFloatOrOutOfRangeAxis) {
  Tensor x = iota(DType::kFloat32, {4});
  Tensor float_axis = make_tensor<float>(DType::kFloat32, {}, {0});
  Node n = make_node("CumSum", 2);
  EXPECT_FALSE(run_node(n, {&x, &float_axis}, 14).ok());
  Tensor far_axis = make_tensor<int64_t>(DType::kInt64, {}, {3});
  auto out = run_node(n, {&x, &far_axis}, 14);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("out of range"), std::string::npos) << out.status().message();
}

TEST(OpCumSum, ExclusiveAndReverse) {
  Tensor x = iota(DType::kFloat32, {4});
  Tensor axis = make_tensor<int32_t>(DType::kInt32, {}, {0});
  const std::vector<std::vector<double>> want = {{1, 3, 6, 10}, {0, 1, 3, 6}, {10, 9, 7, 4}, {9, 7, 4, 0}};
  for (int mode = 0; mode < 4; ++mode) {
    Node n = make_node("CumSum", 2);
    set_int(n, "exclusive", mode & 1);
    set_int(n, "reverse", mode >> 1);
    auto out = run_node(n, {&x, &axis}, 14);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(values_of((*out)[0]), want[static_cast<size_t>(mode)]) << "mode " << mode;
  }
}

TEST(OpCumSum, Int64AlongFirstAxis) {
  Tensor x = iota(DType::kInt64, {3, 2});
  Tensor axis = make_tensor<int64_t>(DType::kInt64, {1}, {-2});
  Node n = make_node("CumSum", 2);
  auto out = run_node(n, {&x, &axis}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 2, 4, 6, 9, 12}));
}

std::vector<double> naive_softmax(const std::vector<double>& x, bool log) {
  double m = -INFINITY, s = 0;
  for (double v : x) m = std::max(m, v);
  for (double v : x) s += std::exp(v - m);
  std::vector<double> y;
  for (double v : x) y.push_back(log ? v - m - std::log(s) : std::exp(v - m) / s);
  return y;
}

TEST(OpSoftmax, LastAxisMatchesNaive) {
  Tensor x = random_tensor({6, 129}, 4);
  for (int i = 0; i < x.numel(); ++i) x.data<float>()[i] *= 10;
  Node n = make_node("Softmax", 1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<double> want;
  for (int r = 0; r < 6; ++r) {
    std::vector<double> row(x.data<float>() + r * 129, x.data<float>() + (r + 1) * 129);
    for (double v : naive_softmax(row, false)) want.push_back(v);
  }
  expect_near_all(values_of((*out)[0]), want, 2e-6);
}

TEST(OpSoftmax, HandValuesAndMinusInfinity) {
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 3}, {1, 2, 3, 0, -INFINITY, 0});
  Node n = make_node("Softmax", 1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  expect_near_all(values_of((*out)[0]), {0.09003057, 0.24472847, 0.66524096, 0.5, 0.0, 0.5}, 1e-6);
}

TEST(OpSoftmax, Opset11CoercesTo2D) {
  // axis 1 of [2,2,2]: each batch row of 4 elements is one softmax.
  Tensor x = iota(DType::kFloat32, {2, 2, 2});
  Node n = make_node("Softmax", 1);
  auto out = run_node(n, {&x}, 11);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto row = naive_softmax({1, 2, 3, 4}, false);
  std::vector<double> want = row;
  want.insert(want.end(), row.begin(), row.end());
  expect_near_all(values_of((*out)[0]), want, 1e-6);
}

TEST(OpSoftmax, Opset13MiddleAxis) {
  Tensor x = random_tensor({2, 3, 5}, 5);
  Node n = make_node("Softmax", 1);
  set_int(n, "axis", 1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<double> want(30);
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < 5; ++i) {
      std::vector<double> line;
      for (int r = 0; r < 3; ++r) line.push_back(x.data<float>()[(o * 3 + r) * 5 + i]);
      const auto s = naive_softmax(line, false);
      for (int r = 0; r < 3; ++r) want[(o * 3 + r) * 5 + i] = s[r];
    }
  expect_near_all(values_of((*out)[0]), want, 1e-6);
}

TEST(OpSoftmax, Fp16RoundsOnce) {
  Tensor x(DType::kFloat16, {3});
  const float in[3] = {0.5f, 1.5f, -1.0f};
  for (int i = 0; i < 3; ++i) x.data<Float16>()[i] = Float16(in[i]);
  Node n = make_node("Softmax", 1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto want = naive_softmax({0.5, 1.5, -1.0}, false);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ((*out)[0].data<Float16>()[i].bits, Float16(static_cast<float>(want[i])).bits) << i;
}

TEST(OpLogSoftmax, MatchesNaive) {
  Tensor x = random_tensor({3, 40}, 6);
  Node n = make_node("LogSoftmax", 1);
  set_int(n, "axis", -1);
  auto out = run_node(n, {&x}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<double> want;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> row(x.data<float>() + r * 40, x.data<float>() + (r + 1) * 40);
    for (double v : naive_softmax(row, true)) want.push_back(v);
  }
  expect_near_all(values_of((*out)[0]), want, 1e-6);
}

TEST(OpSoftmax, RejectsIntegerInputAndBadAxis) {
  Tensor xi = iota(DType::kInt32, {2});
  Node n = make_node("Softmax", 1);
  EXPECT_FALSE(run_node(n, {&xi}, 13).ok());
  Tensor x = iota(DType::kFloat32, {2});
  set_int(n, "axis", 3);
  auto out = run_node(n, {&x}, 13);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("axis 3"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace openge
