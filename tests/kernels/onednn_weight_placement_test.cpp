// Measured weight placement of the gemm matmul: whichever address is chosen, the product is the
// same as a naive loop's, the weights really start where asked, and the choice is made once per
// shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <random>
#include <vector>

#include "kernels/onednn_common.h"
#include "kernels/onednn_weight_placement.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

struct Problem {
  int64_t M, K, N;
  std::vector<float> a, b, naive;
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

Problem make_problem(int64_t M, int64_t K, int64_t N) {
  Problem p{M, K, N, {}, {}, {}, {}, {}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  p.a.resize(static_cast<size_t>(M * K));
  p.b.resize(static_cast<size_t>(K * N));
  for (auto& x : p.a) x = u(rng);
  for (auto& x : p.b) x = u(rng);
  p.naive.assign(static_cast<size_t>(M * N), 0.0f);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        p.naive[static_cast<size_t>(m * N + n)] +=
            p.a[static_cast<size_t>(m * K + k)] * p.b[static_cast<size_t>(k * N + n)];
  const dnnl::memory::desc a_md({M, K}, dt::f32, tag::ab), w_md({K, N}, dt::f32, tag::any),
      y_md({M, N}, dt::f32, tag::ab);
  p.pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, w_md, y_md), cpu_engine());
  p.prim = dnnl::matmul(p.pd);
  return p;
}

std::vector<float> run(const Problem& p, const dnnl::memory& weights) {
  std::vector<float> y(static_cast<size_t>(p.M * p.N));
  dnnl::stream& s = thread_stream();
  p.prim.execute(s, {{DNNL_ARG_SRC, wrap(p.pd.src_desc(), p.a.data())},
                     {DNNL_ARG_WEIGHTS, weights},
                     {DNNL_ARG_DST, wrap(p.pd.dst_desc(), y.data())}});
  s.wait();
  return y;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, int64_t K) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * static_cast<double>(K)) << "element " << i;
}

const dnnl::memory::desc plain_weights(int64_t K, int64_t N) { return dnnl::memory::desc({K, N}, dt::f32, tag::ab); }

TEST(OneDnnWeightPlacement, EveryOffsetGivesTheSameProductBitForBit) {
  // Bit-for-bit: a run-to-run difference in the measured choice must not change any output.
  for (const auto& [M, K, N] : {std::tuple{32, 96, 80}, std::tuple{128, 768, 384}}) {
    const Problem p = make_problem(M, K, N);
    std::vector<float> first;
    for (size_t offset : {0, 16, 48}) {
      PlacedWeights w = place_weights(plain_weights(p.K, p.N), p.b.data(), p.pd.weights_desc(), offset);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(w.memory.get_data_handle()) % 64, offset);
      const std::vector<float> y = run(p, w.memory);
      expect_close(y, p.naive, p.K);
      if (first.empty()) first = y;
      EXPECT_EQ(std::memcmp(first.data(), y.data(), y.size() * sizeof(float)), 0) << "offset " << offset;
    }
  }
}

TEST(OneDnnWeightPlacement, MeasuredChoiceIsCorrectAndMadeOncePerShape) {
  const Problem p = make_problem(128, 512, 1024);  // 67 M multiply-adds: large enough to be measured
  const std::string key = "test|128x512x1024";
  PlacedWeights first = place_weights_measured(p.prim, p.pd, plain_weights(p.K, p.N), p.b.data(), key);
  expect_close(run(p, first.memory), p.naive, p.K);
  PlacedWeights again = place_weights_measured(p.prim, p.pd, plain_weights(p.K, p.N), p.b.data(), key);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first.memory.get_data_handle()) % 64,
            reinterpret_cast<uintptr_t>(again.memory.get_data_handle()) % 64);
  expect_close(run(p, again.memory), p.naive, p.K);
}

}  // namespace
}  // namespace openge::onednn
