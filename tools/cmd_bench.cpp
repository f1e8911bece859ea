#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "model_inputs.h"

namespace openge::cli {
namespace {

const std::vector<FlagSpec> kBenchFlags = {
    {"model", "M.onnx", "model to measure (default: the bundled demo model)"},
    {"input", "NAME=FILE", "input tensor from a .npy or .pb file (others get random data)", true},
    {"warmup", "N", "untimed runs first (default 5)"},
    {"runs", "N", "timed runs (default 30)"},
    {"threads", "N", "threads (default: one per core)"},
    {"engine", "ENGINE", "auto (default) or aicpu"},
    {"json", "", "print one JSON line instead of text"},
};

int fail(const Status& s) { return report_error("bench", s); }

}  // namespace

int cmd_bench(int argc, char** argv) {
  auto args = Args::parse(argc, argv, 2, kBenchFlags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage("openge bench [--model M.onnx] [--warmup N] [--runs N] [--threads N]",
                       "Runs a model repeatedly and prints the median, p90 and min latency in milliseconds.",
                       kBenchFlags);
    return 0;
  }
  auto warmup = args->get_int("warmup", 5, 0, 100000);
  auto runs = args->get_int("runs", 30, 1, 100000);
  auto threads = args->get_int("threads", 0, 0, 1024);
  for (const auto* r : {&warmup, &runs, &threads})
    if (!r->ok()) return fail(r->status());
  const std::string engine = args->get("engine", "auto");
  if (engine != "auto" && engine != "aicpu") return fail(invalid_argument("--engine must be auto or aicpu, got '" + engine + "'"));
  std::string model = args->get("model");
  if (model.empty()) {
    auto demo = find_demo_model();
    if (!demo.ok()) return fail(demo.status());
    model = *demo;
  }
  SessionOptions options;
  options.num_threads = *threads;
  options.use_aicore = engine == "auto";
  auto session = Session::open(model, options);
  if (!session.ok()) return fail(session.status());
  auto inputs = gather_inputs(**session, *args, 0);
  if (!inputs.ok()) return fail(inputs.status().with_context("model " + model));

  std::vector<double> times;
  for (int i = 0; i < *warmup + *runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto out = (*session)->run(inputs->tensors);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!out.ok()) return fail(out.status());
    if (i >= *warmup) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const double median = times.size() % 2 ? times[times.size() / 2]
                                         : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  const double p90 = times[std::min(times.size() - 1, static_cast<size_t>(0.9 * static_cast<double>(times.size())))];
  if (args->has("json")) {
    std::printf("{\"model\": \"%s\", \"threads\": %d, \"runs\": %d, \"median_ms\": %.4f, \"p90_ms\": %.4f, \"min_ms\": %.4f}\n",
                model.c_str(), *threads, *runs, median, p90, times.front());
  } else {
    std::printf("%s: %d runs after %d warm-up, threads %s\nmedian %.3f ms   p90 %.3f ms   min %.3f ms\n", model.c_str(),
                *runs, *warmup, *threads ? std::to_string(*threads).c_str() : "auto", median, p90, times.front());
  }
  return 0;
}

}  // namespace openge::cli
