// Resident memory of N sessions of one model in one process, with or without external_weight:
// each session is opened and run once (so its compiled graph and kernels
// exist), then the process's VmRSS (/proc/self/status) and Pss (/proc/self/smaps_rollup, which
// splits each shared page among its mappings) are read. Run once per configuration, each in a
// fresh process.
//
// Usage: openge_external_weight_memory MODEL.onnx [--sessions N] [--external] [--threads T]
// Prints one JSON line.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "openge/session.h"
#include "options/option_builder.h"

namespace {

using namespace openge;

int die(const std::string& what) {
  std::fprintf(stderr, "openge_external_weight_memory: %s\n", what.c_str());
  return 1;
}

// The value in kB of the line "<key>:  <n> kB" of a /proc file, or -1.
long proc_kb(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::atol(line.c_str() + key.size() + 1);
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return die("usage: openge_external_weight_memory MODEL.onnx [--sessions N] [--external] [--threads T]");
  const std::string model = argv[1];
  int sessions = 2, threads = 1;
  bool external = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sessions" && i + 1 < argc)
      sessions = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--external")
      external = true;
    else
      return die("unknown argument " + a);
  }
  options::OptionInputs in;
  in.flags.push_back({"external_weight", external ? "True" : "False", "bench"});
  auto config = options::build_option_set(in);
  if (!config.ok()) return die(config.status().message());
  SessionOptions so;
  so.num_threads = threads;
  so.config = std::make_shared<const options::OptionSet>(std::move(config.value()));
  const long rss_start = proc_kb("/proc/self/status", "VmRSS");
  std::vector<std::unique_ptr<Session>> open;
  for (int s = 0; s < sessions; ++s) {
    auto session = Session::open(model, so);
    if (!session.ok()) return die(session.status().message());
    std::vector<Tensor> inputs;
    for (const auto& info : (*session)->inputs()) {
      Shape shape = info.shape;
      for (auto& d : shape) d = d < 0 ? 1 : d;
      inputs.emplace_back(info.dtype, shape);
    }
    auto out = (*session)->run(inputs);
    if (!out.ok()) return die(out.status().message());
    open.push_back(std::move(session.value()));
  }
  std::printf(
      "{\"model\": \"%s\", \"sessions\": %d, \"external_weight\": %s, \"threads\": %d, \"rss_start_kb\": %ld, "
      "\"vmrss_kb\": %ld, \"rss_anon_kb\": %ld, \"rss_file_kb\": %ld, \"pss_kb\": %ld, \"pss_anon_kb\": %ld, "
      "\"pss_file_kb\": %ld}\n",
      model.c_str(), sessions, external ? "true" : "false", threads, rss_start, proc_kb("/proc/self/status", "VmRSS"),
      proc_kb("/proc/self/status", "RssAnon"), proc_kb("/proc/self/status", "RssFile"),
      proc_kb("/proc/self/smaps_rollup", "Pss"), proc_kb("/proc/self/smaps_rollup", "Pss_Anon"),
      proc_kb("/proc/self/smaps_rollup", "Pss_File"));
  return 0;
}
