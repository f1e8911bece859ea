// The compile pipeline (compiler/pipeline.h): the stages in order, and the subgraph compiler the
// runtime's control-flow nodes use.
#include "compiler/pipeline.h"

#include <algorithm>
#include <chrono>

#include <omp.h>

#include "aoe/tuned_selection.h"
#include "autodiff/training_graph.h"
#include "base/guard.h"
#include "base/omp_threads.h"
#include "compiler/compile_config.h"
#include "compiler/compile_log.h"
#include "compiler/executable_builder.h"
#include "compiler/in_place_updates.h"
#include "compiler/precision_report.h"
#include "graph_dump/graph_dumper.h"
#include "passes/channels_last_layout_pass.h"
#include "runtime/control_flow.h"
#include "runtime/run_state.h"  // complete for the state pool, which new Executable() may destroy

namespace openge::compiler {
namespace {

class PipelineSubgraphCompiler final : public SubgraphCompiler {
 public:
  explicit PipelineSubgraphCompiler(CompileOptions options) : options_(std::move(options)) {
    // A subgraph is compiled again for each new set of input shapes, from the same graph.
    options_.release_packed_constants = false;
    // Subgraphs are compiled while the model runs: they use the AOE knowledge base but never tune
    // (a tuning run is the main graph's compile).
    options_.aoe_lookup_only = true;
  }
  Result<std::unique_ptr<Executable>> compile(Graph graph, const std::vector<Shape>& input_shapes) const override {
    return compiler::compile(std::move(graph), input_shapes, options_);
  }

 private:
  CompileOptions options_;
};

}  // namespace

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::shared_ptr<const SubgraphCompiler> subgraph_compiler(CompileOptions options) {
  return std::make_shared<PipelineSubgraphCompiler>(std::move(options));
}

ExecutableBuilder::ExecutableBuilder(Graph graph, const CompileOptions& options)
    : exe_(new Executable()), options_(options) {
  exe_->graph_ = std::move(graph);
  // oneDNN fixes a primitive's thread count when it is created: compile with the thread count
  // the runs will have, or a 1-thread session still wakes a second thread inside its kernels.
  // 0: the calling thread's OpenMP setting, which the runs then keep.
  exe_->num_threads_ = options.num_threads > 0 ? options.num_threads : omp_get_max_threads();
  // The grain: the caller's, else option threading_grain_cycles, else the machine's calibration
  // (compiler/grain_calibration.h).
  const int64_t pinned_grain = options.threading_grain_cycles > 0 ? options.threading_grain_cycles
                               : options.config                   ? options.config->threading_grain_cycles
                                                                  : 0;
  if (pinned_grain > 0) exe_->grain_.cycles = pinned_grain;
  // Read by select_kernels when the first node whose decision depends on it comes up: a graph of
  // only tiny or only large nodes does not read (or, on a new machine, make) the calibration.
  grain_pending_ = pinned_grain <= 0 && exe_->num_threads_ > 1;
  exe_->failure_hook_ = options.failure_hook;
  if (options.config) exe_->stream_sync_timeout_ms_ = options.config->stream_sync_timeout_ms;
}

std::string ExecutableBuilder::grain_cache_root() const {
  return options_.config ? options_.config->grain_cache_root : "";
}

Status ExecutableBuilder::bind_input_shapes(const std::vector<Shape>& input_shapes) {
  Graph& g = exe_->graph_;
  if (input_shapes.size() != g.inputs.size())
    return invalid_argument("the model has " + std::to_string(g.inputs.size()) + " inputs but " +
                            std::to_string(input_shapes.size()) + " shapes were given");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    const Shape& given = input_shapes[i];
    if (v.kind != ValueKind::kTensor) continue;  // a sequence or optional has no shape
    // A symbolic dimension makes it a dynamic-shape model (jit_compile=auto, OPT-jit_compile-2).
    if (!v.shape || std::any_of(v.shape->begin(), v.shape->end(), [](int64_t d) { return d < 0; }))
      dynamic_model_ = true;
    if (v.shape) {
      bool compatible = v.shape->size() == given.size();
      for (size_t d = 0; compatible && d < given.size(); ++d)
        compatible = (*v.shape)[d] < 0 || (*v.shape)[d] == given[d];
      if (!compatible)
        return invalid_argument("input '" + v.name + "' has shape " + shape_to_string(given) +
                                " but the model declares " + shape_to_string(*v.shape) + " (-1 = any size)");
    }
    v.shape = given;
  }
  return Status::Ok();
}

