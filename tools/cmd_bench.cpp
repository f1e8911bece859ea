#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "latency_stats.h"
#include "model_inputs.h"
#include "session_flags.h"

namespace openge::cli {
namespace {

std::vector<FlagSpec> bench_flags() {
  std::vector<FlagSpec> flags = {
      {"model", "M.onnx", "model to measure (default: the bundled demo model)"},
      {"input", "NAME=FILE", "input tensor from a .npy or .pb file (others get random data)", true},
      {"warmup", "N", "untimed runs first (default 5)"},
      {"runs", "N", "timed runs (default 30)"},
      {"json", "", "print one JSON line instead of text"},
  };
  for (auto& f : session_flag_specs()) flags.push_back(f);
  return flags;
}

int fail(const Status& s) { return report_error("bench", s); }

}  // namespace

int cmd_bench(int argc, char** argv) {
  const std::vector<FlagSpec> flags = bench_flags();
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage("openge bench [--model M.onnx] [--warmup N] [--runs N] [--threads N]",
                       "Runs a model repeatedly and prints the median, p90 and min latency in milliseconds.", flags);
    return 0;
  }
  auto warmup = args->get_int("warmup", 5, 0, 100000);
  auto runs = args->get_int("runs", 30, 1, 100000);
  for (const auto* r : {&warmup, &runs})
    if (!r->ok()) return fail(r->status());
  // The options (and so profiling through PROFILING_MODE / --profile) apply as in `openge run`.
  CreatedFolder created;
  auto options = session_options_from_flags("bench", *args, created);
  if (!options) return 1;
  auto opened = open_model_with_inputs(*args, *options, 0, /*announce_demo=*/false, created);
  if (!opened.ok()) return fail(opened.status());
  const std::string& model = opened->path;
  auto& session = opened->session;
  auto& inputs = opened->inputs;

  std::vector<double> times;
  // Each run writes into the previous run's outputs (Session::run into outputs): the steady
  // state of a serving loop, in which a run of a static-shape model allocates nothing.
  std::vector<Tensor> outputs;
  // The profile holds the timed runs only: the warm-up (compile included) is counted, not recorded.
  session->pause_profiling(*warmup > 0);
  for (int i = 0; i < *warmup + *runs; ++i) {
    if (i == *warmup) session->pause_profiling(false);
    const auto start = std::chrono::steady_clock::now();
    Status ran = session->run(inputs.tensors, outputs);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!ran.ok()) return fail(ran);
    if (i >= *warmup) times.push_back(ms);
  }
  // Dumps are written in the background while the runs go on; what is still queued is written
  // here and reported apart, so that the dump's whole cost is visible.
  const std::string dump_dir = session->dump_dir();
  double flush_ms = 0;
  if (!dump_dir.empty()) {
    const auto start = std::chrono::steady_clock::now();
    if (Status s = session->flush_dump(); !s.ok()) return fail(s.with_context("dump"));
    flush_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  double total_ms = flush_ms;
  for (double t : times) total_ms += t;
  std::sort(times.begin(), times.end());
  const double median = median_of(times);
  // Profiling data is written after the timed runs, outside the measurement.
  const std::string profiling_dir = session->profiling_dir();
  if (Status s = session->finish_profiling(); !s.ok()) return fail(s.with_context("profiling"));
  const double p90 = times[std::min(times.size() - 1, static_cast<size_t>(0.9 * static_cast<double>(times.size())))];
  if (args->has("json")) {
    std::printf(
        "{\"model\": \"%s\", \"threads\": %d, \"runs\": %d, \"median_ms\": %.4f, \"p90_ms\": %.4f, \"min_ms\": %.4f, "
        "\"profiling_dir\": \"%s\"}\n",
        model.c_str(), options->num_threads, *runs, median, p90, times.front(), profiling_dir.c_str());
  } else {
    std::printf("%s: %d runs after %d warm-up, threads %s\nmedian %.3f ms   p90 %.3f ms   min %.3f ms\n", model.c_str(),
                *runs, *warmup, options->num_threads ? std::to_string(options->num_threads).c_str() : "auto", median,
                p90, times.front());
    if (!profiling_dir.empty()) std::printf("profiling data: %s\n", profiling_dir.c_str());
    // The sum is what a dump's cost is measured on (the writes overlap the runs, then the flush).
    std::printf("timed runs total %.3f ms", total_ms - flush_ms);
    if (!dump_dir.empty())
      std::printf(" + final flush of the dump %.3f ms = %.3f ms; dump: %s", flush_ms, total_ms, dump_dir.c_str());
    std::printf("\n");
  }
  return 0;
}

}  // namespace openge::cli
