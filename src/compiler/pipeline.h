// The compile pipeline: a loaded Graph and one concrete shape per input become a run-only
// Executable (runtime/executable.h). The stages, in order, each in its own file of compiler/:
//   bind input shapes               pipeline.cpp
//   shape inference and folding     infer_and_fold.cpp   (or, for a .oge, the check of its types)
//   passes, precision, dead nodes   graph_rewrite.cpp    (AOE's subgraph choice read first)
//   kernel selection                kernel_selection.cpp (AI Core, tuned variants, online kernels)
//   memory plan and run steps       memory_layout.cpp
//   tuning record                   aoe_tuning.cpp       (aoe_mode 2: the model timed both ways)
//   thread plan                     thread_plan.cpp      (a small graph timed with and without the team)
// aoe_mode 1 compiles the graph once per candidate and keeps the fastest (aoe_tuning.cpp).
#pragma once
#include <memory>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/compile_report.h"
#include "runtime/executable.h"

namespace openge::compiler {

// `input_shapes` gives one concrete shape per graph input (graph order). `report`, when given,
// receives what the compile decided beyond the Executable (compiler/compile_report.h).
Result<std::unique_ptr<Executable>> compile(Graph graph, const std::vector<Shape>& input_shapes,
                                            const CompileOptions& options, CompileReport* report = nullptr);

// The same, for callers that keep both: the Executable and its compile's report.
struct Compilation {
  std::unique_ptr<Executable> executable;
  CompileReport report;
};
Result<Compilation> compile_with_report(Graph graph, const std::vector<Shape>& input_shapes,
                                        const CompileOptions& options);

}  // namespace openge::compiler
