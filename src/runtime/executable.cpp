#include "runtime/executable.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <optional>

#include <omp.h>

#include "aoe/knowledge_base.h"
#include "aoe/tuned_selection.h"
#include "aoe/tuning_space.h"
#include "graph_dump/graph_dumper.h"
#include "runtime/precision_report.h"
#include "logging/log.h"
#include "passes/channels_last_layout_pass.h"
#include "passes/fusion_result.h"
#include "passes/pass.h"
#include "passes/pass_selection.h"
#include "runtime/compile_log.h"
#include "runtime/control_flow.h"
#include "runtime/memory_plan.h"
#include "ops/node_eval.h"
#include "runtime/branch_schedule.h"
#include "runtime/op_grain.h"
#include "base/omp_threads.h"
#include "base/parallel.h"
#include "compiler/online_compiler.h"
#include "ops/fused_elementwise.h"
#include "options/option_set.h"
#include "base/aligned_memory.h"
#include "runtime/packed_constant_release.h"
#include "runtime/run_state.h"  // complete for the state pool's destructor

namespace openge {
namespace {

// Folding larger results would trade a run-time op for a big constant nobody asked for.
constexpr size_t kMaxFoldBytes = size_t{64} << 20;

ValueInfo info_of(const Value& v) {
  ValueInfo info;
  info.dtype = v.dtype;
  info.shape_known = shape_is_static(v.shape);
  if (info.shape_known) info.shape = *v.shape;
  info.value = v.constant ? &*v.constant : nullptr;
  info.kind = v.kind;
  return info;
}

// What infer sees of a node's inputs: one ValueInfo per input, and pointers to them (null for an
// omitted optional input). `infos` owns what `ptrs` points at.
void input_infos(const Graph& g, const Node& node, std::vector<ValueInfo>& infos,
                 std::vector<const ValueInfo*>& ptrs) {
  infos.assign(node.inputs.size(), ValueInfo{});
  ptrs.assign(node.inputs.size(), nullptr);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] < 0) continue;
    infos[i] = info_of(g.values[static_cast<size_t>(node.inputs[i])]);
    ptrs[i] = &infos[i];
  }
}

}  // namespace

