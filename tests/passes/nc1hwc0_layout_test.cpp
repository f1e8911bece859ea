// NC1HWC0 regions of ChannelsLastLayoutPass (ops/layout/activation_format.h): a region whose channels
// are whole 16-channel blocks runs on N x C1 x H x W x C0 activations, its RGB stem reading the
// NCHW input as it is, and computes what the NCHW graph computes on both engines; its Concat of
// whole blocks is written in place; a region with another channel count, or a broadcasting
// elementwise op, stays NHWC. The setting is fixed per test, so every CPU runs both forms.
#include "nc1hwc0_test_util.h"
#include "kernels/default_variant.h"
#include "ops/layout/activation_format.h"
#include "ops/op_registry.h"
#include "pass_test_util.h"
#include "passes/channels_last_layout_pass.h"
#include "passes/pass_util.h"
#include "compiler/pipeline.h"
#include "options/options_test_util.h"
#include "compiler/compile_config_test_util.h"
#include "passes/stored_format_test_util.h"

namespace openge::testing {
namespace {

// Runs every pass on `g` (its values annotated first) with `context` and returns the NCHW graph's
// outputs.
std::vector<Tensor> run_passes(Graph& g, const PassContext& context) {
  const auto before = eval_graph(g, cnn_input(), true);
  for (const Pass& p : all_passes()) {
    auto r = p.run(g, context);
    EXPECT_TRUE(r.ok()) << p.name << ": " << r.status().message();
  }
  return before;
}

// Each FusedConv's format: its nc1hwc0 attribute, or -1 for NHWC (channels_last).
std::vector<int64_t> conv_formats_of(const Graph& g) {
  std::vector<int64_t> out;
  for (const Node& n : g.nodes)
    if (n.op_type == "FusedConv") {
      const bool nhwc = n.attrs.get_int("channels_last", 0) == 1;
      EXPECT_FALSE(nhwc && n.attrs.has("nc1hwc0")) << n.name;
      out.push_back(nhwc ? -1 : n.attrs.get_int("nc1hwc0", 0));
    }
  return out;
}

TEST(Nc1hwc0Layout, WholeBlockRegionRunsInNc1hwc0AndComputesTheNchwResult) {
  Graph g = cnn(32);
  const auto before = run_passes(g, layout(passes::Nc1hwc0Regions::kAlways));
  // The stem reads the 3-channel NCHW input as it is (2); every other convolution is NC1HWC0 (1).
  EXPECT_EQ(conv_formats_of(g), (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNc1hwc0), 1);
  EXPECT_EQ(count_ops_in_format(g, "GlobalAveragePool", ActivationFormat::kNc1hwc0), 1);
  EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNhwc) +
                count_ops_in_format(g, "GlobalAveragePool", ActivationFormat::kNhwc),
            0);
  // No conversion in (the stem reads NCHW); one out, after the global pool, which moves only
  // size-1 dims and so is a view: no Transpose is left.
  EXPECT_EQ(count_ops(g, "Transpose"), 0);
  for (const Node& n : g.nodes)
    if (n.op_type == "Concat") {
      EXPECT_EQ(n.attrs.get_int("axis", -1), 1);
      const Shape& y = *g.values[static_cast<size_t>(n.outputs[0])].shape;
      EXPECT_EQ(y, (Shape{1, 2, 10, 10, kC0})) << "32 channels as 2 blocks of 16";
    }
  const auto after = eval_graph(g, cnn_input());
  ASSERT_EQ(after.size(), 1u);
  EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5);
}

TEST(Nc1hwc0Layout, OtherChannelCountsAndBroadcastsKeepNhwc) {
  for (bool squeeze_excite : {false, true}) {
    // 24 channels are not whole blocks; the squeeze-and-excitation Mul broadcasts its gate.
    Graph g = squeeze_excite ? cnn(32, true) : cnn(24);
    const auto before = run_passes(g, layout(passes::Nc1hwc0Regions::kAlways));
    EXPECT_EQ(conv_formats_of(g), std::vector<int64_t>(squeeze_excite ? 5 : 4, -1));
    EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNhwc), 1);
    EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNc1hwc0), 0);
    const auto after = eval_graph(g, cnn_input());
    EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5) << "squeeze_excite " << squeeze_excite;
  }
}

