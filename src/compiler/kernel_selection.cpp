// Kernel selection, a stage of the compile (compiler/pipeline.h): one kernel per node, looked up
// in the AI Core table (kernels/aicore_registry.h) by op type and dtypes unless the node is
// AI CPU only; AOE's knowledge base or a tuning run may choose another variant; fused vector-op
// nodes get online-compiled kernels (compiler/online_compiler.h), built together in parallel; a
// node AI Core takes nothing for gets its reference kernel's prepare step. Each node's thread
// decision comes from the grain (compiler/op_grain.h).
#include <optional>

#include "aoe/tuned_selection.h"
#include "aoe/tuning_space.h"
#include "base/omp_threads.h"
#include "compiler/executable_builder.h"
#include "compiler/online_compiler.h"
#include "compiler/grain_calibration.h"
#include "compiler/op_grain.h"
#include "compiler/packed_constant_release.h"
#include "compiler/pipeline.h"
#include "logging/log.h"
#include "ops/fused/fused_elementwise.h"
#include "compiler/compile_config.h"
#include "runtime/control_flow.h"

namespace openge::compiler {

openge::KernelRequest ExecutableBuilder::kernel_request(const Node& node, bool deterministic) const {
  openge::KernelRequest request{node, exe_->graph_.opset, {}, {}, deterministic};
  for (int in : node.inputs)
    request.inputs.push_back(in >= 0 ? info_of(exe_->graph_.values[static_cast<size_t>(in)]) : ValueInfo{});
  for (int out : node.outputs)
    request.outputs.push_back(out >= 0 ? info_of(exe_->graph_.values[static_cast<size_t>(out)]) : ValueInfo{});
  return request;
}

Status ExecutableBuilder::select_kernels(aoe::TunedSelection& tuning) {
  // deterministic=1: the same bits at every thread count (kernels/fixed_plan_kernel.h).
  const bool deterministic = options_.config && options_.config->deterministic;
  // Fused vector-op nodes get generated kernels when compiling online (compiler/online_compiler.h);
  // they are built together below, in parallel.
  JitSettings jit_settings = jit_settings_for(options_.config ? options_.config->jit : JitConfig{}, dynamic_model_);
  use_prebuilt_kernels(jit_settings, options_.prebuilt_kernels);
  const JitDecision& jit = jit_settings.decision;
  std::vector<compiler::KernelRequest> jit_requests;
  std::vector<size_t> jit_nodes;
  std::optional<PackedConstantRelease> release;
  if (release_packed_constants_) release.emplace(exe_->graph_);
  int tunable = 0;
  for (const Node& node : exe_->graph_.nodes)
    tunable += options_.use_aicore && !node.aicpu_only && aoe::is_tunable(node.op_type);
  tuning.begin(tunable);
  // The one-thread plan (runtime/thread_plan.h): asked for, or a candidate the compile times
  // against the team plan, which needs each team node's kernel made for one thread too.
  const bool one_thread_plan = exe_->num_threads_ > 1 && options_.thread_plan == ThreadPlanChoice::kOneThread;
  if (one_thread_plan) branches_allowed_ = false;
  time_plans_ = exe_->num_threads_ > 1 && options_.thread_plan == ThreadPlanChoice::kCalibrate && grain_pending_ &&
                small_static_graph();
  for (size_t n = 0; n < exe_->graph_.nodes.size(); ++n) {
    CompiledNode cn;
    cn.node = exe_->graph_.nodes[n];
    cn.schema = find_op_schema(cn.node.op_type);
    if (!cn.schema)
      return internal_error("node " + exe_->graph_.node_label(static_cast<int>(n)) + " has no schema after passes");
    openge::KernelRequest request = kernel_request(cn.node, deterministic);
    cn.static_outputs = true;
    for (size_t o = 0; o < cn.node.outputs.size(); ++o)
      if (cn.node.outputs[o] >= 0 && !request.outputs[o].shape_known) cn.static_outputs = false;
    cn.estimated_cycles = estimated_node_cycles(request);
    if (grain_pending_ && !has_subgraph(cn.node) && grain_decides(cn.estimated_cycles)) {
      exe_->grain_ = calibrated_threading_grain(exe_->num_threads_, grain_cache_root());
      grain_pending_ = false;
    }
    cn.single_thread = !has_subgraph(cn.node) &&
                       (one_thread_plan || runs_on_calling_thread(request, exe_->num_threads_, exe_->grain_.cycles));
    if (has_subgraph(cn.node)) {
      std::vector<DType> output_dtypes;
      for (int out : cn.node.outputs)
        output_dtypes.push_back(out >= 0 ? exe_->graph_.values[static_cast<size_t>(out)].dtype : DType::kUndefined);
      // Subgraphs run inside this graph's runs: they take its grain (or read it themselves if
      // no node before them needed it).
      CompileOptions subgraph_options = options_;
      subgraph_options.threading_grain_cycles = grain_pending_ ? 0 : exe_->grain_.cycles;
      auto cf = ControlFlowNode::make(cn.node, exe_->graph_.opset, std::move(output_dtypes),
                                      subgraph_compiler(std::move(subgraph_options)));
      if (!cf.ok()) return cf.status();
      cn.control_flow = std::move(cf.value());
    } else if (cn.node.op_type == kFusedElementwise && options_.use_aicore && !cn.node.aicpu_only) {
      if (jit.online && cn.static_outputs) {
        compiler::KernelRequest r;
        for (int in : cn.node.inputs) {
          const Value& v = exe_->graph_.values[static_cast<size_t>(in)];
          r.input_shapes.push_back(v.shape.value_or(Shape{}));
          r.input_names.push_back(v.name);
        }
        r.output_shape = *exe_->graph_.values[static_cast<size_t>(cn.node.outputs[0])].shape;
        jit_nodes.push_back(exe_->nodes_.size());
        jit_requests.push_back(std::move(r));
      }
    } else if (options_.use_aicore && !cn.node.aicpu_only && !cn.schema->output_aliases_input) {
      // The default variant, or the knowledge base's / a measured one (aoe/tuned_selection.h).
      auto chosen = tuning.select(exe_->nodes_.size(), request, cn.single_thread,
                                  [](const openge::KernelRequest& r, bool single) {
                                    // oneDNN plans a primitive for the thread count it sees when it is created.
                                    ScopedNumThreads plan(single ? 1 : 0);
                                    return make_aicore_kernel(r);
                                  });
      if (!chosen.ok()) return chosen.status().with_context("node " + exe_->graph_.node_label(static_cast<int>(n)));
      if (chosen->kernel) {
        cn.single_thread = chosen->single_thread;
        cn.engine = chosen->kernel->engine();
        cn.kernel = std::move(chosen->kernel);
        if (time_plans_ && !cn.single_thread) {
          // The same variant made for one thread, for the one-thread plan.
          ScopedNumThreads plan(1);
          auto alone = make_aicore_kernel(request);
          if (!alone.ok()) return alone.status().with_context("node " + exe_->graph_.node_label(static_cast<int>(n)));
          if (*alone) one_thread_kernels_.push_back({exe_->nodes_.size(), std::move(alone.value()), true});
        }
      }
    }
    const bool jit_pending = !jit_nodes.empty() && jit_nodes.back() == exe_->nodes_.size();
    // The reference kernel's prepare step (ops/prepared_kernel.h) where AI Core took nothing.
    if (!cn.kernel && !cn.control_flow && !jit_pending && cn.schema->prepare && cn.static_outputs &&
        !cn.schema->output_aliases_input) {
      auto prepared = cn.schema->prepare(request);
      if (!prepared.ok()) return prepared.status().with_context("node " + exe_->graph_.node_label(static_cast<int>(n)));
      cn.kernel = std::move(prepared.value());
    }
    exe_->nodes_.push_back(std::move(cn));
    if (release) release->node_built(exe_->nodes_.back());
  }
  if (release) exe_->released_constant_bytes_ = release->released_bytes();
  if (jit_requests.empty()) return Status::Ok();
  for (size_t i = 0; i < jit_requests.size(); ++i) jit_requests[i].node = &exe_->nodes_[jit_nodes[i]].node;
  OPENGE_LOG_INFO("FE", jit.reason);
  auto kernels = compiler::compile_kernels(jit_requests, jit_settings);
  if (!kernels.ok()) return kernels.status();
  for (size_t i = 0; i < jit_nodes.size(); ++i) {
    CompiledNode& cn = exe_->nodes_[jit_nodes[i]];
    cn.kernel = std::move((*kernels)[i]);
    cn.engine = cn.kernel->engine();
  }
  return Status::Ok();
}

}  // namespace openge::compiler
