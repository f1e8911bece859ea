// RequantFusionPass on a QDQ transformer block in the form bench/qdq_quantize_transformer.py
// writes (and ONNX Runtime's QDQ quantizer writes for MatMul): each weight MatMul reads
// DequantizeLinear of a uint8 activation (one DequantizeLinear shared by the Q, K and V
// projections) and DequantizeLinear of int8 weights [K, N] with one scale per output column, on
// 3-D activations [1, T, C], and its output goes through QuantizeLinear -> DequantizeLinear
// before the float bias Add. The six weight MatMuls (Q, K, V, output projection, two FFN layers)
// must become QLinearMatMul on the int8 oneDNN kernel; the two attention MatMuls (both operands
// activations) stay float; the block's output stays within the QDQ graph's quantization error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "compiler/pipeline.h"
#include "pass_test_util.h"
#include "../kernels/kernel_test_util.h"

namespace openge::testing {
namespace {

constexpr int64_t kTokens = 16, kHidden = 32, kFfn = 64;

// A weight [K, N] with symmetric int8 values, one scale per output column, and its dequantized
// float copy (the float model uses it, so the comparison measures activation quantization only).
struct Weight {
  Tensor q, scale, dequantized, bias;
};
Weight make_weight(int64_t k, int64_t n, uint32_t seed) {
  Tensor w = random_tensor({k, n}, seed);
  Weight r{Tensor(DType::kInt8, {k, n}), Tensor(DType::kFloat32, {n}), Tensor(DType::kFloat32, {k, n}),
           random_tensor({n}, seed + 100)};
  for (int64_t c = 0; c < n; ++c) {
    float top = 0;
    for (int64_t i = 0; i < k; ++i) top = std::max(top, std::fabs(w.data<float>()[i * n + c]));
    const float s = top / 127.0f / std::sqrt(static_cast<float>(k));  // weights ~ U(-1, 1) / sqrt(K)
    r.scale.data<float>()[c] = s;
    for (int64_t i = 0; i < k; ++i) {
      const auto q = static_cast<int8_t>(std::nearbyint(w.data<float>()[i * n + c] * 127.0f / top));
      r.q.data<int8_t>()[i * n + c] = q;
      r.dequantized.data<float>()[i * n + c] = static_cast<float>(q) * s;
    }
  }
  return r;
}

struct Block {
  Weight wq = make_weight(kHidden, kHidden, 1), wk = make_weight(kHidden, kHidden, 2),
         wv = make_weight(kHidden, kHidden, 3), wo = make_weight(kHidden, kHidden, 4),
         w1 = make_weight(kHidden, kFfn, 5), w2 = make_weight(kFfn, kHidden, 6);
  // Per-tensor uint8 (scale, zero point) of each quantized activation, in the order `linear`
  // meets them; filled by calibrate().
  std::vector<std::pair<float, int>> ranges;
};

const Tensor& input() {
  static const Tensor x = random_tensor({1, kTokens, kHidden}, 7);
  return x;
}

// A linear layer: x -> MatMul(W) -> [QDQ] -> Add(bias). `qdq(v)` returns v, or its
// QuantizeLinear -> DequantizeLinear; the input's QDQ is made once per value (shared).
using Linear = std::function<int(GraphBuilder&, int, const Weight&, const std::string&)>;

// The block, post-LN: single-head attention then a ReLU FFN, each with a residual Add and
// LayerNormalization.
int block(GraphBuilder& b, int x, const Linear& linear, const Block& m) {
  const Tensor gamma = random_tensor({kHidden}, 8), beta = random_tensor({kHidden}, 9);
  const int q = linear(b, x, m.wq, "q"), k = linear(b, x, m.wk, "k"), v = linear(b, x, m.wv, "v");
  const int kt = b.node("Transpose", {k}, ints_attr("perm", {0, 2, 1}));
  const int scores = b.node("Mul", {b.node("MatMul", {q, kt}), b.constant("inv_sqrt_c", scalar(0.1767767f))});
  const int attention = b.node("MatMul", {b.node("Softmax", {scores}, int_attr("axis", -1)), v});
  auto norm = [&](int a, const std::string& name) {
    return b.node("LayerNormalization", {a, b.constant(name + "_g", gamma), b.constant(name + "_b", beta)},
                  int_attr("axis", -1));
  };
  const int h1 = norm(b.node("Add", {x, linear(b, attention, m.wo, "o")}), "ln1");
  const int f = linear(b, b.node("Relu", {linear(b, h1, m.w1, "ffn1")}), m.w2, "ffn2");
  return norm(b.node("Add", {h1, f}), "ln2");
}

// The float model; `probes` collects every weight MatMul's input and output (to calibrate).
Graph float_graph(const Block& m, std::vector<int>* probes = nullptr) {
  GraphBuilder b(17);
  const int x = b.input("x", {1, kTokens, kHidden});
  Linear linear = [&](GraphBuilder& g, int in, const Weight& w, const std::string& name) {
    const int y = g.node("MatMul", {in, g.constant(name + "_w", w.dequantized)});
    if (probes) probes->insert(probes->end(), {in, y});
    return g.node("Add", {y, g.constant(name + "_b", w.bias)});
  };
  b.g.outputs = {block(b, x, linear, m)};
  return std::move(b.g);
}

std::pair<float, int> uint8_params(const Tensor& t) {
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    lo = std::min(lo, t.data<float>()[i]);
    hi = std::max(hi, t.data<float>()[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  return {scale, static_cast<int>(std::nearbyint(-lo / scale))};
}

// Ranges from the float model on the test input (calibration on one input).
Block calibrated() {
  Block m;
  std::vector<int> probes;
  Graph g = float_graph(m, &probes);
  g.outputs = probes;
  for (const Tensor& t : eval_graph(g, {input()}, true)) m.ranges.push_back(uint8_params(t));
  return m;
}

Graph qdq_graph(const Block& m) {
  GraphBuilder b(17);
  const int x = b.input("x", {1, kTokens, kHidden});
  size_t next = 0;
  std::map<int, int> dequantized;  // value -> its shared DequantizeLinear
  auto qdq = [&](GraphBuilder& g, int v, const std::string& name) {
    const auto [scale, zero_point] = m.ranges.at(next++);
    if (const auto it = dequantized.find(v); it != dequantized.end()) return it->second;
    const int s = g.constant(name + "_s", scalar_of(DType::kFloat32, scale));
    const int z = g.constant(name + "_z", scalar_of(DType::kUInt8, zero_point));
    return dequantized[v] = g.node("DequantizeLinear", {g.node("QuantizeLinear", {v, s, z}), s, z});
  };
  Linear linear = [&](GraphBuilder& g, int in, const Weight& w, const std::string& name) {
    const int xq = qdq(g, in, name + "_x");
    const int wdq = g.node("DequantizeLinear", {g.constant(name + "_wq", w.q), g.constant(name + "_ws", w.scale)},
                           int_attr("axis", 1));
    const int y = qdq(g, g.node("MatMul", {xq, wdq}), name + "_y");
    return g.node("Add", {y, g.constant(name + "_b", w.bias)});
  };
  b.g.outputs = {block(b, x, linear, m)};
  return std::move(b.g);
}

std::vector<Tensor> run(Graph g, bool passes, bool aicore, std::vector<std::string>* ops = nullptr,
                        int* aicore_qlinear = nullptr) {
  CompileOptions co;
  co.num_threads = 1;
  co.run_passes = passes;
  co.use_aicore = aicore;
  auto exe = compiler::compile(std::move(g), {{1, kTokens, kHidden}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  for (const CompiledNode& n : (*exe)->nodes()) {
    if (ops) ops->push_back(n.node.op_type);
    if (aicore_qlinear && n.node.op_type == "QLinearMatMul" && n.engine == Engine::kAiCore) ++*aicore_qlinear;
  }
  auto out = (*exe)->run({input()});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(*out) : std::vector<Tensor>{};
}

double cosine(const Tensor& a, const Tensor& b) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    ab += double{a.data<float>()[i]} * b.data<float>()[i];
    aa += double{a.data<float>()[i]} * a.data<float>()[i];
    bb += double{b.data<float>()[i]} * b.data<float>()[i];
  }
  return ab / std::sqrt(aa * bb);
}

TEST(RequantTransformerBlock, WeightMatMulsRunInInt8AndAgreeWithTheFloatBlock) {
  const Block m = calibrated();
  Graph qdq = qdq_graph(m);
  eval_graph(qdq, {input()}, /*annotate=*/true);
  const PassResult r = run_pass(qdq, "RequantFusionPass");
  EXPECT_EQ(r.applied, 6) << "Q, K, V, output projection and both FFN layers";
  EXPECT_EQ(count_ops(qdq, "QLinearMatMul"), 6);
  EXPECT_EQ(count_ops(qdq, "MatMul"), 2) << "the attention MatMuls read two activations and stay float";

  std::vector<std::string> ops;
  int aicore_qlinear = 0;
  const auto fused = run(qdq_graph(m), true, true, &ops, &aicore_qlinear);
  EXPECT_EQ(aicore_qlinear, 6) << "every weight MatMul on the int8 oneDNN kernel";
  ASSERT_EQ(fused.size(), 1u);
  std::vector<std::string> unfused_ops;
  const auto unfused = run(qdq_graph(m), false, false, &unfused_ops);
  EXPECT_EQ(std::count(unfused_ops.begin(), unfused_ops.end(), "QLinearMatMul"), 0) << "the QDQ graph as it is";
  const auto reference = run(float_graph(m), true, true);
  ASSERT_EQ(unfused.size(), 1u);
  ASSERT_EQ(reference.size(), 1u);
  // Tolerance: the block's output is LayerNorm-ed (unit scale); uint8 activations calibrated
  // on this input cost well under 1 % of it (measured: cosine 0.999999, max abs 0.007): cosine
  // >= 0.9999 and max abs <= 0.03 against the float block, for the fused graph as for the
  // unfused QDQ graph on the reference engine. Fused and unfused differ only where an integer
  // sum rounds across a .5 boundary (one output step of a MatMul, then amplified by LayerNorm):
  // max abs 0.03.
  EXPECT_GE(cosine(fused[0], reference[0]), 0.9999);
  EXPECT_GE(cosine(unfused[0], reference[0]), 0.9999);
  EXPECT_LE(max_abs_diff(fused[0], reference[0]), 0.03);
  EXPECT_LE(max_abs_diff(unfused[0], reference[0]), 0.03);
  EXPECT_LE(max_abs_diff(fused[0], unfused[0]), 0.03);
  std::printf("cosine fused/float %.6f unfused/float %.6f; max abs fused-float %.4f fused-unfused %.4f\n",
              cosine(fused[0], reference[0]), cosine(unfused[0], reference[0]), max_abs_diff(fused[0], reference[0]),
              max_abs_diff(fused[0], unfused[0]));
}

}  // namespace
}  // namespace openge::testing
