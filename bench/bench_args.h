// The command line the in-process benchmarks share: MODEL.onnx [INPUT.npy] [--threads N]
// [--rounds R] [--warmup W] [--option NAME=VALUE ...], and the input they run (the .npy, or
// zeros of the model's input).
#pragma once
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "io/npy.h"
#include "ir/graph.h"

namespace openge::bench {

struct BenchArgs {
  std::string model, input_path;
  int threads = 1, rounds = 40, warmup = 5;
  std::vector<std::pair<std::string, std::string>> options;  // --option NAME=VALUE, in order
};

inline BenchArgs parse_bench_args(int argc, char** argv, int default_rounds) {
  BenchArgs a;
  a.rounds = default_rounds;
  if (argc > 1) a.model = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (arg == "--threads")
      a.threads = next();
    else if (arg == "--rounds")
      a.rounds = next();
    else if (arg == "--warmup")
      a.warmup = next();
    else if (arg == "--option" && i + 1 < argc) {
      const std::string kv = argv[++i];
      const size_t eq = kv.find('=');
      a.options.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    } else
      a.input_path = arg;
  }
  return a;
}

// The .npy at `path`, or zeros shaped as `graph`'s first input.
inline Result<Tensor> bench_input(const Graph& graph, const std::string& path) {
  if (!path.empty()) return read_npy(path);
  const Value& v = graph.values[static_cast<size_t>(graph.inputs.at(0))];
  return Tensor(v.dtype, v.shape.value_or(Shape{}));
}

}  // namespace openge::bench