Result<std::unique_ptr<Executable>> Executable::compile(Graph graph, const std::vector<Shape>& input_shapes,
                                                        const CompileOptions& options) {
  // Exceptions (bad_alloc, oneDNN's dnnl::error, a tensor over the size limit) become errors.
  const std::string source = graph.source;  // `graph` is moved from inside
  return guard_exceptions([&]() -> Result<std::unique_ptr<Executable>> {
  // aoe_mode 1: subgraph tuning compiles the graph several times and keeps the fastest.
  if (options.stages == CompileStages::kAll && options.run_passes && !options.aoe_passes_off &&
      !options.aoe_lookup_only && options.config && options.config->get("aoe_config.aoe_mode") == "1")
    return tune_subgraphs(std::move(graph), input_shapes, options);
  std::unique_ptr<Executable> exe(new Executable());
  exe->graph_ = std::move(graph);
  // oneDNN fixes a primitive's thread count when it is created: compile with the thread count
  // the runs will have, or a 1-thread session still wakes a second thread inside its kernels.
  // 0: the calling thread's OpenMP setting, which the runs then keep.
  exe->num_threads_ = options.num_threads > 0 ? options.num_threads : omp_get_max_threads();
  ScopedNumThreads threads(exe->num_threads_);
  // The grain: the caller's, else option threading_grain_cycles, else measured (runtime/op_grain.h).
  const int64_t pinned_grain = options.threading_grain_cycles > 0 ? options.threading_grain_cycles
                               : options.config ? options.config->get_int("threading_grain_cycles", 0)
                                                : 0;
  if (pinned_grain > 0) exe->grain_.cycles = pinned_grain;
  // Measured by select_kernels when the first node whose decision depends on it comes up: a graph
  // of only tiny or only large nodes does not pay the 10 ms probe.
  exe->grain_pending_ = pinned_grain <= 0 && exe->num_threads_ > 1;
  exe->failure_hook_ = options.failure_hook;
  if (options.config) {
    exe->stream_sync_timeout_ms_ = options.config->get_int("stream_sync_timeout", -1);
  }
  Graph& g = exe->graph_;
  if (input_shapes.size() != g.inputs.size())
    return invalid_argument("the model has " + std::to_string(g.inputs.size()) + " inputs but " +
                            std::to_string(input_shapes.size()) + " shapes were given");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    const Shape& given = input_shapes[i];
    if (v.kind != ValueKind::kTensor) continue;  // a sequence or optional has no shape
    // A symbolic dimension makes it a dynamic-shape model (jit_compile=auto, OPT-jit_compile-2).
    if (!v.shape || std::any_of(v.shape->begin(), v.shape->end(), [](int64_t d) { return d < 0; }))
      exe->dynamic_model_ = true;
    if (v.shape) {
      bool compatible = v.shape->size() == given.size();
      for (size_t d = 0; compatible && d < given.size(); ++d)
        compatible = (*v.shape)[d] < 0 || (*v.shape)[d] == given[d];
      if (!compatible)
        return invalid_argument("input '" + v.name + "' has shape " + shape_to_string(given) + " but the model declares " +
                                shape_to_string(*v.shape) + " (-1 = any size)");
    }
    v.shape = given;
  }
  // DUMP_GE_GRAPH: one dump per stage (graph_dump/graph_dumper.h); nothing without it.
  graph_dump::GraphDumper dump(options.config.get());
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterLoad));
  if (options.stages == CompileStages::kPrecompiled)
    OPENGE_RETURN_IF_ERROR(exe->check_precompiled().with_context("compiled model " + g.source));
  else
    OPENGE_RETURN_IF_ERROR(exe->rewrite(options, dump));
  if (options.stages == CompileStages::kRewriteOnly) return exe;
  // The final graph dump and an exception dump write constants (weights included): then nothing
  // is dropped.
  exe->release_packed_constants_ = options.release_packed_constants && !exe->failure_hook_ && !dump.active();
  // AOE (aoe_config.*): the knowledge base's variants, and operator tuning under aoe_mode 2.
  const double select_start = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto tuning_settings = aoe::read_tuning_settings(options.config.get(), options.aoe_repetitions);
  if (!tuning_settings.ok()) return tuning_settings.status().with_context("model " + g.source);
  if (options.aoe_lookup_only) tuning_settings->mode = 0;
  aoe::TunedSelection tuning(std::move(tuning_settings.value()), exe->num_threads_);
  OPENGE_RETURN_IF_ERROR(exe->select_kernels(options, tuning).with_context("model " + g.source));
  exe->plan_memory_layout();
  exe->value_formats_ = passes::stored_formats(exe->graph_);
  OPENGE_RETURN_IF_ERROR(exe->finish_tuning(tuning, select_start).with_context("model " + g.source));
  exe->choose_thread_plan(options.thread_plan);
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kFinal));
  // The precision report beside the dumps (issue 9 item 8; docs/DECISIONS.md).
  if (options.config && dump.active())
    OPENGE_RETURN_IF_ERROR(dump.write_beside(
        "PrecisionReport.json", precision_report_json(precision_records(*exe), exe->precision_warnings())));
  log_compile_decisions(*exe, options.use_aicore);
  return exe;
  }, [&] { return "model " + source; });
}

Status Executable::rewrite(const CompileOptions& options, graph_dump::GraphDumper& dump) {
  Graph& g = graph_;
  OPENGE_RETURN_IF_ERROR(infer_and_fold().with_context("model " + g.source));
  OPENGE_RETURN_IF_ERROR(check_declared_outputs().with_context("model " + g.source));
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterInferShape));
  // AOE subgraph tuning's choice of passes: a candidate's own, else the knowledge base's.
  if (options.aoe_passes_off) {
    passes_off_ = *options.aoe_passes_off;
    subgraph_key_ = aoe::subgraph_key(g, num_threads_);
  } else if (options.config && options.run_passes) {
    read_tuned_passes(*options.config);
  }
  // What the rewrites read shaped the graph (a .oge records it): the pass selection and the
  // precision pass read a copy of the session's options, whose read record starts empty; the
  // session's own set is then told of each read, so that its record of what engine code consumed
  // stays whole. Artifacts (fusion_result.json, dumps) read the session's set itself.
  std::optional<options::OptionSet> shaping;
  if (options.config) shaping.emplace(*options.config);
  const options::OptionSet* shaping_config = shaping ? &*shaping : nullptr;
  if (options.run_passes)
    OPENGE_RETURN_IF_ERROR(run_passes(dump, shaping_config, options.config.get(), /*after_precision=*/false)
                               .with_context("model " + g.source));
  remove_dead_nodes();
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterPrune));
  if (shaping) {
    OPENGE_RETURN_IF_ERROR(apply_precision(*shaping).with_context("model " + g.source));
    OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterPrecision));
  }
  // UB fusion (TbeEltwiseFusionPass) follows the precision pass, as CANN's follows op selection.
  if (options.run_passes)
    OPENGE_RETURN_IF_ERROR(run_passes(dump, shaping_config, options.config.get(), /*after_precision=*/true)
                               .with_context("model " + g.source));
  if (!shaping) return Status::Ok();
  shaping_options_ = shaping->options_read();
  for (const std::string& name : shaping_options_) options.config->find(name);
  return Status::Ok();
}

