// RequantFusionPass: a QDQ model's DequantizeLinear -> Conv/MatMul/Gemm -> [Relu] ->
// QuantizeLinear groups become QLinearConv / QLinearMatMul, whose outputs equal the integer
// definition computed by NumPy (tests/passes/qdq_fixture/make_qdq_fixture.py), on the reference
// engine and on the int8 oneDNN kernels alike.
#include <cstring>

#include "io/npy.h"
#include "openge/session.h"
#include "options/option_builder.h"
#include "options/option_set.h"
#include "pass_test_util.h"

namespace openge::testing {
namespace {

const std::string kFixture = std::string(OPENGE_SOURCE_DIR) + "/tests/passes/qdq_fixture/qdq_small";

Tensor load(const std::string& suffix) {
  auto t = read_npy(kFixture + suffix);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : Tensor();
}

struct FixtureRun {
  std::vector<Tensor> outputs;  // y2q (int8), y (float)
  RunInfo info;
};

FixtureRun run_fixture(bool passes, bool aicore, const std::string& precision_mode = "") {
  SessionOptions opts;
  opts.num_threads = 1;
  if (!precision_mode.empty()) {
    options::OptionInputs in;
    in.flags.push_back({"precision_mode", precision_mode, "test"});
    auto set = options::build_option_set(in);
    EXPECT_TRUE(set.ok()) << set.status().message();
    if (set.ok()) opts.config = std::make_shared<const options::OptionSet>(std::move(set.value()));
  }
  opts.run_passes = passes;
  opts.use_aicore = aicore;
  auto session = Session::open(kFixture + ".onnx", opts);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  FixtureRun r;
  auto out = (*session)->run({load(".x.npy")}, &r.info);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (out.ok()) r.outputs = std::move(*out);
  return r;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(RequantFusionPass, QdqFixtureOnReferenceKernelsEqualsNumPyIntegerDefinition) {
  const FixtureRun r = run_fixture(/*passes=*/true, /*aicore=*/false);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_TRUE(same_bytes(r.outputs[0], load(".y2q.npy")));
  EXPECT_TRUE(same_bytes(r.outputs[1], load(".y.npy")));
}

TEST(RequantFusionPass, QdqFixtureOnInt8OneDnnKernelsEqualsNumPyBitForBit) {
  const FixtureRun r = run_fixture(/*passes=*/true, /*aicore=*/true);
  ASSERT_EQ(r.outputs.size(), 2u);
  // The four cube ops ran as int8 primitives (Q/DQ/Reshape stay on the AI CPU engine).
  EXPECT_EQ(r.info.aicore_nodes, 4);
  EXPECT_TRUE(same_bytes(r.outputs[0], load(".y2q.npy")));
  EXPECT_TRUE(same_bytes(r.outputs[1], load(".y.npy")));
}

// The precision modes lower float cube ops to float16; the quantized ones compute in integers, and
// their float scales are parameters that must stay float32 (a float16 scale changes the outputs).
TEST(RequantFusionPass, PrecisionModesLeaveQuantizedOpsExact) {
  for (const char* mode : {"allow_fp32_to_fp16", "allow_mix_precision", "allow_mix_precision_bf16"}) {
    const FixtureRun r = run_fixture(/*passes=*/true, /*aicore=*/true, mode);
    ASSERT_EQ(r.outputs.size(), 2u) << mode;
    EXPECT_EQ(r.info.aicore_nodes, 4) << mode;
    EXPECT_TRUE(same_bytes(r.outputs[0], load(".y2q.npy"))) << mode;
    EXPECT_TRUE(same_bytes(r.outputs[1], load(".y.npy"))) << mode;
  }
}

// Without the pass the float Conv sums dequantized values, which rounds differently from the
// exact integer sum: at most one quantization step apart on the first quantized output.
TEST(RequantFusionPass, UnfusedQdqGraphIsWithinOneQuantizationStep) {
  const FixtureRun r = run_fixture(/*passes=*/false, /*aicore=*/false);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_LE(max_abs_diff(r.outputs[0], load(".y2q.npy")), 1.0);
}

// ---- the pattern's limits, on small graphs ---------------------------------------------------

Tensor scalar_f(float v) {
  Tensor t(DType::kFloat32, {});
  t.data<float>()[0] = v;
  return t;
}
template <class T>
Tensor filled(DType dt, Shape s, T v) {
  Tensor t(dt, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(v + static_cast<T>(i % 5));
  return t;
}

// x_q -> DQ -> Conv(DQ(w)) -> [Relu] -> Q(y_zp) ; y_zp u8.
Graph conv_group(bool relu, uint8_t y_zp, bool extra_reader) {
  GraphBuilder b;
  const int x = b.input("x");
  Tensor zx(DType::kUInt8, {});
  zx.data<uint8_t>()[0] = 10;
  const int xf = b.node("DequantizeLinear", {x, b.constant("xs", scalar_f(0.5f)), b.constant("xz", zx)});
  const int wf = b.node("DequantizeLinear", {b.constant("w", filled<int8_t>(DType::kInt8, {2, 1, 1, 1}, -2)),
                                             b.constant("ws", scalar_f(0.25f))});
  int y = b.node("Conv", {xf, wf});
  const int conv_out = y;
  if (relu) y = b.node("Relu", {y});
  Tensor zy(DType::kUInt8, {});
  zy.data<uint8_t>()[0] = y_zp;
  y = b.node("QuantizeLinear", {y, b.constant("ys", scalar_f(0.125f)), b.constant("yz", zy)});
  b.g.outputs = {y};
  if (extra_reader) b.g.outputs.push_back(conv_out);
  Tensor xin = filled<uint8_t>(DType::kUInt8, {1, 1, 2, 2}, 8);
  eval_graph(b.g, {xin}, /*annotate=*/true);
  return std::move(b.g);
}

TEST(RequantFusionPass, AbsorbsReluOnlyWhenTheZeroPointIsTheTypeMinimum) {
  Graph g = conv_group(/*relu=*/true, /*y_zp=*/0, false);
  Tensor xin = filled<uint8_t>(DType::kUInt8, {1, 1, 2, 2}, 8);
  const auto before = eval_graph(g, {xin});
  const PassResult r = run_pass(g, "RequantFusionPass");
  EXPECT_EQ(r.applied, 1);
  EXPECT_EQ(count_ops(g, "QLinearConv"), 1);
  EXPECT_EQ(count_ops(g, "Relu"), 0);
  EXPECT_TRUE(same_bytes(eval_graph(g, {xin})[0], before[0]));

  // With zero point 5, Relu(v) and saturation differ for small negative sums: not rewritten.
  Graph kept = conv_group(/*relu=*/true, /*y_zp=*/5, false);
  const PassResult r2 = run_pass(kept, "RequantFusionPass");
  EXPECT_EQ(r2.applied, 0);
  EXPECT_EQ(count_ops(kept, "Conv"), 1);
}

TEST(RequantFusionPass, LeavesAConvWhoseFloatOutputIsAlsoAGraphOutput) {
  Graph g = conv_group(/*relu=*/false, 0, /*extra_reader=*/true);
  EXPECT_EQ(run_pass(g, "RequantFusionPass").applied, 0);
  EXPECT_EQ(count_ops(g, "Conv"), 1);
}

TEST(RequantFusionPass, ConvWithoutReluEqualsTheUnfusedGraph) {
  Graph g = conv_group(/*relu=*/false, 3, false);
  Tensor xin = filled<uint8_t>(DType::kUInt8, {1, 1, 2, 2}, 8);
  const auto before = eval_graph(g, {xin});
  EXPECT_EQ(run_pass(g, "RequantFusionPass").applied, 1);
  // Small integers: the float sum is exact too, so both graphs agree bit for bit.
  EXPECT_TRUE(same_bytes(eval_graph(g, {xin})[0], before[0]));
}

}  // namespace
}  // namespace openge::testing
