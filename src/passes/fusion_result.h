// fusion_result.json (ENV-31/32, OPT-fusion_switch_file-9, docs/FORMATS.md, "fusion_result.json"): FE's record of
// the fusion rules that acted on each compiled graph, at ASCEND_WORK_PATH/FE/<pid>/ or ./.
// One JSON object (indent 4) with a key "session_and_graph_id_<session>_<graph>" per graph
// compiled by this process; under it "graph_fusion" and "ub_fusion" map each pass that matched
// at least once to string counters: match_times and effect_times, plus repository_hit_times for
// UB passes (always "0": no fusion repository here). Passes switched off never appear, like
// passes that found nothing (CANN records only non-zero counts). A graph whose passes all found
// nothing still gets its (empty) key, so every compile leaves a trace.
//
// The first graph of the process replaces a file left by an earlier process (CANN clears it at
// start); later graphs are added to it, and only the last kMaxFusionResultGraphs graphs of the
// process are kept (a session compiling for ever new input shapes would otherwise grow the file
// and this process's copy of it by one entry per compile). Each write replaces the whole file
// atomically.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "openge/status.h"
#include "paths/artifact_paths.h"

namespace openge::passes {

inline constexpr size_t kMaxFusionResultGraphs = 64;

struct FusionCount {
  std::string_view pass;
  std::string_view kind;  // "graph" or "ub"
  int matched = 0;
  int applied = 0;
};

// Adds the graph's entry to the file `where` (paths::ArtifactKind::kFusionResult, resolved when the
// session opened) and rewrites it. Errors name the file and the rule that chose it; the compile logs them as
// warnings and goes on (docs/DECISIONS.md).
Status write_fusion_result(const paths::ResolvedPath& where, int graph_id, const std::vector<FusionCount>& counts);

}  // namespace openge::passes
