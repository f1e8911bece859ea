// The kernel-selection strategy AOE adds (aoe_config.*, ENV-2..4): Executable::select_kernels
// asks it for each AI Core node's kernel.
// - Every compile looks the node up in the knowledge base (knowledge_base.h) of the aoe_data
//   folder; a hit builds the stored variant (counted in TuningStats::knowledge_base_hits).
// - aoe_mode 2 (operator tuning): a node that misses, of a tunable type (tuning_space.h) and
//   selected by aoe_config_file (tune_ops_name / tune_ops_type; every node without one), is
//   measured with every candidate variant on its real shapes; the fastest is built and stored.
// - aoe_mode 1 (subgraph tuning) is compiler::tune_subgraphs (compiler/aoe_tuning.cpp);
//   aoe_mode 4 (gradient-split tuning) is a Trainer's, measured over data-parallel training steps
//   (session/data_parallel.cpp); a compile tunes nothing for it.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "aoe/knowledge_base.h"
#include "aoe/tuning_stats.h"
#include "base/progress_bar.h"
#include "ops/kernel.h"
#include "paths/artifact_paths.h"

namespace openge::options {
class OptionSet;
}

namespace openge::aoe {

struct TuningSettings {
  int mode = 0;                  // 0: no tuning; 1: subgraph tuning; 2: operator tuning (4 as resolved: gradient split)
  int repetitions = 10;          // timed runs per candidate (O1: twice as many)
  bool optimization_o1 = false;  // tune_optimization_level O1: twice the repetitions
  std::vector<std::string> tune_ops_name, tune_ops_type;  // empty: every tunable node
  bool deeper_opat = false;  // feature deeper_opat: the wider candidate set (tuning_space.h)
  // feature nonhomo_split: subgraph tuning (aoe_mode 1) also measures the chosen compile with
  // tapered work splits (knowledge_base.h, kUniformWorkSplitChoice).
  bool nonhomo_split = false;
  // Where records and the knowledge base live (path "" without a configuration: no lookups).
  paths::ResolvedPath aoe_data{paths::ArtifactKind::kAoeData, "", false, "", ""};
};

// Reads aoe_config.aoe_mode, aoe_config.work_path (through the aoe_data chain, which also
// holds the knowledge base) and aoe_config.aoe_config_file.
// `repetitions` > 0 overrides the default (tests keep measurements short). aoe_mode 4 tunes
// nothing at compile: for a Trainer's graph (`training_graph`) the Trainer tunes the gradient
// split; for any other graph it is an error (inference has no gradients to aggregate).
Result<TuningSettings> read_tuning_settings(const options::OptionSet* config, int repetitions,
                                            bool training_graph = false);
// The two halves of read_tuning_settings: what the options say, resolved once when the session
// opens (mode 4 kept as 4), and the settings of one compile (`repetitions` and `training_graph`
// as above).
Result<TuningSettings> resolve_tuning_settings(const options::OptionSet& config);
Result<TuningSettings> tuning_for_compile(const TuningSettings& resolved, int repetitions, bool training_graph);

class TunedSelection {
 public:
  // Builds a node's kernel for a variant, under the thread plan given.
  using Build = std::function<Result<std::unique_ptr<CompiledKernel>>(const KernelRequest&, bool single_thread)>;
  struct Choice {
    std::unique_ptr<CompiledKernel> kernel;  // null: no AI Core kernel
    bool single_thread = false;
  };

  TunedSelection(TuningSettings settings, int threads);

  // Call once before select(): how many nodes may be tuned (the progress bar's length).
  void begin(int tunable_nodes);
  // The kernel for node `index` (`label` names it in messages); `grain_single` is the grain
  // table's thread decision, the default.
  Result<Choice> select(size_t index, KernelRequest& request, bool grain_single, const Build& build);
  // Saves the knowledge base after a tuning run that measured something.
  Status finish();

  const TuningSettings& settings() const { return settings_; }
  TuningStats& stats() { return stats_; }
  // Tuning runs: the default kernels of the nodes whose variant differs, for the model's
  // before-timing (node index -> kernel and thread plan).
  std::map<size_t, Choice>& defaults() { return defaults_; }

 private:
  bool selected(const Node& node) const;
  Result<Choice> measure(size_t index, KernelRequest& request, bool grain_single, const Build& build,
                         const std::string& key);

  TuningSettings settings_;
  int threads_;
  KnowledgeBase kb_;
  bool kb_changed_ = false;
  TuningStats stats_;
  std::map<size_t, Choice> defaults_;
  std::optional<ProgressBar> progress_;
};

}  // namespace openge::aoe
