// MatMul, Gemm and Einsum against hand-computed values and an independent naive triple loop
// in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "op_test_util.h"
#include "openge/half.h"

namespace openge {
namespace {

using testing::make_node;
using testing::make_tensor;
using testing::run_node;
using testing::set_float;
using testing::set_int;
using testing::set_string;

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.scalar_as_double(i));
  return v;
}

Tensor random_tensor(Shape shape, uint32_t seed) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

// C = A·B for row-major A (M×K) and B (K×N) read through element accessors.
template <class FA, class FB>
std::vector<double> naive_matmul(int64_t M, int64_t N, int64_t K, FA a, FB b) {
  std::vector<double> c(static_cast<size_t>(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) c[static_cast<size_t>(i * N + j)] += a(i, k) * b(k, j);
  return c;
}

TEST(OpMatMul, TwoByTwoByHand) {
  Tensor a = make_tensor<float>(DType::kFloat32, {2, 2}, {1, 2, 3, 4});
  Tensor b = make_tensor<float>(DType::kFloat32, {2, 2}, {5, 6, 7, 8});
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{19, 22, 43, 50}));
}

TEST(OpMatMul, OddSizesMatchNaive) {
  // Sizes that cross every block edge (4-row, 16-column tiles; 256-deep passes).
  const int64_t M = 67, K = 300, N = 45;
  Tensor a = random_tensor({M, K}, 1), b = random_tensor({K, N}, 2);
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto want = naive_matmul(
      M, N, K, [&](int64_t i, int64_t k) { return a.data<float>()[i * K + k]; },
      [&](int64_t k, int64_t j) { return b.data<float>()[k * N + j]; });
  expect_near_all(values_of((*out)[0]), want, 1e-4);
}

TEST(OpMatMul, EveryTileShapeMatchesNaive) {
  // Row counts 1..13 hit every partial register tile; N = 40 leaves a partial column tile;
  // K = 520 takes three depth passes. fp64 and int64 run their own tile widths.
  const int64_t K = 520, N = 40;
  for (int64_t M = 1; M <= 13; ++M) {
    Tensor a = random_tensor({M, K}, 20 + static_cast<uint32_t>(M)), b = random_tensor({K, N}, 40);
    Tensor ad(DType::kFloat64, {M, K}), bd(DType::kFloat64, {K, N});
    Tensor ai(DType::kInt64, {M, K}), bi(DType::kInt64, {K, N});
    for (int64_t i = 0; i < a.numel(); ++i) {
      ad.data<double>()[i] = a.data<float>()[i];
      ai.data<int64_t>()[i] = static_cast<int64_t>(a.data<float>()[i] * 100);
    }
    for (int64_t i = 0; i < b.numel(); ++i) {
      bd.data<double>()[i] = b.data<float>()[i];
      bi.data<int64_t>()[i] = static_cast<int64_t>(b.data<float>()[i] * 100);
    }
    for (const Tensor* x : {&a, &ad, &ai}) {
      const Tensor* y = x == &a ? &b : (x == &ad ? &bd : &bi);
      auto out = run_node(make_node("MatMul", 2), {x, y});
      ASSERT_TRUE(out.ok()) << out.status().message();
      const auto want = naive_matmul(
          M, N, K, [&](int64_t i, int64_t k) { return x->scalar_as_double(i * K + k); },
          [&](int64_t k, int64_t j) { return y->scalar_as_double(k * N + j); });
      expect_near_all(values_of((*out)[0]), want, x == &a ? 1e-4 : 1e-12);
    }
  }
}

TEST(OpMatMul, PromotesVectors) {
  Tensor v = make_tensor<float>(DType::kFloat32, {3}, {1, 2, 3});
  Tensor m = make_tensor<float>(DType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor mt = make_tensor<float>(DType::kFloat32, {2, 3}, {1, 3, 5, 2, 4, 6});
  auto vm = run_node(make_node("MatMul", 2), {&v, &m});
  ASSERT_TRUE(vm.ok()) << vm.status().message();
  EXPECT_EQ((*vm)[0].shape(), (Shape{2}));
  EXPECT_EQ(values_of((*vm)[0]), (std::vector<double>{22, 28}));
  auto mv = run_node(make_node("MatMul", 2), {&mt, &v});
  ASSERT_TRUE(mv.ok()) << mv.status().message();
  EXPECT_EQ((*mv)[0].shape(), (Shape{2}));
  EXPECT_EQ(values_of((*mv)[0]), (std::vector<double>{22, 28}));
  auto vv = run_node(make_node("MatMul", 2), {&v, &v});
  ASSERT_TRUE(vv.ok()) << vv.status().message();
  EXPECT_EQ((*vv)[0].shape(), Shape{});
  EXPECT_EQ(values_of((*vv)[0]), (std::vector<double>{14}));
}

TEST(OpMatMul, BroadcastsBatchDims) {
  Tensor a = random_tensor({2, 1, 4, 5}, 3), b = random_tensor({3, 5, 6}, 4);
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].shape(), (Shape{2, 3, 4, 6}));
  std::vector<double> want;
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 3; ++q) {
      const auto c = naive_matmul(
          4, 6, 5, [&](int64_t i, int64_t k) { return a.data<float>()[p * 20 + i * 5 + k]; },
          [&](int64_t k, int64_t j) { return b.data<float>()[q * 30 + k * 6 + j]; });
      want.insert(want.end(), c.begin(), c.end());
    }
  expect_near_all(values_of((*out)[0]), want, 1e-5);
}