Status Executable::infer_and_fold() {
  Graph& g = graph_;
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  std::vector<Node> sorted;
  sorted.reserve(g.nodes.size());
  for (int n : *order) sorted.push_back(std::move(g.nodes[static_cast<size_t>(n)]));
  g.nodes = std::move(sorted);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int out : g.nodes[n].outputs)
      if (out >= 0) g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);

  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    const OpSchema* schema = find_op_schema(node.op_type);
    if (!schema) return unsupported("node " + g.node_label(static_cast<int>(n)) + ": op is not supported");
    std::vector<ValueInfo> infos;
    std::vector<const ValueInfo*> ptrs;
    input_infos(g, node, infos, ptrs);
    bool all_constant = true;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] >= 0) all_constant = all_constant && infos[i].value;
    InferContext ctx(node, g.opset, ptrs, node.outputs.size());
    OPENGE_RETURN_IF_ERROR(run_infer(*schema, ctx));
    size_t out_bytes = 0;
    bool holds_no_constant = false;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] < 0) continue;
      Value& v = g.values[static_cast<size_t>(node.outputs[o])];
      const ValueInfo& info = ctx.output(o);
      v.kind = info.kind;
      v.dtype = info.dtype;
      v.shape = info.shape_known ? std::optional<Shape>(info.shape) : std::nullopt;
      // Constants are tensors of numbers (graph dumps write them as initializers).
      if (info.kind != ValueKind::kTensor || info.dtype == DType::kString) holds_no_constant = true;
      if (o < ctx.folded().size() && ctx.folded()[o].defined()) v.constant = ctx.folded()[o];
      if (info.shape_known) out_bytes += static_cast<size_t>(shape_numel(info.shape)) * dtype_size(info.dtype);
    }
    const bool foldable = !schema->fold_only_when_seeded || node.attrs.find("seed");
    // A control-flow node is never folded here: its subgraphs run only through the executor.
    if (all_constant && foldable && !holds_no_constant && out_bytes <= kMaxFoldBytes && !has_subgraph(node)) {
      std::vector<const Tensor*> inputs;
      for (const ValueInfo* p : ptrs) inputs.push_back(p ? p->value : nullptr);
      auto folded = evaluate_node(node, g.opset, inputs);
      if (!folded.ok()) return folded.status();
      for (size_t o = 0; o < node.outputs.size(); ++o)
        if (node.outputs[o] >= 0) g.values[static_cast<size_t>(node.outputs[o])].constant = std::move((*folded)[o]);
    }
  }
  return Status::Ok();
}

Status Executable::check_precompiled() {
  // The rewrites ran when the .oge was compiled; only infer runs here, as a check that every
  // stored type is what its node computes from its inputs, so that a file not written by openge
  // compile cannot hand a kernel buffers of the wrong size. A stored float32 where infer says
  // float16 / bfloat16 is the precision pass's "float16 in, float32 out" of cube ops, and stays.
  Graph& g = graph_;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    const OpSchema* schema = find_op_schema(node.op_type);
    if (!schema) return unsupported("node " + g.node_label(static_cast<int>(n)) + ": op is not supported");
    std::vector<ValueInfo> infos;
    std::vector<const ValueInfo*> ptrs;
    input_infos(g, node, infos, ptrs);
    InferContext ctx(node, g.opset, ptrs, node.outputs.size());
    OPENGE_RETURN_IF_ERROR(run_infer(*schema, ctx));
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] < 0) continue;
      Value& v = g.values[static_cast<size_t>(node.outputs[o])];
      const ValueInfo& info = ctx.output(o);
      const bool widened_output =
          v.dtype == DType::kFloat32 && (info.dtype == DType::kFloat16 || info.dtype == DType::kBFloat16);
      if (v.dtype != DType::kUndefined && v.dtype != info.dtype && !widened_output)
        return invalid_model("node " + g.node_label(static_cast<int>(n)) + ": output '" + v.name + "' is stored as " +
                             dtype_name(v.dtype) + " but the op computes " + dtype_name(info.dtype) +
                             " (not written by openge compile): recompile it");
      if (v.dtype == DType::kUndefined) v.dtype = info.dtype;
      if (info.shape_known && shape_is_static(v.shape) && *v.shape != info.shape)
        return invalid_model("node " + g.node_label(static_cast<int>(n)) + ": output '" + v.name + "' is stored with shape " +
                             shape_to_string(*v.shape) + " but the op computes " + shape_to_string(info.shape) +
                             " (not written by openge compile): recompile it");
      v.shape = info.shape_known ? std::optional<Shape>(info.shape) : std::nullopt;
      if (o < ctx.folded().size() && ctx.folded()[o].defined()) v.constant = ctx.folded()[o];
    }
  }
  return check_declared_outputs();
}

