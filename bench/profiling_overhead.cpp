// Profiling overhead measured inside one process: one compiled model, runs interleaved
// off / l0 / l1 / off / l0 / l1 ... so that every mode sees the same machine state, each profiled
// run recorded exactly as Session records it (begin_iteration, run, API record, end_iteration).
// Separate processes per mode (bench/profiling_overhead.py) differ by more than the overhead.
//
// Usage: openge_profiling_overhead MODEL.onnx [INPUT.npy] [--threads N] [--rounds R] [--warmup W]
// Prints one JSON line: median ms per mode and the ratios l0/off and l1/off (medians over rounds
// of the per-round ratio, each round being one run of every mode).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <string>
#include <vector>

#include "bench_args.h"
#include "frontend/onnx_loader.h"
#include "latency_stats.h"
#include "profiling/profiler.h"
#include "compiler/pipeline.h"

namespace {

using namespace openge;
namespace fs = std::filesystem;

int die(const std::string& what) {
  std::fprintf(stderr, "openge_profiling_overhead: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2)
    return die("usage: openge_profiling_overhead MODEL.onnx [INPUT.npy] [--threads N] [--rounds R] [--warmup W]");
  const bench::BenchArgs args = bench::parse_bench_args(argc, argv, 40);
  const std::string& model = args.model;
  const int threads = args.threads, rounds = args.rounds, warmup = args.warmup;
  auto graph = load_onnx(model);
  if (!graph.ok()) return die(graph.status().message());
  auto loaded = bench::bench_input(graph.value(), args.input_path);
  if (!loaded.ok()) return die(loaded.status().message());
  const Tensor input = std::move(loaded.value());
  CompileOptions co;
  co.num_threads = threads;
  auto exe = compiler::compile(std::move(graph.value()), {input.shape()}, co);
  if (!exe.ok()) return die(exe.status().message());

  const fs::path out = fs::temp_directory_path() / ("openge_overhead_" + std::to_string(::getpid()));
  fs::create_directories(out);
  auto make = [&](const char* json) {
    auto cfg = profiling::profiler_config_from_json(json, out.string());
    if (!cfg.ok()) std::exit(die(cfg.status().message()));
    auto p = profiling::Profiler::create(cfg.value());
    if (!p.ok()) std::exit(die(p.status().message()));
    return std::move(p.value());
  };
  auto l0 = make(R"({"task_trace":"l0"})");
  auto l1 = make(R"({"task_trace":"l1","aicpu":"on"})");
  profiling::Profiler* modes[3] = {nullptr, l0.get(), l1.get()};

  auto timed_run = [&](profiling::Profiler* p) {
    const int64_t start = profiling::steady_now_ns();
    if (!p) {
      if (!(*exe)->run({input}).ok()) std::exit(die("run failed"));
    } else {
      auto it = p->begin_iteration(exe->get(), (*exe)->nodes().size());
      auto result = (*exe)->run({input}, nullptr, it.get());
      p->record_api("ModelExecute", start, profiling::steady_now_ns());
      if (!result.ok() || !p->end_iteration(std::move(it)).ok()) std::exit(die("profiled run failed"));
    }
    return static_cast<double>(profiling::steady_now_ns() - start) / 1e6;
  };
  for (int w = 0; w < warmup; ++w)
    for (auto* p : modes) timed_run(p);
  std::vector<double> ms[3], ratio_l0, ratio_l1;
  for (int r = 0; r < rounds; ++r) {
    double t[3];
    for (int k = 0; k < 3; ++k) {
      const int m = (r + k) % 3;  // rotate the order: no mode always runs first
      t[m] = timed_run(modes[m]);
      ms[m].push_back(t[m]);
    }
    ratio_l0.push_back(t[1] / t[0]);
    ratio_l1.push_back(t[2] / t[0]);
  }
  // Files are written after the measurement, as Session does at finish.
  (void)l0->finish();
  (void)l1->finish();
  fs::remove_all(out);
  std::printf(
      "{\"model\": \"%s\", \"threads\": %d, \"rounds\": %d, \"tasks\": %zu, \"off_ms\": %.3f, \"l0_ms\": %.3f, "
      "\"l1_ms\": %.3f, \"l0_ratio\": %.4f, \"l1_ratio\": %.4f}\n",
      model.c_str(), threads, rounds, (*exe)->nodes().size(), cli::median_of(ms[0]), cli::median_of(ms[1]),
      cli::median_of(ms[2]), cli::median_of(ratio_l0), cli::median_of(ratio_l1));
  return 0;
}
