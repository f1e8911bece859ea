// libFuzzer target for the ONNX loader: any byte string must come back as a Graph or as an error
// Status naming the source, never as a crash, hang, leak or undefined behaviour (the target is
// built with -fsanitize=fuzzer,address,undefined). Run it with tests/fuzz/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/onnx_loader.h"

namespace {
// External data resolves against a folder that does not exist, so a mutated location cannot
// make the fuzzer read the files of the machine it runs on; path checks are still exercised.
const std::string kBaseDir = "/nonexistent-openge-fuzz-dir";
const std::string kSource = "fuzz.onnx";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto graph = openge::load_onnx_from_bytes(data, size, kSource, kBaseDir);
  if (!graph.ok()) {
    // Every refusal must say which model it is about.
    if (graph.status().message().find(kSource) == std::string::npos) {
      std::fprintf(stderr, "error message does not name the model: %s\n",
                   graph.status().message().c_str());
      std::abort();
    }
    return 0;
  }
  // A loaded graph must be internally consistent: every index in range.
  const auto& g = graph.value();
  const int n_values = static_cast<int>(g.values.size());
  for (const auto& node : g.nodes) {
    for (int v : node.inputs)
      if (v < -1 || v >= n_values) std::abort();
    for (int v : node.outputs)
      if (v < -1 || v >= n_values) std::abort();
  }
  for (int v : g.inputs)
    if (v < 0 || v >= n_values) std::abort();
  for (int v : g.outputs)
    if (v < 0 || v >= n_values) std::abort();
  return 0;
}