Status Executable::check_declared_outputs() const {
  const Graph& g = graph_;
  for (size_t i = 0; i < g.outputs.size() && i < g.declared_outputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.outputs[i])];
    const Graph::DeclaredType& declared = g.declared_outputs[i];
    if (declared.dtype != DType::kUndefined && v.dtype != DType::kUndefined && declared.kind != v.kind)
      return invalid_model("graph output '" + v.name + "' is declared a " + value_kind_name(declared.kind) +
                           " but the graph computes a " + value_kind_name(v.kind));
    if (declared.dtype != DType::kUndefined && v.dtype != DType::kUndefined && declared.dtype != v.dtype)
      return invalid_model("graph output '" + v.name + "' is declared " + dtype_name(declared.dtype) +
                           " but the graph computes " + dtype_name(v.dtype));
    if (!declared.shape || !shape_is_static(v.shape)) continue;
    bool matches = declared.shape->size() == v.shape->size();
    for (size_t d = 0; matches && d < v.shape->size(); ++d)
      matches = (*declared.shape)[d] < 0 || (*declared.shape)[d] == (*v.shape)[d];
    if (!matches)
      return invalid_model("graph output '" + v.name + "' is declared with shape " + shape_to_string(*declared.shape) +
                           " but the graph computes " + shape_to_string(*v.shape));
  }
  return Status::Ok();
}

Status Executable::run_passes(graph_dump::GraphDumper& dump, const options::OptionSet* shaping,
                              const options::OptionSet* config, bool after_precision) {
  const std::vector<Pass>& passes = all_passes();
  auto choices = passes::choose_passes(passes, shaping);
  if (!choices.ok()) return choices.status();
  for (const std::string& off : passes_off_)
    for (size_t i = 0; i < passes.size(); ++i)
      if (passes[i].name == off && (*choices)[i].on && passes[i].after_precision == after_precision) {
        (*choices)[i].on = false;
        OPENGE_LOG_INFO("FE", "pass " + off + " off: AOE subgraph tuning" + (subgraph_hit_ ? " (knowledge base)" : ""));
      }
  // AOE subgraph tuning's NHWC candidate: the layout pass makes no NC1HWC0 region.
  std::optional<passes::ScopedNc1hwc0Regions> nc1hwc0_off;
  if (std::count(passes_off_.begin(), passes_off_.end(), passes::kNc1hwc0Choice) > 0) {
    nc1hwc0_off.emplace(passes::Nc1hwc0Regions::kNever);
    if (!after_precision)
      OPENGE_LOG_INFO("FE", std::string(passes::kNc1hwc0Choice) + " off: AOE subgraph tuning" +
                                (subgraph_hit_ ? " (knowledge base)" : ""));
  }
  for (size_t i = 0; i < passes.size(); ++i) {
    const Pass& pass = passes[i];
    if (pass.after_precision != after_precision) continue;
    if ((*choices)[i].on) {
      auto result = pass.run(graph_);
      if (!result.ok()) return result.status().with_context("pass " + std::string(pass.name));
      pass_stats_.push_back({std::string(pass.name), result->matched, result->applied});
      fusion_counts_.push_back({pass.name, pass.kind, result->matched, result->applied});
    }
    // A dump after each group of passes of one kind (graph fusion, then UB fusion); the passes
    // after precision show in the final dump.
    if (!after_precision && (i + 1 == passes.size() || passes[i + 1].kind != pass.kind || passes[i + 1].after_precision))
      OPENGE_RETURN_IF_ERROR(dump.dump(graph_, graph_dump::after_fusion_group(pass.kind)));
  }
  // A statistics file that cannot be written does not stop the model (CANN goes on too): warned.
  // Written once, after the passes that follow the precision pass.
  if (config && after_precision)
    if (Status st = passes::write_fusion_result(*config, dump.graph_id(), fusion_counts_); !st.ok())
      OPENGE_LOG_WARNING("FE", st.message());
  auto order = graph_.topological_order();
  if (!order.ok()) return order.status().with_context("after fusion");
  std::vector<Node> sorted;
  for (int n : *order) sorted.push_back(std::move(graph_.nodes[static_cast<size_t>(n)]));
  graph_.nodes = std::move(sorted);
  return Status::Ok();
}

Status Executable::apply_precision(const options::OptionSet& config) {
  auto setup = precision::load_precision_setup(config);
  if (!setup.ok()) return setup.status();
  auto decisions = precision::apply_precision(graph_, *setup);
  if (!decisions.ok()) return decisions.status();
  precision_decisions_ = std::move(decisions.value());
  precision_warnings_ = std::move(setup->warnings);
  return Status::Ok();
}