TEST(OpMatMul, Fp16AccumulatesInFloatAndRoundsOnce) {
  // 2048 + 1 + 1 + ... in fp16 steps would stay at 2048; fp32 accumulation reaches 2056.
  const int64_t K = 9;
  Tensor a(DType::kFloat16, {1, K}), b(DType::kFloat16, {K, 1});
  for (int64_t k = 0; k < K; ++k) {
    a.data<Float16>()[k] = Float16(k == 0 ? 2048.0f : 1.0f);
    b.data<Float16>()[k] = Float16(1.0f);
  }
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kFloat16);
  EXPECT_EQ((*out)[0].scalar_as_double(0), 2056.0);
}

TEST(OpMatMul, BFloat16MatchesNaive) {
  Tensor a(DType::kBFloat16, {3, 4}), b(DType::kBFloat16, {4, 2});
  for (int i = 0; i < 12; ++i) a.data<BFloat16>()[i] = BFloat16(0.25f * static_cast<float>(i - 5));
  for (int i = 0; i < 8; ++i) b.data<BFloat16>()[i] = BFloat16(0.5f * static_cast<float>(i - 3));
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto want = naive_matmul(
      3, 2, 4, [&](int64_t i, int64_t k) { return a.scalar_as_double(i * 4 + k); },
      [&](int64_t k, int64_t j) { return b.scalar_as_double(k * 2 + j); });
  expect_near_all(values_of((*out)[0]), want, 0);  // small exact values
}

TEST(OpMatMul, Int32AndInt64) {
  Tensor a = make_tensor<int32_t>(DType::kInt32, {2, 3}, {1, -2, 3, 4, 5, -6});
  Tensor b = make_tensor<int32_t>(DType::kInt32, {3, 1}, {7, 8, -9});
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{-36, 122}));
  Tensor c = make_tensor<int64_t>(DType::kInt64, {1, 2}, {int64_t{1} << 40, -3});
  Tensor d = make_tensor<int64_t>(DType::kInt64, {2, 1}, {2, 5});
  out = run_node(make_node("MatMul", 2), {&c, &d});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].data<int64_t>()[0], (int64_t{1} << 41) - 15);
}

TEST(OpMatMul, RejectsMismatchAndAbsurdSizes) {
  Tensor a = random_tensor({2, 3}, 5), b = random_tensor({4, 2}, 6);
  auto out = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("inner dimensions"), std::string::npos) << out.status().message();
  Tensor e1(DType::kFloat32, {1 << 20, 0}), e2(DType::kFloat32, {0, 1 << 20});
  out = run_node(make_node("MatMul", 2), {&e1, &e2});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("too large"), std::string::npos) << out.status().message();
}

TEST(OpGemm, TransposesScalesAndBroadcastsC) {
  const int64_t M = 5, K = 7, N = 19;
  Tensor at = random_tensor({K, M}, 7), bt = random_tensor({N, K}, 8), c = random_tensor({N}, 9);
  Node n = make_node("Gemm", 3);
  set_int(n, "transA", 1);
  set_int(n, "transB", 1);
  set_float(n, "alpha", 0.5f);
  set_float(n, "beta", -2.0f);
  auto out = run_node(n, {&at, &bt, &c});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].shape(), (Shape{M, N}));
  auto want = naive_matmul(
      M, N, K, [&](int64_t i, int64_t k) { return at.data<float>()[k * M + i]; },
      [&](int64_t k, int64_t j) { return bt.data<float>()[j * K + k]; });
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i * N + j] = 0.5 * want[i * N + j] - 2.0 * c.data<float>()[j];
  expect_near_all(values_of((*out)[0]), want, 1e-5);
}