Result<std::unique_ptr<Executable>> ExecutableBuilder::build(const std::vector<Shape>& input_shapes) {
  const CompileOptions& options = options_;
  ScopedNumThreads threads(exe_->num_threads_);
  OPENGE_RETURN_IF_ERROR(bind_input_shapes(input_shapes));
  const Graph& g = exe_->graph_;
  // DUMP_GE_GRAPH: one dump per stage (graph_dump/graph_dumper.h); nothing without it.
  graph_dump::GraphDumper dump(options.config ? &options.config->graph_dump : nullptr);
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterLoad));
  if (options.stages == CompileStages::kPrecompiled)
    OPENGE_RETURN_IF_ERROR(check_precompiled().with_context("compiled model " + g.source));
  else
    OPENGE_RETURN_IF_ERROR(rewrite(dump));
  OPENGE_RETURN_IF_ERROR(order_in_place_updates(exe_->graph_).with_context("model " + g.source));
  if (options.stages == CompileStages::kRewriteOnly) return std::move(exe_);
  // The final graph dump and an exception dump write constants (weights included): then nothing
  // is dropped.
  release_packed_constants_ = options.release_packed_constants && !exe_->failure_hook_ && !dump.active();
  // AOE (aoe_config.*): the knowledge base's variants, and operator tuning under aoe_mode 2.
  const double select_start = now_seconds();
  auto tuning_settings = aoe::tuning_for_compile(options.config ? options.config->tuning : aoe::TuningSettings{},
                                                 options.aoe_repetitions, options.training_graph);
  if (!tuning_settings.ok()) return tuning_settings.status().with_context("model " + g.source);
  if (options.aoe_lookup_only) tuning_settings->mode = 0;
  aoe::TunedSelection tuning(std::move(tuning_settings.value()), exe_->num_threads_);
  OPENGE_RETURN_IF_ERROR(select_kernels(tuning).with_context("model " + g.source));
  plan_memory_layout();
  exe_->value_formats_ = passes::stored_formats(exe_->graph_);
  OPENGE_RETURN_IF_ERROR(finish_tuning(tuning, select_start).with_context("model " + g.source));
  choose_thread_plan(options.thread_plan);
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kFinal));
  // The precision report beside the dumps (docs/DECISIONS.md).
  if (options.config && dump.active())
    OPENGE_RETURN_IF_ERROR(dump.write_beside(
        "PrecisionReport.json", precision_report_json(precision_records(*exe_, report_), report_.precision_warnings)));
  log_compile_decisions(*exe_, report_, options.use_aicore);
  return std::move(exe_);
}

Result<std::unique_ptr<Executable>> compile(Graph graph, const std::vector<Shape>& input_shapes,
                                            const CompileOptions& options, CompileReport* report) {
  // Exceptions (bad_alloc, oneDNN's dnnl::error, a tensor over the size limit) become errors.
  const std::string source = graph.source;  // `graph` is moved from inside
  return guard_exceptions(
      [&]() -> Result<std::unique_ptr<Executable>> {
        // aoe_mode 1: subgraph tuning compiles the graph several times and keeps the fastest.
        if (options.stages == CompileStages::kAll && options.run_passes && !options.aoe_passes_off &&
            !options.aoe_lookup_only && options.config && options.config->tuning.mode == 1)
          return tune_subgraphs(std::move(graph), input_shapes, options, report);
        // ai.onnx.preview.training's Gradient: replaced by the backward nodes autodiff builds.
        if (autodiff::has_gradient_nodes(graph)) {
          auto expanded = autodiff::expand_gradient_nodes(std::move(graph), input_shapes);
          if (!expanded.ok()) return expanded.status();
          graph = std::move(expanded.value());
        }
        ExecutableBuilder builder(std::move(graph), options);
        auto exe = builder.build(input_shapes);
        if (exe.ok() && report) *report = std::move(builder.report());
        return exe;
      },
      [&] { return "model " + source; });
}

Result<Compilation> compile_with_report(Graph graph, const std::vector<Shape>& input_shapes,
                                        const CompileOptions& options) {
  Compilation c;
  auto exe = compile(std::move(graph), input_shapes, options, &c.report);
  if (!exe.ok()) return exe.status();
  c.executable = std::move(exe.value());
  return c;
}

}  // namespace openge::compiler