void Executable::remove_dead_nodes() {
  Graph& g = graph_;
  std::vector<char> needed(g.values.size(), 0);
  for (int v : g.outputs) needed[static_cast<size_t>(v)] = 1;
  std::vector<char> keep(g.nodes.size(), 0);
  for (size_t n = g.nodes.size(); n-- > 0;) {
    const Node& node = g.nodes[n];
    bool live = false;
    for (int out : node.outputs)
      if (out >= 0 && needed[static_cast<size_t>(out)] && !g.values[static_cast<size_t>(out)].constant) live = true;
    if (!live) continue;
    keep[n] = 1;
    for (int in : node.inputs)
      if (in >= 0) needed[static_cast<size_t>(in)] = 1;
  }
  std::vector<Node> kept;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (keep[n]) kept.push_back(std::move(g.nodes[n]));
  g.nodes = std::move(kept);
  for (Value& v : g.values) v.producer = -1;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int out : g.nodes[n].outputs)
      if (out >= 0) g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);
}

KernelRequest Executable::kernel_request(const Node& node, bool deterministic) const {
  KernelRequest request{node, graph_.opset, {}, {}, deterministic};
  for (int in : node.inputs) request.inputs.push_back(in >= 0 ? info_of(graph_.values[static_cast<size_t>(in)]) : ValueInfo{});
  for (int out : node.outputs)
    request.outputs.push_back(out >= 0 ? info_of(graph_.values[static_cast<size_t>(out)]) : ValueInfo{});
  return request;
}

