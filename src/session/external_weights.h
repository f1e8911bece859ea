// external_weight=True (OPT-external_weight-1..8, ENV-28..30): when a Session opens a model, the
// data of every initializer and Constant node of its main graph is written to one file per
// tensor in tmp_weight_<pid>_<sessionid>/ (ASCEND_WORK_PATH > working directory, DISC-1), mapped
// back read-only (MAP_SHARED), and the graph's tensors become views of the mappings: the heap
// copies the loader made are freed; each weight then comes out of a FileConstant node. A second
// Session of the same model in the process hard-links the first one's files for the tensors
// whose bytes are equal, so both map the same pages.
// The folder (0700) is removed when the Session is unloaded, when opening fails, at exit() and
// on SIGINT / SIGTERM (base/temp_folder_guard.h). Decisions: docs/DECISIONS.md (AMB-24).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"

namespace openge {

namespace options {
class OptionSet;
}
class MappedFile;
class TempFolderGuard;

class ExternalWeights {
 public:
  // Null when external_weight is False. The graph is changed only when every file was written
  // and mapped; on an error nothing remains on disk. as_file_constants: each initializer becomes
  // the output of a FileConstant node naming its file (ops/generator/file_constant.h); false for a
  // .oge's graph, which is compiled without folding (its nodes would run).
  static Result<std::unique_ptr<ExternalWeights>> externalize(Graph& graph, const options::OptionSet& options,
                                                              bool as_file_constants = true);
  // Must outlive every tensor view of the mappings (the Session's graph and compiled graphs);
  // unmaps them and removes the folder.
  ~ExternalWeights();

  const std::string& folder() const;
  size_t tensor_count() const { return mappings_.size(); }
  size_t linked_count() const { return linked_; }  // files shared with another session

 private:
  ExternalWeights() = default;
  std::unique_ptr<TempFolderGuard> guard_;
  std::vector<std::shared_ptr<const MappedFile>> mappings_;
  size_t linked_ = 0;
};

}  // namespace openge
