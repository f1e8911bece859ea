// What a compile takes from the session's configuration: typed settings and resolved artifact
// paths, resolved once when the session (or trainer, or offline compile) opens
// (session/compile_config_resolver.h). The pipeline's stages read these fields and never the
// option set, so a compile depends on its arguments only and two sessions cannot mix settings.
// Each field names the options it comes from; docs/OPTIONS.md says what they do.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aoe/tuned_selection.h"
#include "compiler/online_compiler.h"
#include "graph_dump/graph_dumper.h"
#include "passes/pass_selection.h"
#include "precision/precision_pass.h"

namespace openge::compiler {

struct CompileConfig {
  // The graph rewrites. Both are unset for a compiled model (.oge), whose rewrites are done.
  // Each pass of all_passes() on or off (fusion_switch_file, enable_scope_fusion_passes); also
  // unset when the session runs no fusion pass.
  std::optional<std::vector<passes::PassChoice>> pass_choices;
  // precision_mode(_v2), mixlists, keep_dtype, customize_dtypes, op_precision_mode,
  // op_select_implmode, soc_version …, with the files they name loaded and checked.
  std::optional<precision::PrecisionSetup> precision;
  // The options the pass choice and the precision setup read: they shaped the compiled graph (a
  // .oge records their values).
  std::set<std::string> shaping_options;
  // enable_small_channel: whether the user set it, and whether it is 1 (passes/pass_context.h).
  bool small_channel_user_set = false;
  bool small_channel_on = false;
  // fusion_result.json (the pass statistics).
  paths::ResolvedPath fusion_result{paths::ArtifactKind::kFusionResult, "", true, "", ""};
  // DUMP_GE_GRAPH, DUMP_GRAPH_LEVEL and the dump folder.
  graph_dump::GraphDumpSettings graph_dump;
  // aoe_config.*: mode as the options say (4 is judged per compile: a Trainer's graph only), the
  // knowledge base's folder, repetitions (aoe.ini RUN_LOOP), the aoe_config_file's selection.
  aoe::TuningSettings tuning;
  // jit_compile, NPU_COLLECT_PATH, CXX, op_debug_level / op_debug_config, the compile cache.
  JitConfig jit;
  // The compile-cache folder the thread calibration is kept in ("": none, the default grain).
  std::string grain_cache_root;
  int64_t threading_grain_cycles = 0;   // threading_grain_cycles; 0: measured
  int64_t stream_sync_timeout_ms = -1;  // stream_sync_timeout; -1: unset
  int atomic_clean_policy = 0;          // memory_config.atomic_clean_policy
  std::string stream_max_parallel_num;  // stream_max_parallel_num as written ("" unset)
  bool deterministic = false;           // deterministic=1
};

}  // namespace openge::compiler