Status Executable::select_kernels(const CompileOptions& options, aoe::TunedSelection& tuning) {
  // deterministic=1: the same bits at every thread count (kernels/fixed_plan_kernel.h).
  const bool deterministic = options.config && options.config->get_int("deterministic", 0) == 1;
  // Fused vector-op nodes get generated kernels when compiling online (compiler/online_compiler.h);
  // they are built together below, in parallel.
  auto jit_settings = compiler::read_jit_settings(options.config.get(), dynamic_model_);
  if (!jit_settings.ok()) return jit_settings.status();
  const compiler::JitDecision& jit = jit_settings->decision;
  std::vector<compiler::KernelRequest> jit_requests;
  std::vector<size_t> jit_nodes;
  std::optional<PackedConstantRelease> release;
  if (release_packed_constants_) release.emplace(graph_);
  int tunable = 0;
  for (const Node& node : graph_.nodes) tunable += options.use_aicore && !node.aicpu_only && aoe::is_tunable(node.op_type);
  tuning.begin(tunable);
  // The one-thread plan (runtime/thread_plan.h): asked for, or a candidate the compile times
  // against the team plan, which needs each team node's kernel made for one thread too.
  const bool one_thread_plan = num_threads_ > 1 && options.thread_plan == ThreadPlanChoice::kOneThread;
  if (one_thread_plan) branches_allowed_ = false;
  time_plans_ = num_threads_ > 1 && options.thread_plan == ThreadPlanChoice::kCalibrate && grain_pending_ &&
                small_static_graph();
  for (size_t n = 0; n < graph_.nodes.size(); ++n) {
    CompiledNode cn;
    cn.node = graph_.nodes[n];
    cn.schema = find_op_schema(cn.node.op_type);
    if (!cn.schema) return internal_error("node " + graph_.node_label(static_cast<int>(n)) + " has no schema after passes");
    KernelRequest request = kernel_request(cn.node, deterministic);
    cn.static_outputs = true;
    for (size_t o = 0; o < cn.node.outputs.size(); ++o)
      if (cn.node.outputs[o] >= 0 && !request.outputs[o].shape_known) cn.static_outputs = false;
    cn.estimated_cycles = estimated_node_cycles(request);
    if (grain_pending_ && !has_subgraph(cn.node) && grain_decides(cn.estimated_cycles)) {
      grain_ = measure_threading_grain(num_threads_);
      grain_pending_ = false;
    }
    cn.single_thread = !has_subgraph(cn.node) && (one_thread_plan || runs_on_calling_thread(request, num_threads_, grain_.cycles));
    if (has_subgraph(cn.node)) {
      std::vector<DType> output_dtypes;
      for (int out : cn.node.outputs)
        output_dtypes.push_back(out >= 0 ? graph_.values[static_cast<size_t>(out)].dtype : DType::kUndefined);
      // Subgraphs run inside this graph's runs: they take its grain instead of measuring again
      // (or measure it themselves if no node before them needed it).
      CompileOptions subgraph_options = options;
      subgraph_options.threading_grain_cycles = grain_pending_ ? 0 : grain_.cycles;
      auto cf = ControlFlowNode::make(cn.node, graph_.opset, std::move(output_dtypes), subgraph_options);
      if (!cf.ok()) return cf.status();
      cn.control_flow = std::move(cf.value());
    } else if (cn.node.op_type == kFusedElementwise && options.use_aicore && !cn.node.aicpu_only) {
      if (jit.online && cn.static_outputs) {
        compiler::KernelRequest r;
        for (int in : cn.node.inputs) {
          const Value& v = graph_.values[static_cast<size_t>(in)];
          r.input_shapes.push_back(v.shape.value_or(Shape{}));
          r.input_names.push_back(v.name);
        }
        r.output_shape = *graph_.values[static_cast<size_t>(cn.node.outputs[0])].shape;
        jit_nodes.push_back(nodes_.size());
        jit_requests.push_back(std::move(r));
      }
    } else if (options.use_aicore && !cn.node.aicpu_only && !cn.schema->output_aliases_input) {
      // The default variant, or the knowledge base's / a measured one (aoe/tuned_selection.h).
      auto chosen = tuning.select(nodes_.size(), request, cn.single_thread,
                                  [](const KernelRequest& r, bool single) {
                                    // oneDNN plans a primitive for the thread count it sees when it is created.
                                    ScopedNumThreads plan(single ? 1 : 0);
                                    return make_aicore_kernel(r);
                                  });
      if (!chosen.ok()) return chosen.status().with_context("node " + graph_.node_label(static_cast<int>(n)));
      if (chosen->kernel) {
        cn.single_thread = chosen->single_thread;
        cn.engine = chosen->kernel->engine();
        cn.kernel = std::move(chosen->kernel);
        if (time_plans_ && !cn.single_thread) {
          // The same variant made for one thread, for the one-thread plan.
          ScopedNumThreads plan(1);
          auto alone = make_aicore_kernel(request);
          if (!alone.ok()) return alone.status().with_context("node " + graph_.node_label(static_cast<int>(n)));
          if (*alone) one_thread_kernels_.push_back({nodes_.size(), std::move(alone.value()), true});
        }
      }
    }
    const bool jit_pending = !jit_nodes.empty() && jit_nodes.back() == nodes_.size();
    // The reference kernel's prepare step (ops/prepared_kernel.h) where AI Core took nothing.
    if (!cn.kernel && !cn.control_flow && !jit_pending && cn.schema->prepare && cn.static_outputs &&
        !cn.schema->output_aliases_input) {
      auto prepared = cn.schema->prepare(request);
      if (!prepared.ok()) return prepared.status().with_context("node " + graph_.node_label(static_cast<int>(n)));
      cn.kernel = std::move(prepared.value());
    }
    nodes_.push_back(std::move(cn));
    if (release) release->node_built(nodes_.back());
  }
  if (release) released_constant_bytes_ = release->released_bytes();
  if (jit_requests.empty()) return Status::Ok();
  for (size_t i = 0; i < jit_requests.size(); ++i) jit_requests[i].node = &nodes_[jit_nodes[i]].node;
  OPENGE_LOG_INFO("FE", jit.reason);
  auto kernels = compiler::compile_kernels(jit_requests, *jit_settings);
  if (!kernels.ok()) return kernels.status();
  for (size_t i = 0; i < jit_nodes.size(); ++i) {
    CompiledNode& cn = nodes_[jit_nodes[i]];
    cn.kernel = std::move((*kernels)[i]);
    cn.engine = cn.kernel->engine();
  }
  return Status::Ok();
}

