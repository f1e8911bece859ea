// The memory plan and the run's steps, a stage of the compile (compiler/pipeline.h): which
// values live in the arena and which share storage, Concat inputs written in place, the steps
// (two independent branches of one-thread nodes at once where they pay), then every planned
// buffer's offset, each living from the step that writes it to the last step that reads it.
#include <algorithm>
#include <climits>

#include "compiler/executable_builder.h"
#include "compiler/memory_plan.h"
#include "compiler/grain_calibration.h"
#include "compiler/op_grain.h"
#include "ops/atomic_outputs.h"
#include "compiler/compile_config.h"
#include "options/value_parsers.h"
#include "runtime/branch_schedule.h"

namespace openge::compiler {
namespace {

// stream_max_parallel_num (OPT-stream_max_parallel_num-2..4): how many branches of one engine's
// nodes may run at once. Unset: OpenGE's own plan, two where they pay (docs/DECISIONS.md); set:
// an engine it does not name has page 002's default of 1, and 1 keeps that engine's nodes on one
// stream (the calling thread, in node order). A run takes at most two branches at once, so any
// value from 2 up allows two.
int engine_streams(const CompileConfig* config, Engine engine) {
  const std::string text = config ? config->stream_max_parallel_num : "";
  if (text.empty()) return 2;
  auto parsed = options::parse_stream_parallel(text);
  if (!parsed.ok()) return 1;  // validated when the set was built
  auto it = parsed->find(engine == Engine::kAiCore ? "AIcoreEngine" : "DNN_VM_AICPU");
  return it == parsed->end() ? 1 : it->second;
}

}  // namespace

void ExecutableBuilder::plan_memory_layout() {
  const Graph& g = exe_->graph_;
  const size_t nv = g.values.size();
  exe_->alias_root_.resize(nv);
  for (size_t v = 0; v < nv; ++v) exe_->alias_root_[v] = static_cast<int>(v);
  for (const CompiledNode& cn : exe_->nodes_)
    if (cn.schema->output_aliases_input && cn.node.inputs[0] >= 0 && cn.node.outputs[0] >= 0)
      exe_->alias_root_[static_cast<size_t>(cn.node.outputs[0])] =
          exe_->alias_root_[static_cast<size_t>(cn.node.inputs[0])];
  // Every statically shaped tensor a node makes is placed, so that a run allocates nothing: the
  // graph outputs too (they live until the run copies them out, after the last step), and
  // values nobody reads (an unused second output) for the step that writes them.
  std::vector<int> planned_values;
  for (size_t v = 0; v < nv; ++v) {
    const Value& value = g.values[v];
    if (exe_->alias_root_[v] != static_cast<int>(v) || value.producer < 0 || value.constant) continue;
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
  // atomic_clean_policy: nodes whose AI CPU kernels add into their outputs have them zeroed by
  // the executor (oneDNN kernels of the AI Core write every element).
  const CompileConfig* config = options_.config.get();
  exe_->atomic_clean_policy_ = config ? config->atomic_clean_policy : 0;
  exe_->zeroes_outputs_.assign(exe_->nodes_.size(), 0);
  for (size_t s = 0; s < exe_->nodes_.size(); ++s)
    exe_->zeroes_outputs_[s] = exe_->nodes_[s].engine == Engine::kAiCpu && !exe_->nodes_[s].control_flow &&
                               accumulates_into_outputs(exe_->nodes_[s].node.op_type);
  const std::vector<int> step_of = step_of_nodes(exe_->steps_, exe_->nodes_.size());

  exe_->last_use_.assign(nv, -1);
  for (size_t s = 0; s < exe_->nodes_.size(); ++s)
    for (int in : exe_->nodes_[s].node.inputs)
      if (in >= 0)
        exe_->last_use_[static_cast<size_t>(in)] = std::max(exe_->last_use_[static_cast<size_t>(in)], step_of[s]);
  for (int v : g.outputs) exe_->last_use_[static_cast<size_t>(v)] = INT_MAX;
  // A buffer lives until the last read of any value sharing it.
  std::vector<int> root_last(nv, -1);
  for (size_t v = 0; v < nv; ++v) {
    int& r = root_last[static_cast<size_t>(exe_->alias_root_[v])];
    r = std::max(r, exe_->last_use_[v]);
  }
  const int after_last_step = static_cast<int>(exe_->steps_.size());
  // A Concat's buffer is written from the first step that writes one of its inputs in place.
  std::vector<int> first_write(nv, INT_MAX);
  for (size_t v = 0; v < nv; ++v)
    if (g.values[v].producer >= 0) first_write[v] = step_of[static_cast<size_t>(g.values[v].producer)];
  for (size_t v = 0; v < nv; ++v)
    if (inside_of[v] >= 0)
      first_write[static_cast<size_t>(inside_of[v])] =
          std::min(first_write[static_cast<size_t>(inside_of[v])], first_write[v]);
  // Policy 0 zeroes them all before the first step: their buffers are written from step 0.
  if (exe_->atomic_clean_policy_ == 0)
    for (size_t s = 0; s < exe_->nodes_.size(); ++s)
      if (exe_->zeroes_outputs_[s])
        for (int out : exe_->nodes_[s].node.outputs)
          if (out >= 0) {
            const size_t v = static_cast<size_t>(out);
            first_write[inside_of[v] >= 0 ? static_cast<size_t>(inside_of[v]) : v] = 0;
          }
  std::vector<BufferRequest> requests;
  std::vector<int> requested_values;
  for (int v : planned_values) {
    if (inside_of[static_cast<size_t>(v)] >= 0) continue;
    requested_values.push_back(v);
    const Value& value = g.values[static_cast<size_t>(v)];
    const int written = first_write[static_cast<size_t>(v)];
    const int last = root_last[static_cast<size_t>(v)] == INT_MAX
                         ? after_last_step
                         : std::max(root_last[static_cast<size_t>(v)], written);
    const size_t bytes = static_cast<size_t>(shape_numel(*value.shape)) * dtype_size(value.dtype);
    requests.push_back({bytes, written, last});
  }
  // Kernel scratch (CompiledKernel::scratch_bytes) lives for its node's step only.
  const size_t value_requests = requests.size();  // == requested_values.size()
  std::vector<size_t> scratch_nodes;
  for (size_t s = 0; s < exe_->nodes_.size(); ++s) {
    const size_t bytes = exe_->nodes_[s].kernel ? exe_->nodes_[s].kernel->scratch_bytes() : 0;
    if (bytes == 0) continue;
    requests.push_back({bytes, step_of[s], step_of[s]});
    scratch_nodes.push_back(s);
  }
  const MemoryPlan plan = plan_memory(requests);
  exe_->arena_offset_.assign(nv, SIZE_MAX);
  for (size_t i = 0; i < requested_values.size(); ++i)
    exe_->arena_offset_[static_cast<size_t>(requested_values[i])] = plan.offsets[i];
  for (size_t v = 0; v < nv; ++v)
    if (inside_of[v] >= 0)
      exe_->arena_offset_[v] = exe_->arena_offset_[static_cast<size_t>(inside_of[v])] + inside_offset[v];
  exe_->scratch_offset_.assign(exe_->nodes_.size(), SIZE_MAX);
  for (size_t i = 0; i < scratch_nodes.size(); ++i)
    exe_->scratch_offset_[scratch_nodes[i]] = plan.offsets[value_requests + i];
  exe_->arena_bytes_ = plan.arena_bytes;
  exe_->total_intermediate_bytes_ = plan.total_bytes;
}

void ExecutableBuilder::place_concat_inputs(const std::vector<char>& planned, std::vector<int>& inside_of,
                                            std::vector<size_t>& inside_offset) {
  const Graph& g = exe_->graph_;
  exe_->concat_in_place_.assign(exe_->nodes_.size(), 0);
  std::vector<int> readers(g.values.size(), 0);
  for (const CompiledNode& cn : exe_->nodes_)
    for (int in : cn.node.inputs)
      if (in >= 0) ++readers[static_cast<size_t>(in)];
  for (int v : g.outputs) ++readers[static_cast<size_t>(v)];
  for (size_t s = 0; s < exe_->nodes_.size(); ++s) {
    const Node& node = exe_->nodes_[s].node;
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
    exe_->concat_in_place_[s] = 1;
  }
}

void ExecutableBuilder::decide_slots(const std::vector<int>& planned_values) {
  // How a run state holds each value, and which nodes run on a prepared context.
  const Graph& g = exe_->graph_;
  exe_->slot_kind_.assign(g.values.size(), SlotKind::kDynamic);
  for (int v : planned_values) exe_->slot_kind_[static_cast<size_t>(v)] = SlotKind::kArena;
  for (int v : g.inputs)
    if (g.values[static_cast<size_t>(v)].kind == ValueKind::kTensor &&
        shape_is_static(g.values[static_cast<size_t>(v)].shape))
      exe_->slot_kind_[static_cast<size_t>(v)] = SlotKind::kShared;
  exe_->node_prepared_.assign(exe_->nodes_.size(), 0);
  for (size_t s = 0; s < exe_->nodes_.size(); ++s) {
    const CompiledNode& cn = exe_->nodes_[s];
    if (cn.control_flow || !cn.static_outputs) continue;
    if (cn.schema->output_aliases_input) {
      const int out = cn.node.outputs[0];
      if (out >= 0 && cn.node.inputs[0] >= 0 && g.values[static_cast<size_t>(out)].kind == ValueKind::kTensor)
        exe_->slot_kind_[static_cast<size_t>(out)] = SlotKind::kShared;
      continue;
    }
    bool prepared = true;
    for (int out : cn.node.outputs)
      if (out >= 0 && exe_->slot_kind_[static_cast<size_t>(out)] != SlotKind::kArena) prepared = false;
    exe_->node_prepared_[s] = prepared;
  }
}

void ExecutableBuilder::schedule_steps() {
  // A node may run beside another when it runs on one thread and touches only what the run
  // state placed for it: a prepared node, or a view of its input (Reshape and the like).
  std::vector<BranchNode> branch_nodes(exe_->nodes_.size());
  const CompileConfig* config = options_.config.get();
  const int streams[2] = {engine_streams(config, Engine::kAiCore), engine_streams(config, Engine::kAiCpu)};
  for (size_t s = 0; s < exe_->nodes_.size(); ++s) {
    const CompiledNode& cn = exe_->nodes_[s];
    BranchNode& b = branch_nodes[s];
    b.can_branch = branches_allowed_ && exe_->num_threads_ > 1 && cn.single_thread && cn.estimated_cycles >= 0 &&
                   (exe_->node_prepared_[s] || exe_->shares_input_storage(s)) &&
                   streams[cn.engine == Engine::kAiCore ? 0 : 1] >= 2;
    b.cycles = exe_->shares_input_storage(s) ? 0 : cn.estimated_cycles;  // a view copies nothing
    for (int in : cn.node.inputs)
      if (in >= 0) b.deps.push_back(exe_->graph_.values[static_cast<size_t>(in)].producer);
  }
  // A branch is worth the second thread on the rule that makes a node worth a team: at least the
  // grain's work (compiler/op_grain.h). Less did not pay: the estimates of data movement (Slice,
  // Transpose) run 5-10x above what the copies take, and two such branches at once were slower
  // than one after the other (bench/RESULTS.md, "branches"). A compile that has not read the
  // grain yet reads it now.
  auto schedule = [&] { return schedule_branches(branch_nodes, exe_->grain_.cycles); };
  exe_->steps_ = schedule();
  if (grain_pending_ && concurrent_steps(exe_->steps_) > 0) {
    exe_->grain_ = calibrated_threading_grain(exe_->num_threads_, grain_cache_root());
    grain_pending_ = false;
    exe_->steps_ = schedule();
  }
}

}  // namespace openge::compiler
