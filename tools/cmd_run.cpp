#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "frontend/tensor_proto.h"
#include "io/npy.h"
#include "model_inputs.h"
#include "frontend/value_proto.h"
#include "output_summary.h"
#include "latency_stats.h"
#include "session_flags.h"
#include "profile_summary.h"
#include "profiling/report.h"
#include "base/file_modes.h"

namespace openge::cli {
namespace fs = std::filesystem;

namespace {

std::vector<FlagSpec> run_flags() {
  std::vector<FlagSpec> flags = {
    {"model", "M.onnx", "model to run: ONNX, or a .oge from openge compile (default: the bundled demo model)"},
    {"input", "NAME=FILE", "input tensor from a .npy or .pb (ONNX TensorProto) file", true},
    {"inputs", "DIR", "read DIR/input_<i>.pb for the i-th graph input"},
    {"outputs", "DIR", "write DIR/output_<i>.pb and .npy for the i-th graph output"},
    {"seed", "N", "seed for random inputs (default 0)"},
    {"iterations", "N", "run the model N times (default 1); the first run includes compilation"},
  };
  for (auto& f : session_flag_specs()) flags.push_back(f);
  return flags;
}

// The outputs are published as a set: each file is written to "<name>.tmp.<pid>" first, and all
// are renamed into place while this process holds an flock on the folder, so processes writing
// into the same --outputs never leave a .pb of one run beside a .npy of another. A killed run's
// temporaries are removed by the next write into the folder (io/stale_temporaries.h).
Status write_outputs(const Session& session, const std::vector<Tensor>& outputs, const std::string& dir) {
  OPENGE_RETURN_IF_ERROR(make_directories(dir, kFolderMode).with_context("--outputs " + dir));
  const std::string pending_suffix = ".tmp." + std::to_string(::getpid());
  std::vector<std::string> finals;
  auto discard = [&] {
    for (const std::string& f : finals) ::unlink((f + pending_suffix).c_str());
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string base = (fs::path(dir) / ("output_" + std::to_string(i))).string();
    finals.push_back(base + ".pb");
    Status s = write_value_pb(outputs[i], session.outputs()[i].name, finals.back() + pending_suffix);
    // .npy holds numbers: a sequence, an optional or strings exist only as .pb.
    if (s.ok() && outputs[i].is_tensor() && outputs[i].dtype() != DType::kString) {
      finals.push_back(base + ".npy");
      s = write_npy(outputs[i], finals.back() + pending_suffix);
    }
    if (!s.ok()) return discard(), s;
  }
  const int folder = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0 || ::flock(folder, LOCK_EX) != 0) {
    const Status s = io_error("--outputs " + dir + ": cannot lock the folder: " + std::strerror(errno));
    if (folder >= 0) ::close(folder);
    return discard(), s;
  }
  Status published = Status::Ok();
  for (const std::string& f : finals)
    if (published.ok() && ::rename((f + pending_suffix).c_str(), f.c_str()) != 0)
      published = io_error("--outputs: cannot rename " + f + pending_suffix + " to " + f + ": " + std::strerror(errno));
  ::close(folder);  // releases the flock
  if (!published.ok()) discard();
  return published;
}

int fail(const Status& s) { return report_error("run", s); }

}  // namespace

int cmd_run(int argc, char** argv) {
  const std::vector<FlagSpec> flags = run_flags();
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage("openge run [--model M.onnx] [--input NAME=FILE]... [--inputs DIR] [--outputs DIR] [--iterations N] [--profile]",
                       "Runs a model (--iterations N times) and prints each output's name, dtype, shape and a summary.\n"
                       "Inputs not given get seeded random data, and the run says so.",
                       flags);
    return 0;
  }
  auto seed = args->get_int("seed", 0, 0, 1 << 30);
  if (!seed.ok()) return fail(seed.status());
  auto iterations = args->get_int("iterations", 1, 1, 1000000);
  if (!iterations.ok()) return fail(iterations.status());
  // Options are validated before the model is touched: a bad configuration fails fast.
  CreatedFolder created;
  auto options = session_options_from_flags("run", *args, created);
  if (!options) return 1;

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
  std::printf("run time: %.3f ms (first run, includes compilation); nodes: %d AI Core, %d AI CPU; "
              "peak intermediate memory: %.2f MiB planned + %.2f MiB dynamic\n",
              times[0], info.aicore_nodes, info.aicpu_nodes, info.arena_bytes / 1048576.0, info.peak_dynamic_bytes / 1048576.0);
  if (times.size() > 1)
    std::printf("runs 2..%zu: median %.3f ms\n", times.size(), median_of({times.begin() + 1, times.end()}));
  if (const std::string dir = session->profiling_dir(); !dir.empty()) {
    if (Status s = session->finish_profiling(); !s.ok()) return fail(s.with_context("profiling"));
    auto data = profiling::load_report_data(dir);
    if (!data.ok()) return fail(data.status());
    std::cout << "\nprofiling data: " << dir << "\n";
    print_top_ops(*data, 10);
    std::cout << "report: " << dir << "/mindstudio_profiler_output/report.html\n";
  }
  if (const std::string dir = session->dump_dir(); !dir.empty()) {
    if (Status s = session->flush_dump(); !s.ok()) return fail(s.with_context("dump"));
    std::cout << "dump: " << dir << "\n";
  }
  if (args->has("outputs")) {
    if (Status s = write_outputs(*session, *outputs, args->get("outputs")); !s.ok()) return fail(s);
    std::cout << "outputs written to " << args->get("outputs") << "\n";
  }
  return 0;
}

}  // namespace openge::cli
