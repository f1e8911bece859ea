// Graph passes run after inference and constant folding, before kernel selection. Each pass
// has the name that CANN's fusion_switch_file uses for it, so switching one off is a lookup in
// this table, and the pass manager counts how often each matched (fusion_result.json).
#pragma once
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"

namespace openge {

struct PassResult {
  int matched = 0;  // patterns found
  int applied = 0;  // rewrites done
};

struct Pass {
  std::string_view name;      // e.g. "ConvBatchnormFusionPass"
  std::string_view kind;      // "graph" (GE graph fusion) or "ub" (buffer fusion)
  // Rewrites `graph` in place. Values keep their inferred dtype/shape/constant; a rewrite
  // must leave the graph valid (every consumer's input produced, outputs intact).
  Result<PassResult> (*run)(Graph& graph);
};

// The passes in the order they run.
const std::vector<Pass>& all_passes();

}  // namespace openge