void Executable::plan_memory_layout() {
  const Graph& g = graph_;
  const size_t nv = g.values.size();
  alias_root_.resize(nv);
  for (size_t v = 0; v < nv; ++v) alias_root_[v] = static_cast<int>(v);
  for (const CompiledNode& cn : nodes_)
    if (cn.schema->output_aliases_input && cn.node.inputs[0] >= 0 && cn.node.outputs[0] >= 0)
      alias_root_[static_cast<size_t>(cn.node.outputs[0])] = alias_root_[static_cast<size_t>(cn.node.inputs[0])];
  // Every statically shaped tensor a node makes is placed, so that a run allocates nothing: the
  // graph outputs too (they live until the run copies them out, after the last step), and
  // values nobody reads (an unused second output) for the step that writes them.
  std::vector<int> planned_values;
  for (size_t v = 0; v < nv; ++v) {
    const Value& value = g.values[v];
    if (alias_root_[v] != static_cast<int>(v) || value.producer < 0 || value.constant) continue;
    if (value.kind != ValueKind::kTensor || !shape_is_static(value.shape) || !dtype_supported(value.dtype)) continue;
    planned_values.push_back(static_cast<int>(v));
  }
  // Concat in place: inputs that only the Concat reads live inside its output's buffer.
  std::vector<int> inside_of(nv, -1);
  std::vector<size_t> inside_offset(nv, 0);
  {
    std::vector<char> planned(nv, 0);
    for (int v : planned_values) planned[static_cast<size_t>(v)] = 1;
    place_concat_inputs(planned, inside_of, inside_offset);
  }
  decide_slots(planned_values);
  schedule_steps();
  const std::vector<int> step_of = step_of_nodes(steps_, nodes_.size());

  last_use_.assign(nv, -1);
  for (size_t s = 0; s < nodes_.size(); ++s)
    for (int in : nodes_[s].node.inputs)
      if (in >= 0) last_use_[static_cast<size_t>(in)] = std::max(last_use_[static_cast<size_t>(in)], step_of[s]);
  for (int v : g.outputs) last_use_[static_cast<size_t>(v)] = INT_MAX;
  // A buffer lives until the last read of any value sharing it.
  std::vector<int> root_last(nv, -1);
  for (size_t v = 0; v < nv; ++v) {
    int& r = root_last[static_cast<size_t>(alias_root_[v])];
    r = std::max(r, last_use_[v]);
  }
  const int after_last_step = static_cast<int>(steps_.size());
  // A Concat's buffer is written from the first step that writes one of its inputs in place.
  std::vector<int> first_write(nv, INT_MAX);
  for (size_t v = 0; v < nv; ++v)
    if (g.values[v].producer >= 0) first_write[v] = step_of[static_cast<size_t>(g.values[v].producer)];
  for (size_t v = 0; v < nv; ++v)
    if (inside_of[v] >= 0) first_write[static_cast<size_t>(inside_of[v])] = std::min(first_write[static_cast<size_t>(inside_of[v])], first_write[v]);
  std::vector<BufferRequest> requests;
  std::vector<int> requested_values;
  for (int v : planned_values) {
    if (inside_of[static_cast<size_t>(v)] >= 0) continue;
    requested_values.push_back(v);
    const Value& value = g.values[static_cast<size_t>(v)];
    const int written = first_write[static_cast<size_t>(v)];
    const int last = root_last[static_cast<size_t>(v)] == INT_MAX ? after_last_step
                                                                 : std::max(root_last[static_cast<size_t>(v)], written);
    const size_t bytes = static_cast<size_t>(shape_numel(*value.shape)) * dtype_size(value.dtype);
    requests.push_back({bytes, written, last});
  }
  // Kernel scratch (CompiledKernel::scratch_bytes) lives for its node's step only.
  const size_t value_requests = requests.size();  // == requested_values.size()
  std::vector<size_t> scratch_nodes;
  for (size_t s = 0; s < nodes_.size(); ++s) {
    const size_t bytes = nodes_[s].kernel ? nodes_[s].kernel->scratch_bytes() : 0;
    if (bytes == 0) continue;
    requests.push_back({bytes, step_of[s], step_of[s]});
    scratch_nodes.push_back(s);
  }
  const MemoryPlan plan = plan_memory(requests);
  arena_offset_.assign(nv, SIZE_MAX);
  for (size_t i = 0; i < requested_values.size(); ++i) arena_offset_[static_cast<size_t>(requested_values[i])] = plan.offsets[i];
  for (size_t v = 0; v < nv; ++v)
    if (inside_of[v] >= 0) arena_offset_[v] = arena_offset_[static_cast<size_t>(inside_of[v])] + inside_offset[v];
  scratch_offset_.assign(nodes_.size(), SIZE_MAX);
  for (size_t i = 0; i < scratch_nodes.size(); ++i) scratch_offset_[scratch_nodes[i]] = plan.offsets[value_requests + i];
  arena_bytes_ = plan.arena_bytes;
  total_intermediate_bytes_ = plan.total_bytes;
}

