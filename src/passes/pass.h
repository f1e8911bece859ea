// Graph passes run after inference and constant folding, before kernel selection. Each pass
// has the name that CANN's fusion_switch_file uses for it, so switching one off is a lookup in
// this table, and the pass manager counts how often each matched (fusion_result.json).
#pragma once
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "passes/pass_context.h"
#include "openge/status.h"

namespace openge {

struct PassResult {
  int matched = 0;  // patterns found
  int applied = 0;  // rewrites done
};

// Who may turn a pass off (pass_selection.h; OPT-fusion_switch_file-3..8, AMB-15 in
// docs/DECISIONS.md).
enum class PassSwitch {
  kFusionSwitch,  // on by default; fusion_switch_file turns it off by name or with "ALL":"off"
  kAlwaysOn,      // not a fusion rule the user may turn off (a layout choice)
  // Scope fusion passes (OPT-enable_scope_fusion_passes-2..4): CANN runs them in its model parser,
  // outside fusion_switch_file's reach; enable_scope_fusion_passes chooses the Non-General ones.
  kScopeGeneral,     // always on, the user cannot turn it off
  kScopeNonGeneral,  // off unless enable_scope_fusion_passes names it
};

// Whether fusion_switch_file decides if the pass runs.
inline bool fusion_switch_controls(PassSwitch c) { return c == PassSwitch::kFusionSwitch; }
// Whether the pass runs when no option names it.
inline bool on_by_default(PassSwitch c) { return c != PassSwitch::kScopeNonGeneral; }

struct Pass {
  std::string_view name;  // e.g. "ConvBatchnormFusionPass"
  std::string_view kind;  // "graph" (GE graph fusion) or "ub" (buffer fusion)
  // Rewrites `graph` in place. Values keep their inferred dtype/shape/constant; a rewrite
  // must leave the graph valid (every consumer's input produced, outputs intact). `context`: the
  // compile's settings for the passes (passes/pass_context.h).
  Result<PassResult> (*run)(Graph& graph, const PassContext& context);
  PassSwitch control = PassSwitch::kFusionSwitch;
  // Runs after the precision pass, on the dtypes it chose (CANN's UB fusion of vector ops
  // follows op selection); the others run before it.
  bool after_precision = false;
};

// The passes in the order they run.
const std::vector<Pass>& all_passes();

}  // namespace openge
