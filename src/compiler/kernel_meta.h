// kernel_meta: the debug files of online compilation, in debug_dir > ASCEND_WORK_PATH > ./
// (paths::ArtifactKind::kKernelMeta, ENV-17..23): per kernel <name>.so (the binary, CANN's .o),
// <name>.json (its description: binFileName, binFileSuffix, kernelName, sha256 of the binary,
// blockDim, workspace, compile flags …), and as op_debug_level / op_debug_config ask,
// <name>.cce (the generated source), <name>_loc.json (source line -> model node) and
// <name>_compute.json (the UB fusion's compute description). Every file is written atomically.
#pragma once
#include <string>
#include <vector>

#include "compiler/codegen_eltwise.h"
#include "openge/status.h"

namespace openge::compiler {

struct KernelMetaFiles {
  std::string kernel_name;
  std::string so_path;  // the built binary (already in kernel_meta)
  std::string source;   // the generated source
  std::vector<SourceLoc> locs;
  std::vector<std::string> flags;
  std::string compiler, compiler_version;
  int block_dim = 1;
  const EltwiseKernelSpec* spec = nullptr;
};

// Writes <name>.json, and <name>.cce / _loc.json / _compute.json when asked.
Status write_kernel_meta(const std::string& dir, const KernelMetaFiles& files, bool keep_source, bool keep_loc,
                         bool keep_compute);

}  // namespace openge::compiler
