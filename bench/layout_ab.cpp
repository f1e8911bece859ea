// NHWC against NC1HWC0 regions (ChannelsLastLayoutPass) measured inside one process: the model is
// compiled twice, once with NC1HWC0 regions off and once with them allowed on any CPU, and the two
// run alternately (rotating which goes first) so that both see the same machine state. On this
// shared 2-vCPU host separate processes differ by more than the effect.
//
// Usage: openge_layout_ab MODEL.onnx [INPUT.npy] [--threads N] [--rounds R] [--warmup W]
//            [--option NAME=VALUE ...]   (options of both compiles, e.g. a precision mode)
// Prints one JSON line: the median ms of each form, the median of the per-round ratios
// nc1hwc0/nhwc, how many nodes of the NC1HWC0 compile have 5-D outputs, and the largest output
// difference between the two forms.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_args.h"
#include "frontend/onnx_loader.h"
#include "latency_stats.h"
#include "options/option_builder.h"
#include "options/option_set.h"
#include "passes/channels_last_layout_pass.h"
#include "profiling/profiler.h"
#include "compiler/pipeline.h"
#include "session/compile_config_resolver.h"

namespace {

using namespace openge;

int die(const std::string& what) {
  std::fprintf(stderr, "openge_layout_ab: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return die("usage: openge_layout_ab MODEL.onnx [INPUT.npy] [--threads N] [--rounds R] [--warmup W]");
  const bench::BenchArgs args = bench::parse_bench_args(argc, argv, 60);
  std::shared_ptr<const compiler::CompileConfig> config;
  if (!args.options.empty()) {
    options::OptionInputs in;
    for (const auto& [name, value] : args.options) in.flags.push_back({name, value, "--option"});
    auto set = options::build_option_set(in);
    if (!set.ok()) return die(set.status().message());
    auto resolved = resolve_compile_config(set.value());
    if (!resolved.ok()) return die(resolved.status().message());
    config = std::move(resolved.value());
  }
  std::unique_ptr<Executable> forms[2];
  Tensor input;
  for (int f = 0; f < 2; ++f) {
    auto graph = load_onnx(args.model);
    if (!graph.ok()) return die(graph.status().message());
    if (f == 0) {
      auto loaded = bench::bench_input(graph.value(), args.input_path);
      if (!loaded.ok()) return die(loaded.status().message());
      input = std::move(loaded.value());
    }
    CompileOptions co;
    co.nc1hwc0_regions = f == 0 ? passes::Nc1hwc0Regions::kNever : passes::Nc1hwc0Regions::kAlways;
    co.num_threads = args.threads;
    co.config = config;
    auto exe = compiler::compile(std::move(graph.value()), {input.shape()}, co);
    if (!exe.ok()) return die(exe.status().message());
    forms[f] = std::move(exe.value());
  }
  size_t blocked_nodes = 0;
  for (const CompiledNode& n : forms[1]->nodes())
    for (int v : n.node.outputs)
      if (v >= 0 && forms[1]->graph().values[static_cast<size_t>(v)].shape &&
          forms[1]->graph().values[static_cast<size_t>(v)].shape->size() == 5)
        ++blocked_nodes;

  std::vector<Tensor> outputs[2];
  auto timed_run = [&](int f) {
    const int64_t start = profiling::steady_now_ns();
    auto out = forms[f]->run({input});
    if (!out.ok()) std::exit(die(out.status().message()));
    outputs[f] = std::move(out.value());
    return static_cast<double>(profiling::steady_now_ns() - start) / 1e6;
  };
  for (int w = 0; w < args.warmup; ++w)
    for (int f = 0; f < 2; ++f) timed_run(f);
  std::vector<double> ms[2], ratio;
  for (int r = 0; r < args.rounds; ++r) {
    double t[2];
    for (int k = 0; k < 2; ++k) {
      const int f = (r + k) % 2;
      t[f] = timed_run(f);
      ms[f].push_back(t[f]);
    }
    ratio.push_back(t[1] / t[0]);
  }
  double diff = 0;
  for (size_t o = 0; o < outputs[0].size(); ++o)
    if (outputs[0][o].dtype() == DType::kFloat32)
      for (int64_t i = 0; i < outputs[0][o].numel(); ++i)
        diff = std::max(
            diff, static_cast<double>(std::fabs(outputs[0][o].data<float>()[i] - outputs[1][o].data<float>()[i])));
  std::printf(
      "{\"model\": \"%s\", \"threads\": %d, \"rounds\": %d, \"nc1hwc0_nodes\": %zu, \"nhwc_ms\": %.3f, "
      "\"nc1hwc0_ms\": %.3f, \"ratio\": %.4f, \"max_abs_diff\": %.3g}\n",
      args.model.c_str(), args.threads, args.rounds, blocked_nodes, cli::median_of(ms[0]), cli::median_of(ms[1]),
      cli::median_of(ratio), diff);
  return 0;
}
