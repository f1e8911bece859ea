// NPU-8: a model compiled (openge compile) while NPU_COLLECT_PATH is set carries extra debug
// information in its .oge, which makes the file larger (docs/DECISIONS.md, "NPU-8"):
//   compile  the compile's record: every node of the compiled graph with the model nodes it was
//            made from (none for a node the compile inserted, such as a layout Transpose), its
//            inputs and outputs, and the precision pass's choice and rule; the fusion passes
//            that applied; the precision warnings
//   kernels  for every fused vector node, the kernel the online compiler builds for it when the
//            .oge loads: its name, its C++ source and the source-line-to-model-node map (what
//            op_debug_config dump_cce and dump_loc keep in kernel_meta)
// Each section is JSON text in the header's `debug` map (oge_file.h); `openge compile --info`
// prints them. Running the .oge does not read them.
#pragma once
#include <map>
#include <set>
#include <string>

#include "openge/status.h"

namespace openge {

class Executable;
struct CompileReport;
namespace compiler {
struct CompileConfig;
}

// The debug sections of `exe` (compiled up to the rewrites, for fixed shapes) from the model whose
// node names are `model_nodes`; none when NPU_COLLECT_PATH is not set in `config`'s online-compile settings.
Result<std::map<std::string, std::string>> oge_debug_sections(const Executable& exe, const CompileReport& report,
                                                              const std::set<std::string>& model_nodes,
                                                              const compiler::CompileConfig* config);

}  // namespace openge
