// The AOE knowledge base: which kernel variant won the measurement for an operator, keyed by
// everything that decides the winner (op type, input and output dtypes and shapes, which inputs
// are constant, attributes, thread count, and the platform: this CPU's features and the oneDNN
// version), so that any later compile of any model with the same operator reuses it.
//
// One JSON file, aoe_knowledge_base.json, in the aoe_data folder of the spec's chain
// (aoe_config.work_path > ASCEND_WORK_PATH/aoe_data > working directory; docs/DECISIONS.md):
//   {"format": "openge.aoe_knowledge_base", "version": 1,
//    "entries": {<key>: {"op_type", "variant", "default_us", "tuned_us"[, "passes_off"]}, ...},
//    "digest": "sha256:<hex of the entries' compact JSON>"}
// A file that does not parse, has another format or version, a wrong digest (truncated, edited,
// bit rot) or an entry that does not read back is corrupt: load() says why and gives an empty
// base, the next tuning run rebuilds it. Saving merges what another process saved meanwhile,
// under a file lock, and writes to a temporary name renamed into place.
#pragma once
#include <map>
#include <vector>
#include <string>

#include "ops/kernel.h"
#include "openge/status.h"

namespace openge::options {
class OptionSet;
}

namespace openge::aoe {

struct KnowledgeEntry {
  std::string op_type;    // kSubgraphEntry for a whole graph's entry (aoe_mode 1), kGradientSplitEntry (aoe_mode 4)
  KernelVariant variant;  // operators: the winning variant
  std::vector<std::string> passes_off;  // subgraphs: the passes the winner compiles without
  double default_us = 0;                // the default variant's median time when it was measured
  double tuned_us = 0;                  // the winner's
  std::vector<int64_t> split_by_index;  // gradient splits: each bucket's last gradient index
};

inline constexpr const char* kKnowledgeBaseFile = "aoe_knowledge_base.json";
inline constexpr const char* kSubgraphEntry = "Subgraph";
inline constexpr const char* kGradientSplitEntry = "GradientSplit";
// A subgraph entry's choice (in passes_off, beside the pass names) of aoe_config_file's
// nonhomo_split: the graph runs without uniform work splits, its parallel loops cut tapered
// chunks (base/parallel.h, WorkSplit).
inline constexpr const char* kUniformWorkSplitChoice = "UniformWorkSplit";

// The key of a node's kernel at `threads` threads on this platform (node names are not in it).
std::string knowledge_key(const KernelRequest& request, int threads);
// The key of a whole graph (aoe_mode 1), after inference and constant folding and before any
// pass: its structure, attributes, dtypes and shapes (not names, not constant data), the thread
// count and the platform.
std::string subgraph_key(const Graph& graph, int threads);
// The key of a data-parallel training job's gradient split (aoe_mode 4): its trained parameters
// (names and sizes, in order), the rank count, the threads per rank and the platform.
std::string gradient_split_key(const std::vector<std::string>& params, const std::vector<int64_t>& elements, int ranks,
                               int threads);
// This CPU's features and the oneDNN version, as the keys carry them.
const std::string& platform_id();

class KnowledgeBase {
 public:
  // Reads `path`. Never fails: a missing file is an empty base; a corrupt one, or one another
  // user could have written (base/trusted_path.h), is an empty base whose problem() says why.
  static KnowledgeBase load(const std::string& path);

  const std::string& path() const { return path_; }
  bool existed() const { return existed_; }
  const std::string& problem() const { return problem_; }  // "" when the file was sound or absent
  const KnowledgeEntry* find(const std::string& key) const;
  void put(const std::string& key, const KnowledgeEntry& entry) { entries_[key] = entry; }
  size_t size() const { return entries_.size(); }

  // Writes the base (its folder must exist), keeping entries another process saved since load().
  Status save() const;

  // The file's text for `entries` (what save() writes).
  static std::string serialize(const std::map<std::string, KnowledgeEntry>& entries);

 private:
  std::string path_;
  bool existed_ = false;
  std::string problem_;
  std::map<std::string, KnowledgeEntry> entries_;
};

}  // namespace openge::aoe
