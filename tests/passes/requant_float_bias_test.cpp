// RequantFusionPass on QDQ convolutions whose bias is a float32 constant (as many quantizers
// leave it): the bias is quantized to int32 at scale x_scale * w_scale[m], rounded to nearest
// even, as ONNX Runtime's quantizer does, so the convolutions run as int8 QLinearConv on the AI
// Core engine; the result stays within the QDQ graph's own quantization error of the float32
// model, and within one output step of the unfused QDQ graph. And residual convolutions (their
// float output read by an Add with a dequantized residual, then Relu and QuantizeLinear) become
// QLinearConvAdd, run by oneDNN's int8 convolution with a sum post-op.
#include <cmath>

#include "compiler/pipeline.h"
#include "pass_test_util.h"
#include "../kernels/kernel_test_util.h"

namespace openge::testing {
namespace {

// Symmetric int8 weights with one scale per output channel.
struct QuantizedWeights {
  Tensor q, scale, dequantized;
};
QuantizedWeights quantize_weights(const Tensor& w) {
  const int64_t m = w.dim(0), per = w.numel() / m;
  QuantizedWeights r{Tensor(DType::kInt8, w.shape()), Tensor(DType::kFloat32, {m}), Tensor(DType::kFloat32, w.shape())};
  for (int64_t c = 0; c < m; ++c) {
    float top = 0;
    for (int64_t i = 0; i < per; ++i) top = std::max(top, std::fabs(w.data<float>()[c * per + i]));
    const float s = top / 127.0f;
    r.scale.data<float>()[c] = s;
    for (int64_t i = 0; i < per; ++i) {
      const auto q = static_cast<int8_t>(std::nearbyint(w.data<float>()[c * per + i] / s));
      r.q.data<int8_t>()[c * per + i] = q;
      r.dequantized.data<float>()[c * per + i] = static_cast<float>(q) * s;
    }
  }
  return r;
}

Attributes pads1() { return ints_attr("pads", {1, 1, 1, 1}); }

const Tensor& input() {
  static const Tensor x = random_tensor({1, 8, 8, 8}, 11);
  return x;
}

struct Model {
  QuantizedWeights w1 = quantize_weights(random_tensor({16, 8, 3, 3}, 12));
  QuantizedWeights w2 = quantize_weights(random_tensor({16, 16, 1, 1}, 13));
  Tensor b1 = random_tensor({16}, 14), b2 = random_tensor({16}, 15);
  float ys1 = 0, ys2_min = 0, ys2 = 0;
};

// x -> Conv(w1, b1) -> Relu -> Conv(w2, b2), in float32 with the dequantized weights.
Graph float_graph(const Model& m) {
  GraphBuilder b;
  const int x = b.input("x", {1, 8, 8, 8});
  int y = b.node("Relu", {b.node("Conv", {x, b.constant("w1", m.w1.dequantized), b.constant("b1", m.b1)}, pads1())});
  b.g.outputs = {b.node("Conv", {y, b.constant("w2", m.w2.dequantized), b.constant("b2", m.b2)})};
  return std::move(b.g);
}

// The same as a QDQ model: activations uint8 (x: scale 2^-7, zero point 128), weights int8 per channel,
// biases float32 constants.
Graph qdq_graph(const Model& m, const Tensor& b1, const Tensor& b2) {
  GraphBuilder b;
  const int x = b.input("x", {1, 8, 8, 8});
  auto qdq = [&](int v, double scale, double zero_point, const std::string& name) {
    const int s = b.constant(name + "_s", scalar_of(DType::kFloat32, scale));
    const int z = b.constant(name + "_z", scalar_of(DType::kUInt8, zero_point));
    return b.node("DequantizeLinear", {b.node("QuantizeLinear", {v, s, z}), s, z});
  };
  auto weights = [&](const QuantizedWeights& w, const std::string& name) {
    return b.node("DequantizeLinear", {b.constant(name, w.q), b.constant(name + "_s", w.scale)}, int_attr("axis", 0));
  };
  int y = qdq(x, 1.0 / 128, 128, "x");
  y = b.node("Relu", {b.node("Conv", {y, weights(m.w1, "w1"), b.constant("b1", b1)}, pads1())});
  y = qdq(y, m.ys1, 0, "y1");
  y = b.node("Conv", {y, weights(m.w2, "w2"), b.constant("b2", b2)});
  b.g.outputs = {qdq(y, m.ys2, m.ys2_min, "y2")};
  return std::move(b.g);
}

// Output scales from the float model's ranges on the test input (calibration on one input).
Model calibrated() {
  Model m;
  Graph g = float_graph(m);
  const auto out = eval_graph(g, {input()}, /*annotate=*/true);
  // The Relu output: the first node's reader; read it back by running the first half alone.
  GraphBuilder half;
  const int x = half.input("x", {1, 8, 8, 8});
  half.g.outputs = {half.node(
      "Relu", {half.node("Conv", {x, half.constant("w1", m.w1.dequantized), half.constant("b1", m.b1)}, pads1())})};
  const Tensor relu = eval_graph(half.g, {input()}, true)[0];
  float top = 0, lo = 0, hi = 0;
  for (int64_t i = 0; i < relu.numel(); ++i) top = std::max(top, relu.data<float>()[i]);
  for (int64_t i = 0; i < out[0].numel(); ++i) {
    lo = std::min(lo, out[0].data<float>()[i]);
    hi = std::max(hi, out[0].data<float>()[i]);
  }
  m.ys1 = top / 255.0f;
  m.ys2 = (hi - lo) / 255.0f;
  m.ys2_min = std::nearbyint(-lo / m.ys2);
  return m;
}

std::vector<Tensor> run(Graph g, bool passes, bool aicore, std::vector<std::string>* compiled_ops = nullptr,
                        int* aicore_qlinear = nullptr) {
  CompileOptions co;
  co.num_threads = 1;
  co.run_passes = passes;
  co.use_aicore = aicore;
  auto exe = compiler::compile(std::move(g), {{1, 8, 8, 8}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  for (const CompiledNode& n : (*exe)->nodes()) {
    if (compiled_ops) compiled_ops->push_back(n.node.op_type);
    if (aicore_qlinear && n.node.op_type == "QLinearConv" && n.engine == Engine::kAiCore) ++*aicore_qlinear;
  }
  auto out = (*exe)->run({input()});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(*out) : std::vector<Tensor>{};
}

int count(const std::vector<std::string>& ops, const std::string& op) {
  return static_cast<int>(std::count(ops.begin(), ops.end(), op));
}

TEST(RequantFloatBias, ConvolutionsWithFloatBiasesRunInInt8) {
  const Model m = calibrated();
  std::vector<std::string> ops;
  int aicore_qlinear = 0;
  const auto fused = run(qdq_graph(m, m.b1, m.b2), true, true, &ops, &aicore_qlinear);
  EXPECT_EQ(count(ops, "QLinearConv"), 2);
  EXPECT_EQ(aicore_qlinear, 2) << "both convolutions on the int8 oneDNN kernels";
  EXPECT_EQ(count(ops, "Conv") + count(ops, "FusedConv"), 0);
  ASSERT_EQ(fused.size(), 1u);

  // Within two output steps of the unfused QDQ graph on the reference engine: the integer sum and
  // the bias rounding move each quantized value across a rounding boundary at most once, in the
  // second convolution's output and in the first's, which the second reads ...
  const auto unfused = run(qdq_graph(m, m.b1, m.b2), false, false);
  ASSERT_EQ(unfused.size(), 1u);
  EXPECT_LE(max_abs_diff(fused[0], unfused[0]), 2.001 * m.ys2);
  // ... and within the QDQ model's quantization error of the float32 model: a few output steps.
  const auto reference = run(float_graph(m), true, true);
  ASSERT_EQ(reference.size(), 1u);
  EXPECT_LE(max_abs_diff(fused[0], reference[0]), 4.0 * m.ys2);
  EXPECT_LE(max_abs_diff(unfused[0], reference[0]), 4.0 * m.ys2);
}

TEST(RequantFloatBias, ABiasBeyondInt32StaysFloat) {
  const Model m = calibrated();
  Tensor huge = m.b1;
  huge.data<float>()[3] = 1e30f;
  Graph g = qdq_graph(m, huge, m.b2);
  eval_graph(g, {input()}, /*annotate=*/true);
  const PassResult r = run_pass(g, "RequantFusionPass");
  EXPECT_EQ(r.matched, 2);
  EXPECT_EQ(r.applied, 1) << "the second convolution's bias fits";
  EXPECT_EQ(count_ops(g, "Conv"), 1);
  EXPECT_EQ(count_ops(g, "QLinearConv"), 1);
}

// The quantized bias is round(b / (x_scale * w_scale[m])), ties to even: with power-of-two scales
// (x 2^-7, weights 2^-7) the product 2^-14 is exact and b = +-(c + 0.5) * 2^-14 lies exactly
// between two integers, so the rounding rule alone decides: c when c is even, c + 1 when odd.
TEST(RequantFloatBias, BiasIsRoundedToNearestEvenAtTheProductScale) {
  Model m = calibrated();
  for (int64_t c = 0; c < 16; ++c) m.w1.scale.data<float>()[c] = 1.0f / 128;
  Tensor ties(DType::kFloat32, {16});
  for (int64_t c = 0; c < 16; ++c)
    ties.data<float>()[c] = (c % 4 == 3 ? -1.0f : 1.0f) * (static_cast<float>(c) + 0.5f) / 16384.0f;
  Graph g = qdq_graph(m, ties, m.b2);
  eval_graph(g, {input()}, true);
  ASSERT_EQ(run_pass(g, "RequantFusionPass").applied, 2);
  const Node* first = nullptr;  // the convolution over 8 input channels
  for (const Node& n : g.nodes)
    if (n.op_type == "QLinearConv" && (*g.values[static_cast<size_t>(n.inputs[3])].shape)[1] == 8) first = &n;
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->inputs.size(), 9u);
  const Value& bias = g.values[static_cast<size_t>(first->inputs[8])];
  ASSERT_TRUE(bias.constant.has_value());
  ASSERT_EQ(bias.constant->dtype(), DType::kInt32);
  for (int64_t c = 0; c < 16; ++c) {
    const int32_t magnitude = static_cast<int32_t>(c % 2 == 0 ? c : c + 1);
    EXPECT_EQ(bias.constant->data<int32_t>()[c], c % 4 == 3 ? -magnitude : magnitude) << c;
  }
}

}  // namespace
}  // namespace openge::testing

namespace openge::testing {
namespace {

// A residual block as ONNX Runtime's quantizer leaves it: the second convolution's float output
// goes straight into the Add with the block's dequantized input, then Relu and QuantizeLinear.
struct ResidualModel {
  QuantizedWeights w1 = quantize_weights(random_tensor({8, 8, 3, 3}, 21));
  QuantizedWeights w2 = quantize_weights(random_tensor({8, 8, 3, 3}, 22));
  Tensor b1 = random_tensor({8}, 23), b2 = random_tensor({8}, 24);
  float ys1 = 0, ys2 = 0;
};

// `scales`: false builds the float model (dequantized weights, no Q/DQ) to calibrate on.
Graph residual_graph(const ResidualModel& m, bool quantized) {
  GraphBuilder b;
  const int x = b.input("x", {1, 8, 8, 8});
  auto q = [&](int v, double scale, double zero_point, const std::string& name) {
    return b.node("QuantizeLinear", {v, b.constant(name + "_s", scalar_of(DType::kFloat32, scale)),
                                     b.constant(name + "_z", scalar_of(DType::kUInt8, zero_point))});
  };
  auto dq = [&](int v, double scale, double zero_point, const std::string& name) {
    return b.node("DequantizeLinear", {v, b.constant(name + "_ds", scalar_of(DType::kFloat32, scale)),
                                       b.constant(name + "_dz", scalar_of(DType::kUInt8, zero_point))});
  };
  auto weights = [&](const QuantizedWeights& w, const std::string& name) {
    if (!quantized) return b.constant(name, w.dequantized);
    return b.node("DequantizeLinear", {b.constant(name, w.q), b.constant(name + "_s", w.scale)}, int_attr("axis", 0));
  };
  const int x_q = quantized ? q(x, 1.0 / 128, 128, "x") : -1;
  const int xf = quantized ? dq(x_q, 1.0 / 128, 128, "x") : x;
  int h = b.node("Relu", {b.node("Conv", {xf, weights(m.w1, "w1"), b.constant("b1", m.b1)}, pads1())});
  if (quantized) h = dq(q(h, m.ys1, 0, "h"), m.ys1, 0, "h");
  int y = b.node("Add", {b.node("Conv", {h, weights(m.w2, "w2"), b.constant("b2", m.b2)}, pads1()), xf});
  y = b.node("Relu", {y});
  if (quantized) y = dq(q(y, m.ys2, 0, "y"), m.ys2, 0, "y");
  b.g.outputs = {y, h};
  return std::move(b.g);
}

ResidualModel residual_calibrated() {
  ResidualModel m;
  Graph g = residual_graph(m, false);
  const auto out = eval_graph(g, {input()}, /*annotate=*/true);
  float top_y = 0, top_h = 0;
  for (int64_t i = 0; i < out[0].numel(); ++i) top_y = std::max(top_y, out[0].data<float>()[i]);
  for (int64_t i = 0; i < out[1].numel(); ++i) top_h = std::max(top_h, out[1].data<float>()[i]);
  m.ys2 = top_y / 255.0f;
  m.ys1 = top_h / 255.0f;
  return m;
}

TEST(RequantResidual, ConvolutionBeforeAResidualAddRunsInInt8WithTheAddAndRelu) {
  const ResidualModel m = residual_calibrated();
  std::vector<std::string> ops;
  CompileOptions co;
  co.num_threads = 1;
  auto exe = compiler::compile(residual_graph(m, true), {{1, 8, 8, 8}}, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int aicore_int8 = 0;
  for (const CompiledNode& n : (*exe)->nodes()) {
    ops.push_back(n.node.op_type);
    if ((n.node.op_type == "QLinearConv" || n.node.op_type == "QLinearConvAdd") && n.engine == Engine::kAiCore)
      ++aicore_int8;
  }
  EXPECT_EQ(count(ops, "QLinearConv"), 1);
  EXPECT_EQ(count(ops, "QLinearConvAdd"), 1);
  EXPECT_EQ(count(ops, "Conv") + count(ops, "FusedConv") + count(ops, "Add") + count(ops, "Relu"), 0);
  EXPECT_EQ(aicore_int8, 2) << "both on oneDNN's int8 kernels, the residual in its sum post-op";
  auto fused = (*exe)->run({input()});
  ASSERT_TRUE(fused.ok()) << fused.status().message();

  // The same fused graph on the reference engine: the integer definition, within one step.
  CompileOptions ref;
  ref.num_threads = 1;
  ref.use_aicore = false;
  auto reference = compiler::compile(residual_graph(m, true), {{1, 8, 8, 8}}, ref);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  auto expected = (*reference)->run({input()});
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_LE(max_abs_diff((*fused)[0], (*expected)[0]), 1.001 * m.ys2);

  // The unfused QDQ graph: within two output steps (one rounding here, one in h, which it reads).
  const auto unfused = run(residual_graph(m, true), false, false);
  ASSERT_EQ(unfused.size(), 2u);
  EXPECT_LE(max_abs_diff((*fused)[0], unfused[0]), 2.001 * m.ys2);
  EXPECT_GT(max_abs_diff(unfused[0], Tensor(DType::kFloat32, unfused[0].shape())), 10 * m.ys2) << "not all zeros";
}

}  // namespace
}  // namespace openge::testing
