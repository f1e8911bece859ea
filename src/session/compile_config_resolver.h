// The session's options resolved into the typed configuration a compile receives
// (compiler/compile_config.h): once, when a Session, a Trainer or an offline compile opens. Each
// component reads its own options here (its resolver lives beside it: load_precision_setup,
// choose_passes, resolve_tuning_settings, resolve_jit_config, graph_dump_settings …), artifact
// paths are resolved here, and every problem is reported together, before the first compile.
#pragma once
#include <memory>

#include "compiler/compile_config.h"
#include "openge/status.h"

namespace openge::options {
class OptionSet;
}

namespace openge {

struct CompileConfigScope {
  bool rewrites = true;    // false: a compiled model (.oge), whose passes and precision pass are done
  bool run_passes = true;  // false: the session runs no fusion pass (fusion_switch_file is not read)
};

// Every component's configuration, or one error naming each option (or file) that is wrong.
// The options that shaped the graph are recorded as read on `options`, as the compile used to.
Result<std::shared_ptr<const compiler::CompileConfig>> resolve_compile_config(const options::OptionSet& options,
                                                                              CompileConfigScope scope = {});

}  // namespace openge