TEST(OpGemm, TransposedBLargerThanOnePanel) {
  // transB is read panel by panel (16 columns x 256 deep): cross both edges, and several row tiles.
  const int64_t M = 100, K = 300, N = 40;
  Tensor a = random_tensor({M, K}, 30), bt = random_tensor({N, K}, 31);
  Node n = make_node("Gemm", 2);
  set_int(n, "transB", 1);
  auto out = run_node(n, {&a, &bt}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto want = naive_matmul(
      M, N, K, [&](int64_t i, int64_t k) { return a.data<float>()[i * K + k]; },
      [&](int64_t k, int64_t j) { return bt.data<float>()[j * K + k]; });
  expect_near_all(values_of((*out)[0]), want, 1e-4);
}

TEST(OpGemm, WithoutCAndWithColumnC) {
  Tensor a = make_tensor<float>(DType::kFloat32, {2, 2}, {1, 2, 3, 4});
  Tensor b = make_tensor<float>(DType::kFloat32, {2, 2}, {1, 0, 0, 1});
  auto out = run_node(make_node("Gemm", 2), {&a, &b}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 2, 3, 4}));
  Tensor c = make_tensor<float>(DType::kFloat32, {2, 1}, {10, 20});
  out = run_node(make_node("Gemm", 3), {&a, &b, &c}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{11, 12, 23, 24}));
  Tensor bad = make_tensor<float>(DType::kFloat32, {3}, {1, 2, 3});
  out = run_node(make_node("Gemm", 3), {&a, &b, &bad}, 13);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("broadcast"), std::string::npos) << out.status().message();
}

TEST(OpGemm, Fp16RoundsOnce) {
  Tensor a(DType::kFloat16, {1, 2}), b(DType::kFloat16, {2, 1}), c(DType::kFloat16, {1});
  a.data<Float16>()[0] = Float16(2048.0f);
  a.data<Float16>()[1] = Float16(1.0f);
  b.data<Float16>()[0] = Float16(1.0f);
  b.data<Float16>()[1] = Float16(1.0f);
  c.data<Float16>()[0] = Float16(1.0f);
  // 2048 + 1 + 1 = 2050 in fp32, exactly representable; fp16 intermediate rounding would give 2048.
  auto out = run_node(make_node("Gemm", 3), {&a, &b, &c}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].scalar_as_double(0), 2050.0);
}

Result<std::vector<Tensor>> einsum(const std::string& equation, std::vector<const Tensor*> inputs) {
  Node n = make_node("Einsum", inputs.size());
  set_string(n, "equation", equation);
  return run_node(n, inputs, 12);
}

TEST(OpEinsum, MatrixProductForms) {
  Tensor a = random_tensor({3, 4}, 10), b = random_tensor({4, 5}, 11);
  const auto want = naive_matmul(
      3, 5, 4, [&](int64_t i, int64_t k) { return a.data<float>()[i * 4 + k]; },
      [&](int64_t k, int64_t j) { return b.data<float>()[k * 5 + j]; });
  for (const char* eq : {"ij,jk->ik", "ij,jk", "i j , j k -> i k"}) {
    auto out = einsum(eq, {&a, &b});
    ASSERT_TRUE(out.ok()) << eq << ": " << out.status().message();
    EXPECT_EQ((*out)[0].shape(), (Shape{3, 5})) << eq;
    expect_near_all(values_of((*out)[0]), want, 1e-5);
  }
}

