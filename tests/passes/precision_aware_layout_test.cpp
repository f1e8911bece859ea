// The layout pass chooses a region's format knowing the dtype its convolutions will compute in
// (the precision pass's decision, predicted before it runs) and the CPU's instruction-set class,
// by the cost table of kernels/conv_format_costs.h; the precision pass keeps float32 under the
// allow_* modes where the table says bf16 convolutions are slower. The ISA and the table are fixed
// per test, so every CPU checks every row. Whatever the format, the bf16 model computes what the
// float32 one does within bf16's rounding.
#include <cmath>

#include "../options/options_test_util.h"
#include "compiler/pipeline.h"
#include "kernels/conv_format_costs.h"
#include "nc1hwc0_test_util.h"
#include "options/option_set.h"
#include "precision/precision_pass.h"
#include "compiler/compile_config_test_util.h"

namespace openge::testing {
namespace {

std::shared_ptr<const options::OptionSet> bf16_config() {
  // enable_small_channel=1: the RGB stem joins the region, so every convolution takes its format
  // (training's default, 0, would keep the stem in NCHW).
  auto r = options::test::build(
      {{"precision_mode", "allow_mix_precision_bf16"}, {"soc_version", "Ascend910B"}, {"enable_small_channel", "1"}});
  EXPECT_TRUE(r.options) << options::test::dump_errors(r);
  if (!r.options) return nullptr;
  return std::make_shared<const options::OptionSet>(std::move(*r.options));
}

struct Compiled {
  std::unique_ptr<Executable> exe;
  std::vector<std::string> formats;  // each FusedConv's: "NHWC" or "NC1HWC0"
  std::vector<DType> conv_dtypes;    // each FusedConv's input dtype
};

// cnn(32) compiled on `isa` priced by `table`; bf16 mixed precision when `bf16`.
Compiled compile_on(CpuIsa isa, FormatCostTable table, bool bf16) {
  CompileOptions co;
  co.num_threads = 1;
  co.isa_costs = IsaCosts{isa, table};
  if (bf16) co.config = openge::test::compile_config(bf16_config());
  Compiled c;
  auto exe = compiler::compile(cnn(32), {{1, 3, 20, 20}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return c;
  c.exe = std::move(exe.value());
  for (const CompiledNode& n : c.exe->nodes()) {
    if (n.node.op_type != "FusedConv") continue;
    c.formats.push_back(n.node.attrs.get_int("channels_last", 0) == 1 ? "NHWC"
                        : n.node.attrs.get_int("nc1hwc0", 0) != 0     ? "NC1HWC0"
                                                                      : "NCHW");
    c.conv_dtypes.push_back(c.exe->graph().values[static_cast<size_t>(n.node.inputs[0])].dtype);
  }
  return c;
}

std::vector<std::string> all(const std::string& format) { return std::vector<std::string>(4, format); }

// The table's rows for a bf16 convolution differ per ISA, and so does the region's format.
// Rows that send a bf16 region to NHWC on one ISA and to NC1HWC0 on the other.
constexpr FormatCostRow kPerIsaRows[] = {
    {"Conv", CpuIsa::kAmx, DType::kFloat32, 1.0, 0.95, "test"},
    {"Conv", CpuIsa::kAmx, DType::kBFloat16, 0.3, 0.6, "test: brgemm on NHWC"},
    {"Conv", CpuIsa::kAvx512Bf16, DType::kFloat32, 1.0, 0.95, "test"},
    {"Conv", CpuIsa::kAvx512Bf16, DType::kBFloat16, 0.6, 0.5, "test: blocked kernels faster"},
};

TEST(PrecisionAwareLayout, Bf16RegionFormatDiffersPerIsaRowOfAnInjectedTable) {
  const FormatCostTable rows = kPerIsaRows;
  const Compiled amx = compile_on(CpuIsa::kAmx, rows, true);
  const Compiled avx512_bf16 = compile_on(CpuIsa::kAvx512Bf16, rows, true);
  EXPECT_EQ(amx.conv_dtypes, std::vector<DType>(4, DType::kBFloat16));
  EXPECT_EQ(avx512_bf16.conv_dtypes, std::vector<DType>(4, DType::kBFloat16));
  EXPECT_EQ(amx.formats, all("NHWC"));
  EXPECT_EQ(avx512_bf16.formats, all("NC1HWC0"));
  // The same rows for float32 on both ISAs: NC1HWC0 on both.
  EXPECT_EQ(compile_on(CpuIsa::kAmx, rows, false).formats, all("NC1HWC0"));
  EXPECT_EQ(compile_on(CpuIsa::kAvx512Bf16, rows, false).formats, all("NC1HWC0"));
}

// OpenGE's own table: bf16 on AMX runs NHWC; where the CPU has no bf16 dot product the
// convolutions stay float32 under allow_mix_precision_bf16 and take float32's format.
TEST(PrecisionAwareLayout, DefaultTableOnEachIsa) {
  const FormatCostTable table = default_format_costs();
  const Compiled amx = compile_on(CpuIsa::kAmx, table, true);
  EXPECT_EQ(amx.conv_dtypes, std::vector<DType>(4, DType::kBFloat16));
  EXPECT_EQ(amx.formats, all("NHWC")) << "bf16 on AMX: oneDNN's brgemm kernels run on NHWC only";
  const Compiled avx512 = compile_on(CpuIsa::kAvx512, table, true);
  EXPECT_EQ(avx512.conv_dtypes, std::vector<DType>(4, DType::kFloat32)) << "emulated bf16 is slower than float32";
  EXPECT_EQ(avx512.formats, all("NC1HWC0"));
  const Compiled avx2 = compile_on(CpuIsa::kAvx2, table, true);
  EXPECT_EQ(avx2.conv_dtypes, std::vector<DType>(4, DType::kFloat32));
  EXPECT_EQ(avx2.formats, all("NHWC")) << "no nChw16c kernels below AVX-512";
  const Compiled bf16 = compile_on(CpuIsa::kAvx512Bf16, table, true);
  EXPECT_EQ(bf16.conv_dtypes, std::vector<DType>(4, DType::kBFloat16));
  const FormatCostRow* row = find_format_cost(table, "Conv", CpuIsa::kAvx512Bf16, DType::kBFloat16);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(bf16.formats, all(row->nc1hwc0 < row->nhwc ? "NC1HWC0" : "NHWC"));
}

// The precision pass's side of the rule: under the allow_* modes a convolution keeps float32
// where the table prices its bf16 form above float32, and says why; under a forcing mode, or
// where bf16 is faster, it is lowered as before.
TEST(PrecisionAwareLayout, AllowModesKeepFloat32WhereBf16ConvolutionsAreSlower) {
  Graph g = cnn(32);
  eval_graph(g, cnn_input(), /*annotate=*/true);
  auto conv_decision = [&](const std::string& mode, CpuIsa isa) {
    auto r = options::test::build({{"precision_mode", mode}, {"soc_version", "Ascend910B"}});
    EXPECT_TRUE(r.options) << options::test::dump_errors(r);
    auto setup = precision::load_precision_setup(*r.options);
    EXPECT_TRUE(setup.ok()) << setup.status().message();
    setup->costs = {isa, default_format_costs()};
    Graph copy = g;
    auto decisions = precision::apply_precision(copy, *setup);
    EXPECT_TRUE(decisions.ok()) << decisions.status().message();
    for (const precision::PrecisionDecision& d : *decisions)
      if (d.op_type == "Conv") return d;
    return precision::PrecisionDecision{};
  };
  for (const char* mode : {"allow_mix_precision_bf16", "allow_fp32_to_bf16"}) {
    const auto slow = conv_decision(mode, CpuIsa::kAvx512);
    EXPECT_EQ(slow.input_dtype, DType::kFloat32) << mode;
    EXPECT_NE(slow.rule.find("slower than float32 on this CPU (avx512_core"), std::string::npos) << slow.rule;
    EXPECT_EQ(conv_decision(mode, CpuIsa::kAmx).input_dtype, DType::kBFloat16) << mode;
    EXPECT_EQ(conv_decision(mode, CpuIsa::kAvx512Bf16).input_dtype, DType::kBFloat16) << mode;
  }
}

TEST(PrecisionAwareLayout, Float32RegionKeepsNc1hwc0OnEveryAvx512Isa) {
  for (CpuIsa isa : {CpuIsa::kAvx512, CpuIsa::kAvx512Vnni, CpuIsa::kAvx512Bf16, CpuIsa::kAmx}) {
    const Compiled c = compile_on(isa, default_format_costs(), false);
    EXPECT_EQ(c.conv_dtypes, std::vector<DType>(4, DType::kFloat32)) << isa_name(isa);
    EXPECT_EQ(c.formats, all("NC1HWC0")) << isa_name(isa);
  }
}

// The choice reads the table it is given: rows priced the other way round turn both decisions.
TEST(PrecisionAwareLayout, AnInjectedTableDecides) {
  const FormatCostRow flipped[] = {
      {"Conv", CpuIsa::kAmx, DType::kFloat32, 1.0, 1.2, "test"},
      {"Conv", CpuIsa::kAmx, DType::kBFloat16, 1.0, 0.5, "test"},
  };
  EXPECT_EQ(compile_on(CpuIsa::kAmx, flipped, true).formats, all("NC1HWC0"));
  EXPECT_EQ(compile_on(CpuIsa::kAmx, flipped, false).formats, all("NHWC"));
  // An ISA without a row: no NC1HWC0 region.
  EXPECT_EQ(compile_on(CpuIsa::kAvx512Vnni, flipped, false).formats, all("NHWC"));
}

TEST(PrecisionAwareLayout, Float16WithoutARowTakesTheFloat32Row) {
  const FormatCostTable table = default_format_costs();
  const FormatCostRow* f16 = find_format_cost(table, "Conv", CpuIsa::kAmx, DType::kFloat16);
  const FormatCostRow* f32 = find_format_cost(table, "Conv", CpuIsa::kAmx, DType::kFloat32);
  ASSERT_NE(f32, nullptr);
  EXPECT_EQ(f16, f32);
  EXPECT_EQ(find_format_cost(table, "Gemm", CpuIsa::kAmx, DType::kFloat32), nullptr);
}

// The prediction the layout pass reads is the precision pass's own decision on the same graph.
TEST(PrecisionAwareLayout, PredictedComputeDtypesAreThePrecisionPassDecisions) {
  const auto config = bf16_config();
  ASSERT_TRUE(config);
  auto setup = precision::load_precision_setup(*config);
  ASSERT_TRUE(setup.ok()) << setup.status().message();
  Graph g = cnn(32);
  eval_graph(g, cnn_input(), /*annotate=*/true);
  auto predicted = precision::predict_compute_dtypes(g, *setup);
  ASSERT_TRUE(predicted.ok()) << predicted.status().message();
  Graph applied = g;
  auto decisions = precision::apply_precision(applied, *setup);
  ASSERT_TRUE(decisions.ok()) << decisions.status().message();
  ASSERT_EQ(predicted->size(), g.nodes.size());
  size_t bf16_convs = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    EXPECT_EQ((*predicted)[n], (*decisions)[n].input_dtype) << g.nodes[n].name;
    if (g.nodes[n].op_type == "Conv" && (*predicted)[n] == DType::kBFloat16) ++bf16_convs;
  }
  EXPECT_EQ(bf16_convs, 4u);
}

double cosine(const Tensor& a, const Tensor& b) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / std::sqrt(aa * bb);
}

// The bf16 model in either format against the float32 model: bf16 keeps 8 bits of mantissa, so
// outputs agree to about 2^-8 of their scale; a wrong format or cast would be off by far more.
TEST(PrecisionAwareLayout, Bf16ModelInEitherFormatComputesTheFloat32Result) {
  const Compiled fp32 = compile_on(CpuIsa::kAvx512Bf16, default_format_costs(), false);
  ASSERT_TRUE(fp32.exe);
  auto expected = fp32.exe->run(cnn_input());
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  double scale = 0;
  for (int64_t i = 0; i < (*expected)[0].numel(); ++i)
    scale = std::max(scale, std::fabs((double)(*expected)[0].data<float>()[i]));
  for (CpuIsa isa : {CpuIsa::kAmx, CpuIsa::kAvx512Bf16}) {
    const Compiled bf16 = compile_on(isa, kPerIsaRows, true);
    ASSERT_TRUE(bf16.exe);
    EXPECT_EQ(bf16.formats, all(isa == CpuIsa::kAmx ? "NHWC" : "NC1HWC0"));
    EXPECT_EQ(bf16.conv_dtypes, std::vector<DType>(4, DType::kBFloat16));
    auto out = bf16.exe->run(cnn_input());
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_EQ((*out)[0].dtype(), DType::kFloat32);
    EXPECT_GT(cosine((*out)[0], (*expected)[0]), 0.999) << isa_name(isa);
    EXPECT_LT(max_abs_diff((*out)[0], (*expected)[0]), 0.03 * scale) << isa_name(isa);
  }
}

}  // namespace
}  // namespace openge::testing
