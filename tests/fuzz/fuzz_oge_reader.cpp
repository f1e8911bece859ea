// libFuzzer target for the compiled-model reader (.oge, src/oge/oge_file.h). The input gets a
// valid digest appended, so that the fuzzer explores the reader behind the digest check (a
// random mutation of a real .oge is caught by the digest alone): any byte string must come back
// as a Graph or as one error naming the source, never as a crash, hang, leak or undefined
// behaviour. Run it with tests/fuzz/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "oge/oge_file.h"

namespace {
const std::string kSource = "fuzz.oge";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string sealed = openge::oge::seal_oge(std::string(reinterpret_cast<const char*>(data), size));
  auto model = openge::oge::parse_oge(sealed.data(), sealed.size(), kSource);
  if (!model.ok()) {
    if (model.status().message().find(kSource) == std::string::npos) {
      std::fprintf(stderr, "error message does not name the model: %s\n", model.status().message().c_str());
      std::abort();
    }
    return 0;
  }
  // A graph read back must be internally consistent: every index in range.
  const auto& g = model->graph;
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
