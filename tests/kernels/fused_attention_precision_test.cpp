// FusedAttention under the precision modes. The fusion runs before the precision
// pass, which types FusedAttention as the MatMul it took over (a cube op): under a bf16 or fp16
// mode its operands are cast to that dtype and the AI Core kernel runs widened, like the other
// cube ops (operands widened exactly to float32, one float32 attention with the scores and
// probabilities never rounded, the output rounded once). These tests check that the fusion is
// kept, that the node stays on AI Core in the narrow dtype, and that the output is the NumPy
// attention of the rounded operands rounded once (tests/kernels/attention_fixture/
// make_attention_fixture.py) within one unit in the last place of that dtype.
#include <gtest/gtest.h>

#include <cmath>

#include "../options/options_test_util.h"
#include "kernel_test_util.h"
#include "../passes/pass_test_util.h"
#include "io/npy.h"
#include "options/option_set.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge::testing {
namespace {

const std::string kFixture = std::string(OPENGE_SOURCE_DIR) + "/tests/kernels/attention_fixture/attention.";

Tensor load(const std::string& name) {
  auto t = read_npy(kFixture + name + ".npy");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : Tensor();
}

// S = MatMul(q, kt) * 0.125 + mask; y = MatMul(Softmax(S), v), as BERT exports it.
Graph attention_graph() {
  GraphBuilder b;
  const int q = b.input("q"), kt = b.input("kt"), v = b.input("v");
  int s = b.node("MatMul", {q, kt});
  s = b.node("Mul", {s, b.constant("eighth", scalar(0.125f))});
  s = b.node("Add", {s, b.constant("mask", load("mask"))});
  b.g.outputs = {b.node("MatMul", {b.node("Softmax", {s}), v})};
  for (int in : {q, kt, v}) b.g.values[static_cast<size_t>(in)].dtype = DType::kFloat32;
  return std::move(b.g);
}

struct AttentionRun {
  DType compute = DType::kUndefined;  // FusedAttention's output dtype in the compiled graph
  Engine engine = Engine::kAiCpu;
  int fused = 0;
  Tensor y;
};

AttentionRun run_under(const std::string& precision_mode, const std::string& soc) {
  auto r = options::test::build({{"precision_mode", precision_mode}, {"soc_version", soc}});
  EXPECT_TRUE(r.options) << options::test::dump_errors(r);
  AttentionRun out;
  if (!r.options) return out;
  const std::vector<Tensor> inputs = {load("q"), load("kt"), load("v")};
  CompileOptions co;
  co.num_threads = 2;
  co.config = openge::test::compile_config(*r.options);
  auto exe = compiler::compile(attention_graph(), {inputs[0].shape(), inputs[1].shape(), inputs[2].shape()}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return out;
  for (const CompiledNode& n : (*exe)->nodes()) {
    if (n.node.op_type != "FusedAttention") continue;
    ++out.fused;
    out.engine = n.engine;
    out.compute = (*exe)->graph().values[static_cast<size_t>(n.node.outputs[0])].dtype;
  }
  auto y = (*exe)->run(inputs);
  EXPECT_TRUE(y.ok()) << y.status().message();
  if (y.ok()) out.y = std::move((*y)[0]);
  return out;
}

// The largest error in units in the last place of a float with `mantissa_bits` explicit bits.
double max_ulps(const Tensor& y, const Tensor& expected, int mantissa_bits) {
  EXPECT_EQ(y.shape(), expected.shape());
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  double worst = 0;
  for (int64_t i = 0; i < expected.numel() && i < y.numel(); ++i) {
    const double e = expected.data<float>()[i], got = y.data<float>()[i];
    const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(e), 1e-30)) - mantissa_bits);
    worst = std::max(worst, std::fabs(got - e) / ulp);
  }
  return worst;
}

TEST(FusedAttentionPrecision, OPT_precision_mode_9_MustKeepOriginDtypeFloat32MatchesNumPy) {
  const AttentionRun r = run_under("must_keep_origin_dtype", "Ascend910B");
  EXPECT_EQ(r.fused, 1);
  EXPECT_EQ(r.engine, Engine::kAiCore);
  EXPECT_EQ(r.compute, DType::kFloat32);
  ASSERT_TRUE(r.y.defined());
  EXPECT_LT(max_rel_diff(r.y, load("y_fp32")), 1e-5);
}

TEST(FusedAttentionPrecision, OPT_precision_mode_13_AllowMixPrecisionBf16KeepsTheFusionOnAiCoreInBf16) {
  const AttentionRun r = run_under("allow_mix_precision_bf16", "Ascend910B");
  EXPECT_EQ(r.fused, 1) << "the fusion is not lost under a bf16 mode";
  EXPECT_EQ(r.engine, Engine::kAiCore) << "the widened AI Core kernel, not the reference loop";
  EXPECT_EQ(r.compute, DType::kBFloat16);
  ASSERT_TRUE(r.y.defined());
  // One bf16 rounding of the output (7 explicit mantissa bits), nothing lost in between.
  EXPECT_LE(max_ulps(r.y, load("y_bf16"), 7), 1.0);
  // And bf16 was really applied: the float32 answer is many bf16 ulps away somewhere.
  EXPECT_GT(max_ulps(r.y, load("y_fp32"), 23), 1000.0);
}

TEST(FusedAttentionPrecision, OPT_precision_mode_11_12_AllowMixPrecisionFp16KeepsTheFusionOnAiCoreInFp16) {
  const AttentionRun r = run_under("allow_mix_precision_fp16", "Ascend910B");
  EXPECT_EQ(r.fused, 1);
  EXPECT_EQ(r.engine, Engine::kAiCore);
  EXPECT_EQ(r.compute, DType::kFloat16);
  ASSERT_TRUE(r.y.defined());
  EXPECT_LE(max_ulps(r.y, load("y_fp16"), 10), 1.0);
  EXPECT_GT(max_ulps(r.y, load("y_fp32"), 23), 100.0);
}

}  // namespace
}  // namespace openge::testing
