// The online compiler (jit_compile): generates, builds and loads the kernels of the nodes the
// UB fusion pass made (FusedElementwise), for one compiled graph.
//
//   jit_compile true   every fused node gets a generated kernel
//   jit_compile false  none: the prebuilt kernels run (the reference kernels, no compiler run)
//   jit_compile auto   online for a static-shape model, prebuilt for a dynamic-shape one (a graph
//                      input declared with a symbolic dimension), OPT-jit_compile-2
//   NPU_COLLECT_PATH   forces online compile whatever jit_compile says (NPU-14, AMB-27)
//
// Identical kernels of one graph (BERT's twelve GELUs) are built once; the builds run in parallel
// on the thread pool, with a progress bar on a terminal. Every build goes through the operator
// compile cache (op_cache.h: op_compiler_cache_mode / op_compiler_cache_dir), so a kernel built
// once, by this or another process, is loaded without running the compiler. op_debug_level /
// op_debug_config bypass the cache (OPT-op_compiler_cache_mode-9) and build straight into
// kernel_meta (kernel_meta.h) with their debug switches. With NPU_COLLECT_PATH, a copy of each
// kernel's binary and its .json go to NPU_COLLECT_PATH/op_compile (NPU-15).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen_eltwise.h"
#include "compiler/op_cache.h"
#include "compiler/prebuilt_kernels.h"
#include "ops/kernel.h"
#include "options/config_files.h"
#include "paths/artifact_paths.h"

namespace openge::options {
class OptionSet;
}

namespace openge::compiler {

// Whether kernels are compiled online, and which rule decided (for the compile log).
struct JitDecision {
  bool online = false;
  std::string reason;
};
// op_debug_level and op_debug_config, as the online compiler applies them.
struct DebugSettings {
  int level = 0;
  options::OpDebugConfig config;
  int64_t check_flag_timeout_ms = 10000;  // check_flag's wait: stream_sync_timeout when set (docs/DECISIONS.md)
  bool any() const { return level != 0 || !config.flags.empty(); }
  bool keep_source() const { return level == 1 || level == 2 || level == 4 || config.has("dump_cce"); }
  bool keep_loc() const { return level == 1 || level == 2 || config.has("dump_loc"); }
  bool keep_compute() const { return level == 4; }
  bool no_optimization() const { return level == 2 || config.has("ccec_O0"); }
  bool debug_info() const { return level == 2 || config.has("ccec_g"); }
};
Result<DebugSettings> read_debug_settings(const options::OptionSet& config);

// What the options say about online compilation, resolved once when the session opens
// (session/compile_config_resolver.h); a default JitConfig is a session without options.
struct JitConfig {
  std::string mode = "auto";     // jit_compile
  bool npu_collect = false;      // NPU_COLLECT_PATH is set: operators are compiled online
  std::string compiler = "g++";  // CXX
  DebugSettings debug;
  paths::ResolvedPath kernel_meta{paths::ArtifactKind::kKernelMeta, "", false, "", ""};  // with debug settings
  // The operator compile cache, unless debug settings bypass it; unset without options.
  std::optional<CacheSettings> cache;
  paths::ResolvedPath collect{paths::ArtifactKind::kCollectCompile, "", false, "", ""};  // NPU_COLLECT_PATH
};
Result<JitConfig> resolve_jit_config(const options::OptionSet& config);

JitDecision decide_jit(const JitConfig& config, bool dynamic_model);

// What one graph compile does about online compilation: the JitConfig and the graph decide.
struct JitSettings {
  JitDecision decision;
  DebugSettings debug;
  std::string compiler;                                                                  // CXX, default g++
  paths::ResolvedPath kernel_meta{paths::ArtifactKind::kKernelMeta, "", false, "", ""};  // debug builds go here
  // The operator compile cache; absent when debug settings bypass it, or without options (no
  // folder to use: builds then go to a private folder of the process and nothing is kept).
  std::optional<CacheSettings> cache;
  // NPU_COLLECT_PATH set: each kernel's binary (a copy) and .json are collected here ("": not set).
  paths::ResolvedPath collect{paths::ArtifactKind::kCollectCompile, "", false, "", ""};
  // The kernels a compiled model (.oge) carries, built for a level this CPU runs: loaded instead
  // of built, so no compiler runs (null: none). Debug settings and NPU_COLLECT_PATH build online.
  std::shared_ptr<const PrebuiltKernels> prebuilt;
};
JitSettings jit_settings_for(const JitConfig& config, bool dynamic_model);

// One node to compile: its program, and the shapes of its inputs and output.
struct KernelRequest {
  const Node* node = nullptr;
  std::vector<Shape> input_shapes;
  std::vector<std::string> input_names;
  Shape output_shape;
};

struct KernelBuildCounts {
  int kernels = 0;          // distinct kernels
  int compiled = 0;         // built by the compiler now
  int cached = 0;           // served from the operator compile cache
  int prebuilt = 0;         // loaded from the compiled model (.oge) without a compiler
  double milliseconds = 0;  // wall time of the whole online compile of the graph
};

// The kernel the online compiler would build for `request` under `settings`, without building
// it: its name, its C++ source and the source-to-graph map (what dump_cce and dump_loc keep in
// kernel_meta). `openge compile` embeds these in the .oge under NPU_COLLECT_PATH (NPU-8).
struct KernelSource {
  std::string kernel_name;
  std::string source;
  std::vector<SourceLoc> locs;
};
Result<KernelSource> describe_kernel(const KernelRequest& request, const JitSettings& settings);

// A compiled model's kernels for a compile under `settings`: used when the compile builds online
// and this CPU runs their level. Debug settings and NPU_COLLECT_PATH still build online (their
// files come from the build). When this CPU does not run the level, the fused nodes run their
// reference kernels, with one warning: the binaries would stop at an illegal instruction.
void use_prebuilt_kernels(JitSettings& settings, std::shared_ptr<const PrebuiltKernels> kernels);

// The fused nodes of a compiled graph (whose value shapes are all known) as kernel requests.
std::vector<KernelRequest> fused_kernel_requests(const Graph& graph);

// openge compile: builds the distinct kernels of `requests` for the highest x86-64 level this CPU
// runs (prebuilt_kernels.h), through the operator compile cache, or into kernel_meta with their
// debug files under debug settings, and returns their binaries for the .oge. An empty set when
// this CPU runs none of the levels.
Result<PrebuiltKernels> prebuild_kernels(const std::vector<KernelRequest>& requests, const JitSettings& settings);

// One kernel per request (same order). `codegen` is for tests (the oom test's planted access).
Result<std::vector<std::unique_ptr<CompiledKernel>>> compile_kernels(const std::vector<KernelRequest>& requests,
                                                                     const JitSettings& settings,
                                                                     const CodegenOptions* test_codegen = nullptr,
                                                                     KernelBuildCounts* report = nullptr);

}  // namespace openge::compiler