TEST(Nc1hwc0Layout, NeverKeepsNhwcAndByCpuFollowsTheIsa) {
  {
    Graph g = cnn(32);
    run_passes(g, layout(passes::Nc1hwc0Regions::kNever));
    EXPECT_EQ(conv_formats_of(g), (std::vector<int64_t>{-1, -1, -1, -1}));
    EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNhwc), 1);
  }
  Graph g = cnn(32);
  run_passes(g, PassContext{});
  // By default: NC1HWC0 where oneDNN runs AVX-512 kernels (the ISA its Winograd needs too).
  EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNc1hwc0), winograd_available() ? 1 : 0);
}

// The convolution that reads the graph input "x" (the 3-channel stem), as it is or through the
// region's Transpose into NHWC: its nc1hwc0 attribute (2: reads the NCHW input as it is), or -1
// when it is in NHWC, 0 when in NCHW.
int64_t stem_format(const Graph& g) {
  auto reads_x = [&](int v) {
    const Value& value = g.values[static_cast<size_t>(v)];
    if (value.name == "x") return true;
    if (value.producer < 0) return false;
    const Node& p = g.nodes[static_cast<size_t>(value.producer)];
    return p.op_type == "Transpose" && g.values[static_cast<size_t>(p.inputs[0])].name == "x";
  };
  for (const Node& n : g.nodes)
    if ((n.op_type == "Conv" || n.op_type == "FusedConv") && reads_x(n.inputs[0]))
      return n.attrs.get_int("channels_last", 0) == 1 ? -1 : n.attrs.get_int("nc1hwc0", 0);
  ADD_FAILURE() << "no convolution reads x";
  return -9;
}

// enable_small_channel on: the RGB stem joins the NC1HWC0 region reading the NCHW input as it
// is (no conversion in); off: it runs in NCHW and one conversion (Reshape + Transpose) carries
// its output into the region. Both compute the NCHW graph's result.
TEST(Nc1hwc0Layout, OPT_enable_small_channel_1_StemReadsThePlainInputOnlyWhenOn) {
  for (bool on : {true, false}) {
    Graph g = cnn(32);
    const auto before = run_passes(g, layout(passes::Nc1hwc0Regions::kAlways, on));
    EXPECT_EQ(stem_format(g), on ? 2 : 0) << "on " << on;
    EXPECT_EQ(count_ops(g, "Transpose"), on ? 0 : 1) << "on " << on;
    EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNc1hwc0), 1)
        << "the rest of the region stays NC1HWC0";
    const auto after = eval_graph(g, cnn_input());
    EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5) << "on " << on;
  }
  // In an NHWC region (CPUs without nChw16c kernels) the stem joins it in NHWC, or stays NCHW.
  for (bool on : {true, false}) {
    Graph g = cnn(32);
    const auto before = run_passes(g, layout(passes::Nc1hwc0Regions::kNever, on));
    EXPECT_EQ(stem_format(g), on ? -1 : 0) << "NHWC, on " << on;
    EXPECT_EQ(count_ops_in_format(g, "MaxPool", ActivationFormat::kNhwc), 1);
    const auto after = eval_graph(g, cnn_input());
    EXPECT_LT(max_abs_diff(after[0], before[0]), 1e-5) << "NHWC, on " << on;
  }
}