TEST(OpEinsum, BatchedAndEllipsisWithBroadcast) {
  Tensor a = random_tensor({2, 3, 4}, 12), b = random_tensor({2, 4, 5}, 13), b1 = random_tensor({1, 4, 5}, 14);
  auto out = einsum("bij,bjk->bik", {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto ell = einsum("...ij,...jk->...ik", {&a, &b});
  ASSERT_TRUE(ell.ok()) << ell.status().message();
  auto mm = run_node(make_node("MatMul", 2), {&a, &b});
  ASSERT_TRUE(mm.ok());
  expect_near_all(values_of((*out)[0]), values_of((*mm)[0]), 1e-6);
  expect_near_all(values_of((*ell)[0]), values_of((*mm)[0]), 1e-6);
  auto bc = einsum("...ij,...jk->...ik", {&a, &b1});
  ASSERT_TRUE(bc.ok()) << bc.status().message();
  auto mm1 = run_node(make_node("MatMul", 2), {&a, &b1});
  ASSERT_TRUE(mm1.ok());
  EXPECT_EQ((*bc)[0].shape(), (Shape{2, 3, 5}));
  expect_near_all(values_of((*bc)[0]), values_of((*mm1)[0]), 1e-6);
}

TEST(OpEinsum, ZeroSizedDimensionsGiveEmptyOrZeroOutputs) {
  // "bij,bjk->bik" with i, k or the contracted j made 0 (the sweep of tests/fault_injection
  // found the first two reading past the empty operand): empty outputs, and zeros for j = 0.
  struct Case {
    Shape x, y, out;
  };
  for (const Case& c : {Case{{2, 0, 3}, {2, 3, 4}, {2, 0, 4}}, Case{{2, 5, 3}, {2, 3, 0}, {2, 5, 0}},
                        Case{{2, 5, 0}, {2, 0, 4}, {2, 5, 4}}, Case{{0, 5, 3}, {0, 3, 4}, {0, 5, 4}}}) {
    Tensor x = random_tensor(c.x, 20), y = random_tensor(c.y, 21);
    auto out = einsum("bij,bjk->bik", {&x, &y});
    ASSERT_TRUE(out.ok()) << shape_to_string(c.x) << ": " << out.status().message();
    EXPECT_EQ((*out)[0].shape(), c.out) << shape_to_string(c.x) << " x " << shape_to_string(c.y);
    for (double v : values_of((*out)[0])) EXPECT_EQ(v, 0.0) << "an empty sum";
  }
}

TEST(OpEinsum, AttentionScores) {
  Tensor q = random_tensor({2, 3, 4, 8}, 15), k = random_tensor({2, 3, 5, 8}, 16);
  auto out = einsum("bhqd,bhkd->bhqk", {&q, &k});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].shape(), (Shape{2, 3, 4, 5}));
  std::vector<double> want;
  for (int64_t bh = 0; bh < 6; ++bh) {
    const auto c = naive_matmul(
        4, 5, 8, [&](int64_t i, int64_t d) { return q.data<float>()[bh * 32 + i * 8 + d]; },
        [&](int64_t d, int64_t j) { return k.data<float>()[bh * 40 + j * 8 + d]; });
    want.insert(want.end(), c.begin(), c.end());
  }
  expect_near_all(values_of((*out)[0]), want, 1e-5);
}

TEST(OpEinsum, TransposeReduceDiagonalDotAndChain) {
  Tensor m = make_tensor<float>(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto t = einsum("ij->ji", {&m});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of((*t)[0]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  auto r = einsum("ij->i", {&m});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values_of((*r)[0]), (std::vector<double>{6, 15}));
  auto all = einsum("ij->", {&m});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(values_of((*all)[0]), (std::vector<double>{21}));
  Tensor sq = make_tensor<float>(DType::kFloat32, {2, 2}, {1, 2, 3, 4});
  auto diag = einsum("ii->i", {&sq});
  ASSERT_TRUE(diag.ok()) << diag.status().message();
  EXPECT_EQ(values_of((*diag)[0]), (std::vector<double>{1, 4}));
  Tensor v = make_tensor<float>(DType::kFloat32, {3}, {1, 2, 3});
  auto dot = einsum("i,i->", {&v, &v});
  ASSERT_TRUE(dot.ok()) << dot.status().message();
  EXPECT_EQ(values_of((*dot)[0]), (std::vector<double>{14}));
  // (m · mT) · m by hand: m·mT = [[14,32],[32,77]].
  Tensor mt = make_tensor<float>(DType::kFloat32, {3, 2}, {1, 4, 2, 5, 3, 6});
  auto chain = einsum("ij,jk,kl->il", {&m, &mt, &m});
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(values_of((*chain)[0]), (std::vector<double>{142, 188, 234, 340, 449, 558}));
}

TEST(OpEinsum, Int64Outer) {
  Tensor a = make_tensor<int64_t>(DType::kInt64, {2}, {2, -3});
  Tensor b = make_tensor<int64_t>(DType::kInt64, {3}, {1, 2, 3});
  auto out = einsum("i,j->ij", {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{2, 4, 6, -3, -6, -9}));
}

TEST(OpEinsum, RejectsHugeOutput) {
  // Two 4 MiB inputs whose outer product would need 2^40 elements.
  Tensor a(DType::kFloat32, {1 << 20}), b(DType::kFloat32, {1 << 20});
  auto out = einsum("i,j->ij", {&a, &b});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("too large"), std::string::npos) << out.status().message();
}

TEST(OpEinsum, ErrorsNameTheEquation) {
  Tensor a = random_tensor({3, 4}, 17), b = random_tensor({5, 6}, 18);
  for (const char* eq : {"ij,jk->ik", "ij->k", "i$,jk->ik", "ijk,jk->ik", "ij..,jk->ik"}) {
    auto out = einsum(eq, {&a, &b});
    ASSERT_FALSE(out.ok()) << eq;
    EXPECT_NE(out.status().message().find(eq), std::string::npos) << out.status().message();
  }
}

}  // namespace
}  // namespace openge