void Executable::place_concat_inputs(const std::vector<char>& planned, std::vector<int>& inside_of,
                                     std::vector<size_t>& inside_offset) {
  const Graph& g = graph_;
  concat_in_place_.assign(nodes_.size(), 0);
  std::vector<int> readers(g.values.size(), 0);
  for (const CompiledNode& cn : nodes_)
    for (int in : cn.node.inputs)
      if (in >= 0) ++readers[static_cast<size_t>(in)];
  for (int v : g.outputs) ++readers[static_cast<size_t>(v)];
  for (size_t s = 0; s < nodes_.size(); ++s) {
    const Node& node = nodes_[s].node;
    if (node.op_type != "Concat" || node.outputs.size() != 1 || node.outputs[0] < 0) continue;
    const size_t out = static_cast<size_t>(node.outputs[0]);
    if (!planned[out] || inside_of[out] >= 0) continue;
    const Shape& shape = *g.values[out].shape;
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = node.attrs.get_int("axis", 0);
    if (axis < 0) axis += rank;
    // Contiguous slices only: every dim before the axis is 1.
    bool contiguous = axis >= 0 && axis < rank;
    for (int64_t d = 0; contiguous && d < axis; ++d) contiguous = shape[static_cast<size_t>(d)] == 1;
    // Each input: made by a node of this graph into a buffer of its own, read by this Concat
    // alone and once (one reader in all), and starting on a 64-byte boundary of the output
    // (kernels vectorise).
    size_t offset = 0;
    bool fits = contiguous;
    std::vector<std::pair<size_t, size_t>> placed;
    for (int in : node.inputs) {
      if (!fits) break;
      const size_t v = static_cast<size_t>(in);
      const Value& value = g.values[v];
      fits = in >= 0 && planned[v] && inside_of[v] < 0 && readers[v] == 1 && value.producer >= 0 &&
             value.dtype == g.values[out].dtype && offset % 64 == 0;
      placed.emplace_back(v, offset);
      offset += static_cast<size_t>(shape_numel(*value.shape)) * dtype_size(value.dtype);
    }
    if (!fits) continue;
    for (const auto& [v, at] : placed) {
      inside_of[v] = static_cast<int>(out);
      inside_offset[v] = at;
    }
    concat_in_place_[s] = 1;
  }
}

void Executable::decide_slots(const std::vector<int>& planned_values) {
  // How a run state holds each value, and which nodes run on a prepared context.
  const Graph& g = graph_;
  slot_kind_.assign(g.values.size(), SlotKind::kDynamic);
  for (int v : planned_values) slot_kind_[static_cast<size_t>(v)] = SlotKind::kArena;
  for (int v : g.inputs)
    if (g.values[static_cast<size_t>(v)].kind == ValueKind::kTensor && shape_is_static(g.values[static_cast<size_t>(v)].shape))
      slot_kind_[static_cast<size_t>(v)] = SlotKind::kShared;
  node_prepared_.assign(nodes_.size(), 0);
  for (size_t s = 0; s < nodes_.size(); ++s) {
    const CompiledNode& cn = nodes_[s];
    if (cn.control_flow || !cn.static_outputs) continue;
    if (cn.schema->output_aliases_input) {
      const int out = cn.node.outputs[0];
      if (out >= 0 && cn.node.inputs[0] >= 0 && g.values[static_cast<size_t>(out)].kind == ValueKind::kTensor)
        slot_kind_[static_cast<size_t>(out)] = SlotKind::kShared;
      continue;
    }
    bool prepared = true;
    for (int out : cn.node.outputs)
      if (out >= 0 && slot_kind_[static_cast<size_t>(out)] != SlotKind::kArena) prepared = false;
    node_prepared_[s] = prepared;
  }
}

bool Executable::shares_input_storage(size_t s) const {
  const CompiledNode& cn = nodes_[s];
  return cn.schema->output_aliases_input && cn.node.outputs[0] >= 0 &&
         slot_kind_[static_cast<size_t>(cn.node.outputs[0])] == SlotKind::kShared;
}

void Executable::schedule_steps() {
  // A node may run beside another when it runs on one thread and touches only what the run
  // state placed for it: a prepared node, or a view of its input (Reshape and the like).
  std::vector<BranchNode> branch_nodes(nodes_.size());
  for (size_t s = 0; s < nodes_.size(); ++s) {
    const CompiledNode& cn = nodes_[s];
    BranchNode& b = branch_nodes[s];
    b.can_branch = branches_allowed_ && num_threads_ > 1 && cn.single_thread && cn.estimated_cycles >= 0 &&
                   (node_prepared_[s] || shares_input_storage(s));
    b.cycles = shares_input_storage(s) ? 0 : cn.estimated_cycles;  // a view copies nothing
    for (int in : cn.node.inputs)
      if (in >= 0) b.deps.push_back(graph_.values[static_cast<size_t>(in)].producer);
  }
  // A branch is worth the second thread on the rule that makes a node worth a team: at least the
  // grain's work (runtime/op_grain.h). Less did not pay: the estimates of data movement (Slice,
  // Transpose) run 5-10x above what the copies take, and two such branches at once were slower
  // than one after the other (bench/RESULTS.md, "branches"). Whether a branch pays depends on the
  // machine's load like the grain does, so a compile that has not measured it yet does now.
  auto schedule = [&] { return schedule_branches(branch_nodes, grain_.cycles); };
  steps_ = schedule();
  if (grain_pending_ && concurrent_steps(steps_) > 0) {
    grain_ = measure_threading_grain(num_threads_);
    grain_pending_ = false;
    steps_ = schedule();
  }
}

}  // namespace openge