// The option reaches the pass through a compile: a training graph under training's default (0,
// OPT-enable_small_channel-2) keeps the stem out of the region, 1 puts it in; an inference compile
// (a Session, or graph_run_mode=0: OPT-enable_small_channel-3) puts it in unless the user set 0.
TEST(Nc1hwc0Layout, OPT_enable_small_channel_2_3_CompileFollowsTheOption) {
  struct Case {
    options::test::Flags opts;
    bool training_graph;
    int64_t stem;
  };
  const std::vector<Case> cases = {{{}, true, 0},
                                   {{{"enable_small_channel", "1"}}, true, 2},
                                   {{}, false, 2},
                                   {{{"enable_small_channel", "0"}}, false, 0},
                                   {{{"graph_run_mode", "0"}}, false, 2}};
  for (const auto& [opts, training_graph, stem] : cases) {
    auto r = options::test::build(opts);
    ASSERT_TRUE(r.options) << "options";
    CompileOptions co;
    co.num_threads = 1;
    co.nc1hwc0_regions = passes::Nc1hwc0Regions::kAlways;
    co.training_graph = training_graph;
    co.config = openge::test::compile_config(*r.options);
    auto exe = compiler::compile(cnn(32), {{1, 3, 20, 20}}, co);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    int64_t got = -9;
    for (const CompiledNode& n : (*exe)->nodes())
      if ((n.node.op_type == "Conv" || n.node.op_type == "FusedConv") && n.node.attrs.get_int("nc1hwc0", 0) != 1)
        got = n.node.attrs.get_int("channels_last", 0) == 1 ? -1 : n.node.attrs.get_int("nc1hwc0", 0);
    EXPECT_EQ(got, stem) << "expected stem format " << stem << " for " << opts.size() << " option(s), "
                         << (training_graph ? "training graph" : "inference");
  }
}

// Compiled with the AI Core engine: oneDNN runs the region on nChw16c, the result matches the
// reference engine's NCHW graph, and the Concat of two whole-block branches is written in place.
TEST(Nc1hwc0Layout, AiCoreRunsTheRegionAndWritesTheConcatInPlace) {
  Graph reference = cnn(32);
  const auto expected = eval_graph(reference, cnn_input(), true);
  CompileOptions co;
  co.num_threads = 1;
  co.nc1hwc0_regions = passes::Nc1hwc0Regions::kAlways;
  auto exe = compiler::compile(cnn(32), {{1, 3, 20, 20}}, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  size_t aicore_convs = 0, concat = SIZE_MAX;
  for (size_t i = 0; i < (*exe)->nodes().size(); ++i) {
    const CompiledNode& n = (*exe)->nodes()[i];
    if (n.node.op_type == "FusedConv" && n.engine == Engine::kAiCore) ++aicore_convs;
    if (n.node.op_type == "Concat") concat = i;
    if (n.node.op_type == "MaxPool" && node_data_format(n.node) == ActivationFormat::kNc1hwc0) {
      EXPECT_EQ(n.engine, Engine::kAiCore);
    }
  }
  EXPECT_EQ(aicore_convs, 4u);
  ASSERT_NE(concat, SIZE_MAX);
  EXPECT_TRUE((*exe)->concat_in_place(concat)) << "N = 1: each branch is a contiguous slice of C1";
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->run(cnn_input());
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_LT(max_abs_diff((*out)[0], expected[0]), 1e-4);
  }
}

// The conversions of ops/layout/activation_format.h against the index formulas of each format.
TEST(Nc1hwc0Layout, FormatConversionsPlaceEveryElement) {
  const Shape nchw{2, 32, 3, 5};
  const Tensor x = random_tensor(nchw, 11);
  auto at = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return x.data<float>()[((n * nchw[1] + c) * nchw[2] + h) * nchw[3] + w];
  };
  for (ActivationFormat f : {ActivationFormat::kNhwc, ActivationFormat::kNc1hwc0}) {
    Tensor stored(DType::kFloat32, stored_shape(nchw, f));
    copy_from_nchw(x, stored, f);
    ASSERT_EQ(nchw_shape(stored.shape(), f), nchw);
    const float* s = stored.data<float>();
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 32; ++c)
        for (int64_t h = 0; h < 3; ++h)
          for (int64_t w = 0; w < 5; ++w) {
            const int64_t i = f == ActivationFormat::kNhwc ? ((n * 3 + h) * 5 + w) * 32 + c
                                                           : (((n * 2 + c / kC0) * 3 + h) * 5 + w) * kC0 + c % kC0;
            ASSERT_EQ(s[i], at(n, c, h, w)) << format_name(f) << " " << n << c << h << w;
          }
    Tensor back(DType::kFloat32, nchw);
    copy_to_nchw(stored, back, f);
    EXPECT_EQ(max_abs_diff(back, x), 0.0);
  }
  EXPECT_FALSE(nchw_shape({1, 2, 3, 4, 8}, ActivationFormat::kNc1hwc0)) << "C0 is 16";
  EXPECT_FALSE(nchw_shape({1, 2, 3}, ActivationFormat::kNhwc));
}

}  // namespace
}  // namespace openge::testing
