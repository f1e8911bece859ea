// Int8 convolutions in one channels-last region: a small residual CNN quantized by
// bench/qdq_quantize.py (tests/passes/qdq_fixture/make_qdq_resnet_fixture.py), in both of its
// forms (every convolution with its own QuantizeLinear; residual convolutions feeding the Add in
// float), compiled with every pass. RequantFusionPass turns its 7 convolutions into QLinearConv /
// QLinearConvAdd and ChannelsLastLayoutPass puts them, the MaxPool and the Q/DQ and Add between
// them into one NHWC region: one Transpose into it (the quantized RGB input) and one out of it
// (the graph's output), where each int8 convolution used to reorder its input and output, and a
// region of its own formed around the MaxPool. The int8 oneDNN kernels on NHWC equal the
// reference kernels (which compute in NCHW) bit for bit, and the unfused QDQ graph within a
// few quantization steps. And RequantFusionPass's DQ -> Q fold on a graph of its own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compiler/pipeline.h"
#include "frontend/onnx_loader.h"
#include "io/npy.h"
#include "options/options_test_util.h"
#include "../kernels/kernel_test_util.h"
#include "pass_test_util.h"
#include "compiler/compile_config_test_util.h"
#include "passes/stored_format_test_util.h"

namespace openge::options::test {
namespace {

const std::string kFixtureDir = std::string(OPENGE_SOURCE_DIR) + "/tests/passes/qdq_fixture/";

struct Compiled {
  std::unique_ptr<Executable> exe;
  nlohmann::json fusion;  // this compile's graph entry of fusion_result.json
};

Compiled compile_fixture(const std::string& model, bool passes, bool aicore) {
  TempDir d;
  BuildReport r = build({}, {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, {}, /*check_files=*/true, d.path());
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  if (!r.options) return {};
  auto g = load_onnx(kFixtureDir + model);
  EXPECT_TRUE(g.ok()) << g.status().message();
  if (!g.ok()) return {};
  CompileOptions co;
  co.num_threads = 1;
  co.run_passes = passes;
  co.use_aicore = aicore;
  co.config = openge::test::compile_config(*r.options);
  auto exe = compiler::compile(std::move(*g), {Shape{1, 3, 16, 16}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  Compiled c{std::move(*exe), {}};
  std::ifstream json(d.path() + "/work_path/FE/" + std::to_string(::getpid()) + "/fusion_result.json");
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (passes && j.is_object() && !j.empty()) c.fusion = j.begin().value();
  return c;
}

Tensor run(const Compiled& c) {
  auto x = read_npy(kFixtureDir + "qdq_resnet.x.npy");
  EXPECT_TRUE(x.ok()) << x.status().message();
  if (!x.ok() || !c.exe) return Tensor();
  auto out = c.exe->run({*x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() && out->size() == 1 ? std::move((*out)[0]) : Tensor();
}

int count_op(const Executable& exe, const std::string& op) {
  int n = 0;
  for (const Node& node : exe.graph().nodes) n += node.op_type == op;
  return n;
}

// The largest difference of two uint8 tensors of one shape, in quantization steps.
int max_step_difference(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.dtype(), DType::kUInt8);
  EXPECT_EQ(a.shape(), b.shape());
  if (a.dtype() != DType::kUInt8 || a.dtype() != b.dtype() || a.shape() != b.shape()) return 1 << 20;
  int worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, std::abs(static_cast<int>(a.data<uint8_t>()[i]) - b.data<uint8_t>()[i]));
  return worst;
}

// `float_adds`: residual Adds left in float, between two DequantizeLinear and a QuantizeLinear.
void expect_one_int8_region(const std::string& model, int qlinear_conv, int qlinear_conv_add, int float_adds) {
  const Compiled fused = compile_fixture(model, /*passes=*/true, /*aicore=*/true);
  ASSERT_TRUE(fused.exe);
  EXPECT_EQ(count_op(*fused.exe, "QLinearConv"), qlinear_conv);
  EXPECT_EQ(count_op(*fused.exe, "QLinearConvAdd"), qlinear_conv_add);
  EXPECT_EQ(count_op(*fused.exe, "Conv") + count_op(*fused.exe, "FusedConv"), 0) << "every convolution in int8";
  int channels_last = 0, on_int8_kernels = 0;
  for (const CompiledNode& n : fused.exe->nodes()) {
    if (n.node.op_type != "QLinearConv" && n.node.op_type != "QLinearConvAdd") continue;
    channels_last += n.node.attrs.get_int("channels_last", 0) != 0;
    on_int8_kernels += n.engine == Engine::kAiCore;
  }
  EXPECT_EQ(channels_last, qlinear_conv + qlinear_conv_add) << "each int8 convolution reads and writes NHWC";
  EXPECT_EQ(on_int8_kernels, qlinear_conv + qlinear_conv_add);
  // The region's only edges: the quantized input into it, its last convolution's output out of it.
  EXPECT_EQ(count_op(*fused.exe, "Transpose"), 2);
  // The MaxPool inside the region, on the quantized tensor (its DequantizeLinear and
  // QuantizeLinear folded), and no Q/DQ left between the convolutions.
  EXPECT_EQ(count_ops_in_format(fused.exe->graph(), "MaxPool", ActivationFormat::kNhwc), 1);
  for (const Node& n : fused.exe->graph().nodes)
    if (n.op_type == "MaxPool" && node_data_format(n) == ActivationFormat::kNhwc) {
      EXPECT_EQ(fused.exe->graph().values[static_cast<size_t>(n.inputs[0])].dtype, DType::kUInt8);
    }
  // Float residual Adds (with their Relu one FusedElementwise) and the Q/DQ around them are the
  // only float ops left.
  std::string ops;
  for (const Node& n : fused.exe->graph().nodes) ops += n.op_type + " ";
  EXPECT_EQ(count_op(*fused.exe, "Add") + count_op(*fused.exe, "FusedElementwise"), float_adds) << ops;
  EXPECT_EQ(count_op(*fused.exe, "QuantizeLinear"), 1 + float_adds) << "the RGB input's, and the Adds': " << ops;
  EXPECT_LE(count_op(*fused.exe, "DequantizeLinear"), 2 * float_adds) << "the Adds' operands: " << ops;

  // The convolutions and the MaxPool's Q/DQ pair.
  const nlohmann::json& requant = fused.fusion["graph_fusion"]["RequantFusionPass"];
  EXPECT_EQ(requant["effect_times"], std::to_string(qlinear_conv + qlinear_conv_add + 1)) << fused.fusion.dump();

  // The same fused graph on the reference kernels (NCHW arithmetic): bit for bit.
  const Compiled reference = compile_fixture(model, /*passes=*/true, /*aicore=*/false);
  const Tensor y = run(fused), y_reference = run(reference);
  EXPECT_EQ(max_step_difference(y, y_reference), 0);
  // The unfused QDQ graph: each fused convolution sums integers where it summed floats, which
  // moves a value across a rounding boundary at most once per convolution on its path.
  const Tensor y_unfused = run(compile_fixture(model, /*passes=*/false, /*aicore=*/false));
  EXPECT_LE(max_step_difference(y, y_unfused), 4);
  int nonzero = 0;
  for (int64_t i = 0; i < y.numel(); ++i) nonzero += y.data<uint8_t>()[i] != 0;
  EXPECT_GT(nonzero, y.numel() / 8) << "not a trivially zero output";
}

TEST(Int8ChannelsLastRegion, EveryConvolutionWithItsOwnQuantizeLinear) {
  expect_one_int8_region("qdq_resnet_fb.onnx", 7, 0, 2);
}

TEST(Int8ChannelsLastRegion, ResidualConvolutionsFeedingTheAddInFloat) {
  expect_one_int8_region("qdq_resnet_ort.onnx", 5, 2, 0);
}

}  // namespace
}  // namespace openge::options::test

namespace openge::testing {
namespace {

// x -> Q(s, z) -> DQ(s, z) -> Q(s2, z2) -> DQ(s2, z2) -> Relu: the middle DQ -> Q pair is the
// identity on the quantized tensor when (s2, z2) == (s, z), and a requantization otherwise.
Graph requantize_graph(double s2, double z2) {
  GraphBuilder b;
  const int x = b.input("x", {1, 4, 5, 5});
  const int s = b.constant("s", scalar_of(DType::kFloat32, 0.05));
  const int z = b.constant("z", scalar_of(DType::kUInt8, 100));
  const int s_b = b.constant("s2", scalar_of(DType::kFloat32, s2));
  const int z_b = b.constant("z2", scalar_of(DType::kUInt8, z2));
  const int q = b.node("DequantizeLinear", {b.node("QuantizeLinear", {x, s, z}), s, z});
  b.g.outputs = {b.node("Relu", {b.node("DequantizeLinear", {b.node("QuantizeLinear", {q, s_b, z_b}), s_b, z_b})})};
  return std::move(b.g);
}

TEST(RequantFusionPassFolds, DequantizeQuantizePairOfOneQuantizationIsRemovedExactly) {
  const Tensor x = random_tensor({1, 4, 5, 5}, 41);
  Graph g = requantize_graph(0.05, 100);
  const auto before = eval_graph(g, {x}, /*annotate=*/true);
  const PassResult r = run_pass(g, "RequantFusionPass");
  EXPECT_EQ(r.applied, 1);
  EXPECT_EQ(count_ops(g, "QuantizeLinear"), 1);
  EXPECT_EQ(count_ops(g, "DequantizeLinear"), 1);
  const auto after = eval_graph(g, {x});
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(max_abs_diff(after[0], before[0]), 0.0);

  Graph other = requantize_graph(0.05, 101);  // another zero point: a real requantization, kept
  eval_graph(other, {x}, true);
  EXPECT_EQ(run_pass(other, "RequantFusionPass").applied, 0);
  EXPECT_EQ(count_ops(other, "QuantizeLinear"), 2);
}

}  // namespace
}  // namespace openge::testing
