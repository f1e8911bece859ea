// What a caller asks of a compile (compiler/pipeline.h). The session fills it from its options.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/thread_plan.h"
#include "passes/pass_context.h"
#include "runtime/node_failure_hook.h"

namespace openge {

namespace compiler {
struct CompileConfig;
struct PrebuiltKernels;
}  // namespace compiler

// Which stages of a compile run (docs/ARCHITECTURE.md, "Compiled models").
enum class CompileStages {
  kAll,          // infer and fold, passes, precision; kernel selection and memory plan
  kRewriteOnly,  // the graph rewrites only (openge compile: the result goes into a .oge)
  kPrecompiled,  // a graph read from a .oge, rewritten already: its types are checked by infer,
                 // then kernel selection and memory plan; no pass runs
};

struct CompileOptions {
  int num_threads = 0;  // 0: one per core
  // Nodes estimated below this many cycles run on the calling thread; 0: measured at compile
  // from the team's fork/join cost (compiler/op_grain.h). Tests pin it.
  int64_t threading_grain_cycles = 0;
  bool use_aicore = true;  // false: every node on the reference engine
  bool run_passes = true;
  // May the layout pass give whole-block regions NC1HWC0 (passes/pass_context.h): by the cost
  // table (the default), or fixed by tests and bench/layout_ab.cpp. Subgraphs get the same.
  passes::Nc1hwc0Regions nc1hwc0_regions = passes::Nc1hwc0Regions::kByCpu;
  // The ISA and format cost table the layout and precision passes decide by; unset: this CPU's
  // (kernels/conv_format_costs.h). Tests price other CPUs with it. Subgraphs get the same.
  std::optional<IsaCosts> isa_costs;
  CompileStages stages = CompileStages::kAll;
  // The session's configuration, resolved when it opened (compiler/compile_config.h): precision,
  // passes, dumps, tuning, online compile …; null: every default, and no precision pass.
  std::shared_ptr<const compiler::CompileConfig> config;
  // Drop the constants that kernels packed into their own buffers (packed_constant_release.h):
  // for a caller that will not read the compiled graph's constants. Not passed to subgraphs.
  bool release_packed_constants = false;
  // AOE operator tuning (aoe_config.aoe_mode 2): timed runs per candidate and for the model's
  // before/after times; 0: the default (aoe/tuned_selection.h).
  int aoe_repetitions = 0;
  // Set: a candidate of AOE subgraph tuning (aoe_mode 1), compiled without these passes; the
  // knowledge base's subgraph entry is not consulted and no tuning nests inside.
  std::optional<std::vector<std::string>> aoe_passes_off;
  // The knowledge base is read but nothing is tuned, whatever aoe_mode says (subgraphs of If /
  // Loop / Scan, compiled while the model runs).
  bool aoe_lookup_only = false;
  // A Trainer's graph: aoe_mode 4 (gradient-split tuning) is the Trainer's own, measured over
  // training steps (session/data_parallel.cpp); the compile tunes nothing for it.
  bool training_graph = false;
  // Whether the runs use the thread team at all (compiler/thread_plan.h): timed at compile for a
  // small graph with a measured grain, or fixed by the caller.
  ThreadPlanChoice thread_plan = ThreadPlanChoice::kCalibrate;
  // Told of a node that fails during a run (the session's exception dump, enable_exception_dump);
  // null: nothing but the error. Subgraphs get the same hook.
  std::shared_ptr<const NodeFailureHook> failure_hook;
  // The generated kernels a compiled model (.oge) carries (compiler/prebuilt_kernels.h): loaded
  // instead of built when this CPU runs them; null: none.
  std::shared_ptr<const compiler::PrebuiltKernels> prebuilt_kernels;
};

}  // namespace openge
