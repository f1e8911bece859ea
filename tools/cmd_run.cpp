#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "model_inputs.h"
#include "output_summary.h"
#include "latency_stats.h"
#include "run_outputs.h"
#include "run_artifacts.h"
#include "session_flags.h"
#include "profile_summary.h"
#include "openge/profiling_report.h"

namespace openge::cli {
namespace fs = std::filesystem;

namespace {

std::vector<FlagSpec> run_flags() {
  std::vector<FlagSpec> flags = {
      {"model", "M.onnx", "model to run: ONNX, or a .oge from openge compile (default: the bundled demo model)"},
      {"input", "NAME=FILE|FILE,...",
       "input from a .npy, .pb (ONNX TensorProto) or raw .bin file; FILE,FILE,... gives every input in order "
       "(msame / ais_bench), and NAME= may be left out for a one-input model",
       true},
      {"inputs", "DIR",
       "read every input from DIR: input_<i>.pb, input_<i>.npy or NAME.npy (a missing one is an error)"},
      {"outputs", "DIR", "write DIR/output_<i>.pb and .npy (or --outfmt's form) for the i-th graph output"},
      {"output", "DIR", "the same as --outputs (msame / ais_bench's name)"},
      {"outfmt", "NPY|BIN|TXT", "write the outputs only as .npy, raw .bin or .txt (msame / ais_bench)"},
      {"seed", "N", "seed for random inputs (default 0)"},
      {"iterations", "N", "run the model N times (default 1); the first run includes compilation"},
      {"loop", "N", "the same as --iterations (msame / ais_bench's name)"},
  };
  for (auto& f : session_flag_specs()) flags.push_back(f);
  return flags;
}

// --outputs or its msame name --output (not both), and --iterations or --loop.
Result<std::string> output_folder_flag(const Args& args) {
  if (args.has("outputs") && args.has("output")) return invalid_argument("give --output or --outputs, not both");
  if (args.has("outfmt") && !args.has("outputs") && !args.has("output"))
    return invalid_argument("--outfmt needs an output folder: add --output DIR");
  return args.has("output") ? args.get("output") : args.get("outputs");
}

Result<int> iterations_flag(const Args& args) {
  if (args.has("iterations") && args.has("loop")) return invalid_argument("give --loop or --iterations, not both");
  return args.get_int(args.has("loop") ? "loop" : "iterations", 1, 1, 1000000);
}

int fail(const Status& s) { return report_error("run", s); }

}  // namespace

int cmd_run(int argc, char** argv) {
  const std::vector<FlagSpec> flags = run_flags();
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage(
        "openge run [--model M.onnx] [--input NAME=FILE | --input F1,F2,...] [--inputs DIR] [--output DIR [--outfmt "
        "NPY|BIN|TXT]]\n"
        "                  [--loop N] [--profile]",
        "Runs a model (--iterations N times) and prints each output's name, dtype, shape and a summary.\n"
        "Inputs not given get seeded random data, and the run says so.",
        flags);
    return 0;
  }
  auto seed = args->get_int("seed", 0, 0, 1 << 30);
  if (!seed.ok()) return fail(seed.status());
  auto iterations = iterations_flag(*args);
  if (!iterations.ok()) return fail(iterations.status());
  auto output_dir = output_folder_flag(*args);
  if (!output_dir.ok()) return fail(output_dir.status());
  auto format = output_format_from_flag(args->get("outfmt"));
  if (!format.ok()) return fail(format.status());
  // Options are validated before the model is touched: a bad configuration fails fast.
  CreatedFolder created;
  auto options = session_options_from_flags("run", *args, created);
  if (!options) return 1;
  // The output folder is proved writable before the model is read, and removed again (when
  // still empty) if the run fails.
  CreatedFolder created_outputs;
  if (!output_dir->empty()) {
    bool made = false;
    const std::string flag = args->has("output") ? "--output" : "--outputs";
    if (Status s = prepare_output_folder(*output_dir, flag, made); !s.ok()) return fail(s);
    if (made) created_outputs.path = *output_dir;
  }

  const auto started = fs::file_time_type::clock::now();
  auto opened = open_model_with_inputs(*args, *options, static_cast<uint32_t>(*seed), /*announce_demo=*/true, created);
  if (!opened.ok()) return fail(opened.status());
  auto& session = opened->session;
  auto& inputs = opened->inputs;
  for (const auto& note : inputs.notes) std::cout << note << "\n";

  RunInfo info;
  Result<std::vector<Tensor>> outputs = std::vector<Tensor>{};
  std::vector<double> times;
  for (int i = 0; i < *iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    outputs = session->run(inputs.tensors, &info);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!outputs.ok()) return fail(outputs.status());
  }

  for (size_t i = 0; i < outputs->size(); ++i)
    std::cout << "output '" << session->outputs()[i].name << "': " << summarize_tensor((*outputs)[i]) << "\n";
  std::printf(
      "run time: %.3f ms (first run, includes compilation); nodes: %d AI Core, %d AI CPU; "
      "peak intermediate memory: %.2f MiB planned + %.2f MiB dynamic\n",
      times[0], info.aicore_nodes, info.aicpu_nodes, info.arena_bytes / 1048576.0, info.peak_dynamic_bytes / 1048576.0);
  if (times.size() > 1)
    std::printf("runs 2..%zu: median %.3f ms\n", times.size(), median_of({times.begin() + 1, times.end()}));
  std::vector<std::string> artifacts;  // "what: where", for the closing line
  if (const std::string dir = session->profiling_dir(); !dir.empty()) {
    if (Status s = session->finish_profiling(); !s.ok()) return fail(s.with_context("profiling"));
    auto data = profiling::load_report_data(dir);
    if (!data.ok()) return fail(data.status());
    std::cout << "\nprofiling data: " << dir << "\n";
    print_top_ops(*data, 10);
    std::cout << "report: " << dir << "/mindstudio_profiler_output/report.html\n";
    artifacts.push_back("profiling data " + dir);
  }
  if (const std::string dir = session->dump_dir(); !dir.empty()) {
    if (Status s = session->flush_dump(); !s.ok()) return fail(s.with_context("dump"));
    std::cout << "dump: " << dir << "\n";
    artifacts.push_back("dump " + dir);
  }
  if (!output_dir->empty()) {
    auto written = write_outputs(*session, *outputs, *output_dir, *format);
    if (!written.ok()) return fail(written.status());
    created_outputs.keep = true;
    artifacts.push_back(std::to_string(written->size()) +
                        (written->size() == 1 ? " output file in " : " output files in ") +
                        fs::absolute(*output_dir).lexically_normal().string());
  }
  const std::vector<std::string> own = {output_dir->empty() ? ""
                                                            : fs::absolute(*output_dir).lexically_normal().string()};
  print_artifacts_line(artifacts_written_since(*options->config, started, own), artifacts);
  return 0;
}

}  // namespace openge::cli
