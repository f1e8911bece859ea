// Exception dump (enable_exception_dump, NPU_COLLECT_PATH; NPU-6..13, ENV-26/27): when an
// operator fails during a run (its kernel reports bad data, its run-time inference fails, or
// stream_sync_timeout expires while it runs), its inputs, outputs and workspace are written, in
// the Data Dump file layout (dump_file.h, docs/FORMATS.md, "Data Dump: file layout"; the workspace is one OpBuffer), to
//   <NPU_COLLECT_PATH | ASCEND_WORK_PATH | working directory>/extra-info/data-dump/<device_id>/
//       {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp_us}
// with every missing folder created 0700 (the files hold user data, NPU-7). Level 1 (L1, the
// ordinary exception dump) also logs the op, its engine and each tensor's dtype, shape and format
// to the plog (NPU-13); level 2 (L0, lite) logs one line naming the op and the file. Both levels
// write the same file, workspace included (CANN's brief dump holds inputs, outputs and
// workspace). The workspace is the scratchpad a oneDNN kernel ran in
// (CompiledKernel::last_workspace); the reference and AI CPU kernels have none, and their files
// hold no buffer. The write is synchronous: it happens only on the failing path, and the file
// must exist when run() returns. Decisions: docs/DECISIONS.md (AMB-25, DISC-2/3).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ops/kernel.h"
#include "runtime/node_failure_hook.h"
#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {
struct CompiledNode;
namespace options {
class OptionSet;
}
}  // namespace openge

namespace openge::dump {

class ExceptionDumper : public NodeFailureHook {
 public:
  enum class Level { kL1 = 1, kLite = 2 };

  // Null when enable_exception_dump is 0 (NPU_COLLECT_PATH makes it 1 unless the user set it).
  static std::shared_ptr<const ExceptionDumper> from_options(const options::OptionSet& options);

  // Dumps node `index` of a run that failed with `failure` (outputs may be empty when the op
  // failed before they were allocated; `workspace` is empty when its kernel has none or did not
  // run) and returns `failure` naming the dump file, or saying why the dump could not be
  // written: the operator's error always stays the error of the run.
  Status on_node_failed(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                        const std::vector<const Tensor*>& outputs, KernelWorkspace workspace,
                        const Status& failure) const override;

  Level level() const { return level_; }
  // <tier>/extra-info/data-dump/<device_id>
  const std::string& folder() const { return folder_; }

 private:
  ExceptionDumper(Level level, std::string folder, std::string rule)
      : level_(level), folder_(std::move(folder)), rule_(std::move(rule)) {}
  void log(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
           const std::vector<const Tensor*>& outputs, KernelWorkspace workspace, const std::string& file) const;

  Level level_;
  std::string folder_;
  std::string rule_;  // the chain's tier that chose the folder
};

}  // namespace openge::dump
