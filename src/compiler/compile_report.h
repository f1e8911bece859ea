// What a compile decided that a run does not need: what the passes did, what the precision pass
// chose and ignored, which options shaped the graph, and what AOE measured. The compile pipeline
// hands it out beside the Executable (compiler/pipeline.h) for logs, reports and .oge files.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "aoe/tuning_stats.h"
#include "precision/precision_pass.h"

namespace openge {

struct PassStat {
  std::string name;
  int matched = 0;
  int applied = 0;
};

struct CompileReport {
  std::vector<PassStat> pass_stats;
  // What the precision pass decided for each node (empty when the session has no configuration).
  std::vector<precision::PrecisionDecision> precision_decisions;
  // Settings the precision pass ignored, and why (customize_dtypes under must_keep_origin_dtype …).
  std::vector<std::string> precision_warnings;
  // The options the graph rewrites (passes, precision) read: the ones that shaped the graph.
  std::set<std::string> shaping_options;
  // What AOE did in this compile: knowledge-base hits, and in a tuning run each operator's times.
  aoe::TuningStats tuning_stats;
  // The graph's key in the AOE knowledge base (aoe/knowledge_base.h subgraph_key); "" without a
  // configuration.
  std::string subgraph_key;
};

}  // namespace openge
