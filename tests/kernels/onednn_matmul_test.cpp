// AI Core MatMul / FusedMatMul / Gemm against a naive triple loop written here.
#include <thread>

#include "base/float_convert.h"
#include "kernel_test_util.h"
#include "ops/fused/fused_ops.h"
#include "../ops/op_test_util.h"

namespace openge::testing {
namespace {

// C[b] = A[b] x B[b] with numpy broadcasting of the batch dims (ranks >= 2).
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  const size_t r = std::max(a.rank(), b.rank());
  auto pad = [&](const Shape& s) {
    Shape p(r - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  const Shape as = pad(a.shape()), bs = pad(b.shape());
  Shape ys(r);
  for (size_t i = 0; i + 2 < r; ++i) ys[i] = std::max(as[i], bs[i]);
  const int64_t M = as[r - 2], K = as[r - 1], N = bs[r - 1];
  ys[r - 2] = M;
  ys[r - 1] = N;
  Tensor y(DType::kFloat32, ys);
  const int64_t batches = shape_numel(ys) / (M * N);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t rem = bi, aoff = 0, boff = 0, astride = 1, bstride = 1;
    for (size_t d = r - 2; d-- > 0;) {
      const int64_t idx = rem % ys[d];
      rem /= ys[d];
      aoff += (as[d] == 1 ? 0 : idx) * astride;
      boff += (bs[d] == 1 ? 0 : idx) * bstride;
      astride *= as[d];
      bstride *= bs[d];
    }
    const float* A = a.data<float>() + aoff * M * K;
    const float* B = b.data<float>() + boff * K * N;
    float* Y = y.data<float>() + bi * M * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += double(A[m * K + k]) * B[k * N + n];
        Y[m * N + n] = float(acc);
      }
  }
  return y;
}

Tensor transpose2d(const Tensor& t) {
  Tensor o(DType::kFloat32, {t.dim(1), t.dim(0)});
  for (int64_t i = 0; i < t.dim(0); ++i)
    for (int64_t j = 0; j < t.dim(1); ++j) o.data<float>()[j * t.dim(0) + i] = t.data<float>()[i * t.dim(1) + j];
  return o;
}

struct MatMulCase {
  Shape a, b;
  bool b_constant;
};
// ctest shows the parameter: print the case, not its bytes.
void PrintTo(const MatMulCase& c, std::ostream* os) {
  *os << shape_to_string(c.a) << " x " << shape_to_string(c.b) << (c.b_constant ? " const B" : "");
}

class OneDnnMatMulTest : public ::testing::TestWithParam<MatMulCase> {};

TEST_P(OneDnnMatMulTest, MatchesNaiveProduct) {
  const MatMulCase c = GetParam();
  Tensor a = random_tensor(c.a, 1), b = random_tensor(c.b, 2);
  Tensor expected = naive_matmul(a, b);
  Node node = make_node("MatMul", 2);
  auto kernel = make_kernel(node, {&a, &b}, {false, c.b_constant}, DType::kFloat32, expected.shape());
  ASSERT_NE(kernel, nullptr);
  Tensor got = run_kernel(*kernel, node, {&a, &b}, DType::kFloat32, expected.shape());
  EXPECT_LT(max_rel_diff(got, expected), 1e-5);
  EXPECT_TRUE(bitwise_equal(got, run_kernel(*kernel, node, {&a, &b}, DType::kFloat32, expected.shape())));
}

INSTANTIATE_TEST_SUITE_P(Shapes, OneDnnMatMulTest,
                         ::testing::Values(MatMulCase{{7, 16}, {16, 5}, true},             // 2-D, packed weights
                                           MatMulCase{{2, 9, 32}, {32, 24}, true},         // batch folded into M
                                           MatMulCase{{2, 9, 32}, {32, 24}, false},        // dynamic weights
                                           MatMulCase{{2, 3, 5, 8}, {2, 3, 8, 6}, false},  // attention-style
                                           MatMulCase{{1, 3, 5, 8}, {2, 1, 8, 6}, false},  // broadcast batches
                                           MatMulCase{{4, 5, 8}, {8, 6}, false},           // rank mismatch
                                           MatMulCase{{3, 5, 8}, {3, 8, 6}, true}));       // batched constant

TEST(OneDnnFusedMatMul, BiasResidualActivation) {
  Tensor a = random_tensor({2, 6, 16}, 1), b = random_tensor({16, 12}, 2);
  Tensor bias = random_tensor({12}, 3), z = random_tensor({2, 6, 12}, 4);
  const Tensor prod = naive_matmul(a, b);
  for (Activation kind : {Activation::kNone, Activation::kRelu, Activation::kGelu, Activation::kTanh}) {
    const FusedActivation act{kind, 0, 0};
    Node node = make_node(kFusedMatMul, 4);
    node.domain = kFusedDomain;
    write_fused_activation(node, act);
    std::vector<const Tensor*> in{&a, &b, &bias, &z};
    auto kernel = make_kernel(node, in, {false, true, true, false}, DType::kFloat32, prod.shape());
    ASSERT_NE(kernel, nullptr);
    Tensor got = run_kernel(*kernel, node, in, DType::kFloat32, prod.shape());
    Tensor expected(DType::kFloat32, prod.shape());
    for (int64_t i = 0; i < prod.numel(); ++i)
      expected.data<float>()[i] =
          apply_activation(act, prod.data<float>()[i] + bias.data<float>()[i % 12] + z.data<float>()[i]);
    EXPECT_LT(max_rel_diff(got, expected), 1e-5) << static_cast<int>(kind);
    // The reference engine's FusedMatMul agrees when the MatMul reference exists.
    if (find_op_schema("MatMul")) {
      auto ref = run_node(node, in);
      ASSERT_TRUE(ref.ok()) << ref.status().message();
      EXPECT_LT(max_rel_diff((*ref)[0], expected), 1e-5);
    }
  }
}

struct GemmCase {
  int64_t m, k, n;
  bool trans_a, trans_b;
  float alpha, beta;
  Shape c;  // empty: no C
  bool b_constant;
};
void PrintTo(const GemmCase& g, std::ostream* os) {
  *os << g.m << "x" << g.k << "x" << g.n << (g.trans_a ? " tA" : "") << (g.trans_b ? " tB" : "") << " alpha " << g.alpha
      << " beta " << g.beta << " C " << shape_to_string(g.c) << (g.b_constant ? " const B" : "");
}

class OneDnnGemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(OneDnnGemmTest, MatchesNaiveGemm) {
  const GemmCase g = GetParam();
  Tensor a = random_tensor(g.trans_a ? Shape{g.k, g.m} : Shape{g.m, g.k}, 1);
  Tensor b = random_tensor(g.trans_b ? Shape{g.n, g.k} : Shape{g.k, g.n}, 2);
  Tensor c = random_tensor(g.c.empty() ? Shape{1} : g.c, 3);
  Tensor prod = naive_matmul(g.trans_a ? transpose2d(a) : a, g.trans_b ? transpose2d(b) : b);
  Tensor expected(DType::kFloat32, {g.m, g.n});
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      float cv = 0;
      if (!g.c.empty()) cv = c.numel() == g.n ? c.data<float>()[j] : c.data<float>()[i * g.n + j];
      expected.data<float>()[i * g.n + j] = g.alpha * prod.data<float>()[i * g.n + j] + g.beta * cv;
    }
  Node node = make_node("Gemm", g.c.empty() ? 2 : 3);
  set_int(node, "transA", g.trans_a);
  set_int(node, "transB", g.trans_b);
  set_float(node, "alpha", g.alpha);
  set_float(node, "beta", g.beta);
  std::vector<const Tensor*> in{&a, &b};
  if (!g.c.empty()) in.push_back(&c);
  auto kernel = make_kernel(node, in, {false, g.b_constant, true}, DType::kFloat32, {g.m, g.n});
  ASSERT_NE(kernel, nullptr);
  Tensor got = run_kernel(*kernel, node, in, DType::kFloat32, {g.m, g.n});
  EXPECT_LT(max_rel_diff(got, expected), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Forms, OneDnnGemmTest,
                         ::testing::Values(GemmCase{4, 8, 6, false, false, 1, 1, {6}, true},
                                           GemmCase{4, 8, 6, false, true, 1, 1, {1, 6}, true},  // Linear
                                           GemmCase{4, 8, 6, true, false, 1, 1, {}, false},
                                           GemmCase{4, 8, 6, true, true, 2.0f, 0.5f, {6}, true},
                                           GemmCase{4, 8, 6, false, true, 1, 0.5f, {4, 6}, false},
                                           GemmCase{1, 64, 10, false, true, 1, 1, {10}, true}));

TEST(OneDnnMatMul, ConcurrentRunsAgree) {
  Tensor b = random_tensor({64, 48}, 2);
  std::vector<Tensor> as;
  for (uint32_t i = 0; i < 4; ++i) as.push_back(random_tensor({32, 64}, 20 + i));
  Node node = make_node("MatMul", 2);
  auto kernel = make_kernel(node, {&as[0], &b}, {false, true}, DType::kFloat32, {32, 48});
  ASSERT_NE(kernel, nullptr);
  std::vector<Tensor> serial, parallel(as.size());
  for (auto& a : as) serial.push_back(run_kernel(*kernel, node, {&a, &b}, DType::kFloat32, {32, 48}));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < as.size(); ++i)
    threads.emplace_back([&, i] {
      for (int rep = 0; rep < 10; ++rep)
        parallel[i] = run_kernel(*kernel, node, {&as[i], &b}, DType::kFloat32, {32, 48});
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < as.size(); ++i) EXPECT_TRUE(bitwise_equal(serial[i], parallel[i]));
}

// float16: the float32 kernel on exactly widened inputs, one rounding of the output.
TEST(OneDnnMatMul, Float16IsTheFloat32KernelRoundedOnce) {
  Node node = make_node("MatMul", 2);
  Tensor a16 = random_tensor({4, 8}, 1, DType::kFloat16), b16 = random_tensor({8, 4}, 2, DType::kFloat16);
  auto k16 = make_kernel(node, {&a16, &b16}, {false, true}, DType::kFloat16, {4, 4});
  ASSERT_NE(k16, nullptr);
  Tensor a32 = widened_copy(a16), b32 = widened_copy(b16);
  auto k32 = make_kernel(node, {&a32, &b32}, {false, true}, DType::kFloat32, {4, 4});
  ASSERT_NE(k32, nullptr);
  Tensor y16 = run_kernel(*k16, node, {&a16, &b16}, DType::kFloat16, {4, 4});
  Tensor y32 = run_kernel(*k32, node, {&a32, &b32}, DType::kFloat32, {4, 4});
  EXPECT_TRUE(bitwise_equal(y16, converted_copy(y32, DType::kFloat16)));
}

TEST(OneDnnMatMul, DeclinesVectors) {
  Node node = make_node("MatMul", 2);
  Tensor v = random_tensor({8}, 1), m = random_tensor({8, 4}, 2);
  EXPECT_EQ(make_kernel(node, {&v, &m}, {false, true}, DType::kFloat32, {4}), nullptr);
}

}  // namespace
}  // namespace openge::testing
