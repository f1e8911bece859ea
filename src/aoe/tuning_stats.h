// What AOE did in one compile: knowledge-base hits (any compile) and, in a tuning run
// (aoe_mode 2), each operator's measurement. Executable::tuning_stats() hands it out; the
// tuning record (tuning_record.h) is written from it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/kernel_variant.h"

namespace openge::aoe {

struct OperatorTuning {
  std::string name, op_type;
  KernelVariant before, after;  // the default variant, and the one the node runs
  double before_us = 0, after_us = 0;
  bool knowledge_base_hit = false;  // taken from the knowledge base, not measured now
};

struct TuningStats {
  bool tuning = false;                               // aoe_mode 2: operators were measured in this compile
  int tunable_operators = 0;                         // nodes of tunable op types with static shapes
  int knowledge_base_hits = 0;                       // of those, how many took their variant from the base
  int measured_operators = 0;                        // how many were measured in this compile
  std::string knowledge_base_path;                   // "" when no base was looked up
  std::string knowledge_base_problem;                // why the file on disk was ignored ("" when sound or absent)
  std::vector<OperatorTuning> operators;             // tuning runs: every tuned or hit operator
  double model_before_ms = -1, model_after_ms = -1;  // tuning runs: whole-model medians (-1: not measured)
  double tuning_seconds = 0;
  // aoe_mode 1 (subgraph tuning): the graph's key, the passes the chosen compile ran without,
  // whether that choice came from the knowledge base, and each candidate's model time.
  struct SubgraphCandidate {
    std::vector<std::string> passes_off;
    double model_ms = 0;
  };
  bool subgraph_tuning = false;
  bool subgraph_hit = false;
  std::vector<std::string> passes_off;
  std::vector<SubgraphCandidate> subgraph_candidates;
  // aoe_mode 4 (gradient-split tuning of data-parallel training): each measured split with its
  // median step time (the ranks' mean), and the split chosen.
  struct SplitCandidate {
    std::vector<int64_t> split_by_index;
    double step_ms = 0;
  };
  std::vector<SplitCandidate> split_candidates;
  std::vector<int64_t> split_by_index;
  int ranks = 0;
  std::string record_path;  // the aoe_result_*.json written, "" if none
};

}  // namespace openge::aoe
