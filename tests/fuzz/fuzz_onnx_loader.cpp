// libFuzzer target for the ONNX loader: any byte string must come back as a Graph or as an error
// Status naming the source, never as a crash, hang, leak or undefined behaviour (the target is
// built with -fsanitize=fuzzer,address,undefined). Run it with tests/fuzz/run_fuzz.sh.
// It also checks the loader's split parse against protobuf's own: whenever the split takes the
// bytes apart, the model without weights plus the weights put back is exactly the whole parse.
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/initializer_split.h"
#include "frontend/onnx_loader.h"

namespace {
// External data resolves against a folder that does not exist, so a mutated location cannot
// make the fuzzer read the files of the machine it runs on; path checks are still exercised.
const std::string kBaseDir = "/nonexistent-openge-fuzz-dir";
const std::string kSource = "fuzz.onnx";
void check_split_against_whole_parse(const uint8_t* data, size_t size) {
  auto split = openge::split_initializer_bytes(data, size);
  if (!split) return;
  onnx::ModelProto whole, stripped;
  const bool whole_ok = whole.ParseFromArray(data, static_cast<int>(size));
  if (stripped.ParseFromString(split->model_without_weights) != whole_ok) std::abort();
  if (!whole_ok) return;
  if (stripped.has_graph()) {
    auto* graph = stripped.mutable_graph();
    if (static_cast<size_t>(graph->initializer_size()) != split->raw_data.size()) std::abort();
    for (int i = 0; i < graph->initializer_size(); ++i)
      if (const auto& r = split->raw_data[static_cast<size_t>(i)])
        graph->mutable_initializer(i)->set_raw_data(reinterpret_cast<const char*>(data) + r->offset, r->size);
  }
  if (stripped.SerializeAsString() != whole.SerializeAsString()) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_split_against_whole_parse(data, size);
  auto graph = openge::load_onnx_from_bytes(data, size, kSource, kBaseDir);
  if (!graph.ok()) {
    // Every refusal must say which model it is about.
    if (graph.status().message().find(kSource) == std::string::npos) {
      std::fprintf(stderr, "error message does not name the model: %s\n", graph.status().message().c_str());
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
