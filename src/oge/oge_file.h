// The compiled-model file (.oge) that `openge compile` writes, ATC's offline model for OpenGE:
// the graph after inference, constant folding, the fusion passes and the precision pass, as an
// ONNX ModelProto (docs/ARCHITECTURE.md, "Compiled models"):
// - nodes keep their attributes; the IR's internal domain "openge" (fused ops, channels-last
//   forms) is domain "ai.openge"; the precision pass's choices and the fusion record are the attributes
//   `_aicpu_only`, `_impl_mode`, `_fused_from` (as in graph dumps);
// - every value carries its dtype and shape; constants are initializers in their final dtype;
// - metadata_props hold the header (OgeHeader), debug sections included;
// - the last bytes are one more metadata_props entry, "openge.digest" = "sha256:<hex>", the
//   SHA-256 of every byte before it. Appending a field keeps the file a valid ModelProto (Netron
//   and onnx open it), and the digest is checked on the exact bytes before anything is parsed.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace openge::oge {

// Bumped whenever the encoding of the graph or the header changes.
inline constexpr int kFormatVersion = 1;
// The domain of the ops OpenGE's passes make that ONNX does not define.
inline constexpr const char* kInternalDomain = "ai.openge";

struct OgeHeader {
  int format_version = kFormatVersion;
  std::string engine_version;                  // OpenGE's version when written
  std::vector<std::string> cpu_features;       // of the CPU it was compiled on (base/cpu_features.h)
  std::map<std::string, std::string> options;  // the options that shaped the graph, with their values
  bool fusion_passes = true;                   // SessionOptions.run_passes of the compile
  std::string source_model;                    // file name of the model it was compiled from
  // Debug sections (name -> text) compiled in under NPU_COLLECT_PATH (NPU-8,
  // session/oge_debug_info.h); metadata "openge.debug.<name>". Running the model ignores them.
  std::map<std::string, std::string> debug;
  // The generated kernels, built by openge compile for one x86-64 level (compiler/prebuilt_kernels.h):
  // kernel name -> shared object. Empty when the graph has none or no compiler was at hand.
  std::string kernel_isa;
  std::map<std::string, std::string> kernels;
};

// This engine's version (CMake's PROJECT_VERSION).
std::string engine_version();
// A header for this engine and this CPU (options and source left empty).
OgeHeader current_header();

// The .oge bytes of a compiled graph (no subgraphs: If, Loop and Scan are refused).
Result<std::string> serialize_oge(const Graph& graph, const OgeHeader& header);

// `model_bytes` (a serialized ModelProto) with the digest trailer appended: what the writer ends
// with, and how tests and the fuzzer make files whose digest holds.
std::string seal_oge(std::string model_bytes);

struct OgeModel {
  Graph graph;  // every value typed, constants in place, nodes in topological order
  OgeHeader header;
};
// Checks the digest first, then reads the header and the graph. A truncated, corrupt or hostile
// file is one error naming `source_name` and saying to recompile; never a crash.
Result<OgeModel> parse_oge(const void* data, size_t size, const std::string& source_name);

// The same from a file (at most 2 GiB).
Result<OgeModel> read_oge_file(const std::string& path);

// A .oge by its name (".oge") or by the marker its first bytes carry (a .oge in memory).
bool looks_like_oge(const void* data, size_t size, const std::string& name);
// A file named *.oge, or whose first bytes carry the marker (a .oge renamed).
bool file_looks_like_oge(const std::string& path);

}  // namespace openge::oge
