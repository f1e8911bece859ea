// Executable::run: the run's steps in order on one run state (runtime/branch_schedule.h: a step
// is one node, or two independent branches of one-thread nodes on two threads). A node whose
// shapes are static and whose outputs are in the arena runs on the context prepared for it when
// the state was made; the others (shapes known only now, control flow, sequences) infer and
// allocate as they go.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <mutex>

#include <omp.h>

#include "base/aligned_memory.h"
#include "base/omp_threads.h"
#include "base/parallel.h"
#include "runtime/control_flow.h"
#include "runtime/executable.h"
#include "ops/node_eval.h"
#include "runtime/run_state.h"

namespace openge {

Executable::~Executable() = default;

bool Executable::shares_input_storage(size_t s) const {
  const CompiledNode& cn = nodes_[s];
  return cn.schema->output_aliases_input && cn.node.outputs[0] >= 0 &&
         slot_kind_[static_cast<size_t>(cn.node.outputs[0])] == SlotKind::kShared;
}

std::unique_ptr<RunState> Executable::make_run_state() const {
  const Graph& g = graph_;
  auto state = std::make_unique<RunState>();
  state->arena.reset(allocate_aligned(arena_bytes_));
  std::byte* base = static_cast<std::byte*>(state->arena.get());
  state->slots.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& value = g.values[v];
    if (slot_kind_[v] == SlotKind::kArena)
      state->slots[v] = Tensor::borrow(value.dtype, *value.shape, base + arena_offset_[v]);
    else if (slot_kind_[v] == SlotKind::kShared)
      state->slots[v] = Tensor::borrow(value.dtype, *value.shape, nullptr);
  }
  state->nodes.resize(nodes_.size());
  for (size_t s = 0; s < nodes_.size(); ++s) {
    const CompiledNode& cn = nodes_[s];
    NodeRunState& ns = state->nodes[s];
    for (int in : cn.node.inputs) {
      const Value* value = in >= 0 ? &g.values[static_cast<size_t>(in)] : nullptr;
      ns.inputs.push_back(!value            ? nullptr
                          : value->constant ? &*value->constant
                                            : &state->slots[static_cast<size_t>(in)]);
    }
    for (int out : cn.node.outputs) ns.outputs.push_back(out >= 0 ? &state->slots[static_cast<size_t>(out)] : nullptr);
    ns.const_outputs.assign(ns.outputs.begin(), ns.outputs.end());
    if (!node_prepared_[s]) continue;
    ns.context.emplace(cn.node, g.opset, ns.inputs, ns.outputs);
    void* scratch = scratch_offset_[s] != SIZE_MAX ? base + scratch_offset_[s] : nullptr;
    ns.context->set_prepared(scratch, nullptr);
    if (cn.kernel) ns.kernel_state = cn.kernel->make_state(*ns.context);
    ns.context->set_prepared(scratch, ns.kernel_state.get());
  }
  return state;
}

std::unique_ptr<RunState> Executable::acquire_state() const {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!state_pool_.empty()) {
      auto state = std::move(state_pool_.back());
      state_pool_.pop_back();
      return state;
    }
  }
  return make_run_state();
}

void Executable::release_state(std::unique_ptr<RunState> state) const {
  // What a failed or finished run left in its slots is dropped: the pool keeps no caller's data.
  for (size_t v = 0; v < state->slots.size(); ++v) {
    if (slot_kind_[v] == SlotKind::kShared)
      state->slots[v].drop_storage();
    else if (slot_kind_[v] == SlotKind::kDynamic && state->slots[v].defined())
      state->slots[v] = Tensor();
  }
  std::lock_guard<std::mutex> lock(state_mutex_);
  state_pool_.push_back(std::move(state));
}

void Executable::drop_run_states() {
  std::lock_guard<std::mutex> lock(state_mutex_);
  state_pool_.clear();
}

Status Executable::node_failed(size_t index, const std::vector<const Tensor*>& inputs,
                               const std::vector<Tensor*>& outputs, const Status& failure, bool kernel_ran) const {
  if (!failure_hook_) return failure;
  // Two branches of one step may fail at once (runtime/branch_schedule.h): one dump at a time.
  static std::mutex dumping;
  std::lock_guard<std::mutex> lock(dumping);
  const std::vector<const Tensor*> outs(outputs.begin(), outputs.end());
  const CompiledNode& cn = nodes_[index];
  const KernelWorkspace workspace = kernel_ran && cn.kernel ? cn.kernel->last_workspace() : KernelWorkspace{};
  return failure_hook_->on_node_failed(index, cn, inputs, outs, workspace, failure);
}

Result<std::vector<Tensor>> Executable::run(const std::vector<Tensor>& inputs, RunStats* stats,
                                            RunObserver* observer) const {
  std::vector<Tensor> outputs;
  OPENGE_RETURN_IF_ERROR(run_into(inputs, outputs, stats, observer));
  return outputs;
}

namespace {

// True when `out` can take `t`'s bytes in place: same dtype and shape, plain numbers, and storage
// that nobody else holds.
bool fits_in_place(const Tensor& out, const Tensor& t) {
  return out.sole_owner() && out.dtype() == t.dtype() && out.shape() == t.shape() && t.is_tensor() &&
         t.dtype() != DType::kString;
}

}  // namespace

Status Executable::run_node(size_t s, RunState& state, size_t& dynamic_bytes, size_t& peak_dynamic,
                            bool& kernel_ran) const {
  const Graph& g = graph_;
  const CompiledNode& cn = nodes_[s];
  const Node& node = cn.node;
  NodeRunState& ns = state.nodes[s];
  std::vector<Tensor>& slots = state.slots;
  Status status;
  if (concat_in_place_[s]) return Status::Ok();  // its inputs were written into its output
  // The graph's work split on whichever thread runs the node (branches run on the team's threads);
  // a nested graph's (If, Loop) is undone when its node ends.
  struct SplitScope {
    WorkSplit outer = tls_work_split;
    explicit SplitScope(bool tapered) { tls_work_split = tapered ? WorkSplit::kTapered : WorkSplit::kUniform; }
    ~SplitScope() { tls_work_split = outer; }
  } split_scope(tapered_work_split_);
  if (node_prepared_[s]) {
    KernelContext& ctx = *ns.context;
    status = run_guarded(node, [&] { return cn.kernel ? cn.kernel->run(ctx) : cn.schema->reference(ctx); });
    kernel_ran = cn.kernel != nullptr;
    if (!status.ok()) return node_failed(s, ns.inputs, ns.outputs, status, kernel_ran);
  } else if (cn.schema->output_aliases_input && slot_kind_[static_cast<size_t>(node.outputs[0])] == SlotKind::kShared) {
    slots[static_cast<size_t>(node.outputs[0])].share_storage(*ns.inputs[0]);
  } else {
    std::vector<ValueInfo> infos;
    std::vector<Tensor> folded;
    if (!cn.static_outputs && !cn.control_flow) {
      auto inferred = infer_node(*cn.schema, node, g.opset, ns.inputs, &folded);
      if (!inferred.ok()) return node_failed(s, ns.inputs, {}, inferred.status(), false);
      infos = std::move(inferred.value());
    }
    auto out_shape = [&](size_t o) -> const Shape& {
      return cn.static_outputs ? *g.values[static_cast<size_t>(node.outputs[o])].shape : infos[o].shape;
    };
    if (cn.control_flow) {
      // Its outputs' shapes are known only once its subgraphs have run: they come back owned.
      auto outs = guard_exceptions([&] { return cn.control_flow->run(ns.inputs); },
                                   [&] { return node.op_type + " '" + node.name + "'"; });
      if (!outs.ok()) return outs.status();
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o] < 0) continue;
        Tensor& slot = slots[static_cast<size_t>(node.outputs[o])];
        slot = std::move((*outs)[o]);
        dynamic_bytes += slot.nbytes();
      }
      peak_dynamic = std::max(peak_dynamic, dynamic_bytes);
    } else if (cn.schema->output_aliases_input) {
      slots[static_cast<size_t>(node.outputs[0])] = ns.inputs[0]->reshaped(out_shape(0));
    } else {
      bool all_folded = true;
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        const int v = node.outputs[o];
        if (v < 0) continue;
        Tensor& slot = slots[static_cast<size_t>(v)];
        const DType dtype = g.values[static_cast<size_t>(v)].dtype;
        const ValueKind kind = g.values[static_cast<size_t>(v)].kind;
        if (o < folded.size() && folded[o].defined()) {
          slot = folded[o];
        } else if (!output_is_allocated(kind, dtype)) {
          slot = Tensor();  // a sequence or optional: the kernel assigns it whole
          all_folded = false;
        } else if (slot_kind_[static_cast<size_t>(v)] == SlotKind::kArena) {
          all_folded = false;  // placed when the run state was made
        } else {
          slot = Tensor(dtype, out_shape(o));
          dynamic_bytes += slot.nbytes();
          all_folded = false;
        }
      }
      peak_dynamic = std::max(peak_dynamic, dynamic_bytes);
      if (!all_folded) {
        KernelContext ctx(node, g.opset, ns.inputs, ns.outputs);
        status = run_guarded(node, [&] { return cn.kernel ? cn.kernel->run(ctx) : cn.schema->reference(ctx); });
        kernel_ran = cn.kernel != nullptr;
        if (!status.ok()) return node_failed(s, ns.inputs, ns.outputs, status, kernel_ran);
        for (size_t o = 0; status.ok() && o < node.outputs.size(); ++o)
          if (node.outputs[o] >= 0)
            status = check_kernel_made(node, o, g.values[static_cast<size_t>(node.outputs[o])].kind,
                                       slots[static_cast<size_t>(node.outputs[o])]);
        if (!status.ok()) return status;
      }
    }
  }
  return Status::Ok();
}

size_t Executable::zero_outputs(size_t s, RunState& state) const {
  // Outputs made at run time (dynamic shapes) are allocated zeroed (Tensor's constructor).
  size_t bytes = 0;
  for (int out : nodes_[s].node.outputs) {
    if (out < 0 || slot_kind_[static_cast<size_t>(out)] != SlotKind::kArena) continue;
    Tensor& slot = state.slots[static_cast<size_t>(out)];
    if (slot.nbytes()) std::memset(slot.raw(), 0, slot.nbytes());
    bytes += slot.nbytes();
  }
  return bytes;
}

Status Executable::run_steps_on(RunState& state, RunObserver* observer, size_t& peak_dynamic) const {
  const Graph& g = graph_;
  std::vector<Tensor>& slots = state.slots;
  size_t dynamic_bytes = 0;
  Status status;
  // stream_sync_timeout (OPT-stream_sync_timeout-1, MISC-17): checked after every node, so the
  // error names the node that was running when the time ran out.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point run_start = Clock::now();
  const Clock::time_point deadline = stream_sync_timeout_ms_ > 0
                                         ? run_start + std::chrono::milliseconds(stream_sync_timeout_ms_)
                                         : Clock::time_point::max();
  auto past_deadline = [&](size_t s, bool kernel_ran) {
    const NodeRunState& ns = state.nodes[s];
    const Node& node = nodes_[s].node;
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - run_start).count();
    return node_failed(
        s, ns.inputs, ns.outputs,
        resource_exhausted("stream_sync_timeout=" + std::to_string(stream_sync_timeout_ms_) + " ms expired while " +
                           node.op_type + " '" + node.name + "' (task " + std::to_string(s) + " of " +
                           std::to_string(nodes_.size()) + ") was running; the run had taken " +
                           std::to_string(elapsed) + " ms (raise stream_sync_timeout, or -1 for no timeout)"),
        kernel_ran);
  };
  // atomic_clean_policy 0: one MemSet over the outputs of every node that adds into them, whose
  // buffers the memory plan keeps from the first step on (compiler/memory_layout.cpp).
  if (atomic_clean_policy_ == 0 &&
      std::find(zeroes_outputs_.begin(), zeroes_outputs_.end(), char{1}) != zeroes_outputs_.end()) {
    if (observer) observer->on_memset_start();
    size_t bytes = 0;
    for (size_t s = 0; s < nodes_.size(); ++s)
      if (zeroes_outputs_[s]) bytes += zero_outputs(s, state);
    if (observer) observer->on_memset_end(-1, bytes);
  }
  // atomic_clean_policy 1: a MemSet of the node's own outputs just before it runs.
  auto clean_before = [&](size_t s, RunObserver* seen_by) {
    if (atomic_clean_policy_ != 1 || !zeroes_outputs_[s]) return;
    if (seen_by) seen_by->on_memset_start();
    const size_t bytes = zero_outputs(s, state);
    if (seen_by) seen_by->on_memset_end(static_cast<int>(s), bytes);
  };
  // One node on the calling thread, its observer around it.
  auto run_observed = [&](size_t s) {
    const CompiledNode& cn = nodes_[s];
    NodeRunState& ns = state.nodes[s];
    clean_before(s, observer);
    ScopedNumThreads node_threads(cn.single_thread ? 1 : 0);  // observers see the node's setting too
    if (observer) observer->on_node_start(s, cn);
    bool kernel_ran = false;
    Status node_status = run_node(s, state, dynamic_bytes, peak_dynamic, kernel_ran);
    if (!node_status.ok()) return node_status;
    if (observer) observer->on_node_end(s, cn, ns.inputs, ns.const_outputs);
    return Clock::now() > deadline ? past_deadline(s, kernel_ran) : Status::Ok();
  };
  // A list of one-thread branch nodes (runtime/branch_schedule.h): prepared or views, so they
  // touch neither the dynamic byte counts nor anything the other list touches.
  auto run_branch = [&](const std::vector<int>& list) {
    ScopedNumThreads one_thread(1);
    size_t unused_bytes = 0, unused_peak = 0;
    for (int s : list) {
      bool kernel_ran = false;
      clean_before(static_cast<size_t>(s), nullptr);
      Status node_status = run_node(static_cast<size_t>(s), state, unused_bytes, unused_peak, kernel_ran);
      if (!node_status.ok()) return node_status;
    }
    return Status::Ok();
  };
  for (size_t k = 0; k < steps_.size() && status.ok(); ++k) {
    const RunStep& step = steps_[k];
    if (step.second.empty() || observer) {
      // Observed runs (profiling, dumps) take the branches one after the other: each node's
      // task, timestamps and dumps are its own.
      for (const std::vector<int>* list : {&step.first, &step.second})
        for (size_t i = 0; i < list->size() && status.ok(); ++i) status = run_observed(static_cast<size_t>((*list)[i]));
    } else {
      Status branch_status[2];
      // Inside a caller's parallel region this team has one thread, which then runs both lists.
#pragma omp parallel num_threads(2)
      for (int b = omp_get_thread_num(); b < 2; b += omp_get_num_threads())
        branch_status[b] = run_branch(b == 0 ? step.first : step.second);
      status = branch_status[0].ok() ? branch_status[1] : branch_status[0];
      if (status.ok() && Clock::now() > deadline)
        status = past_deadline(static_cast<size_t>(step.second.back()), false);
    }
    if (!status.ok()) break;
    // Inputs read for the last time: dynamic buffers go, shared storage is let go; arena slots stay.
    for (const std::vector<int>* list : {&step.first, &step.second})
      for (int s : *list)
        for (int in : nodes_[static_cast<size_t>(s)].node.inputs) {
          if (in < 0 || last_use_[static_cast<size_t>(in)] != static_cast<int>(k) ||
              g.values[static_cast<size_t>(in)].constant)
            continue;
          Tensor& slot = slots[static_cast<size_t>(in)];
          const SlotKind kind = slot_kind_[static_cast<size_t>(in)];
          if (kind == SlotKind::kShared) {
            slot.drop_storage();
          } else if (kind == SlotKind::kDynamic) {
            if (slot.owns_storage() && g.values[static_cast<size_t>(in)].producer >= 0 &&
                alias_root_[static_cast<size_t>(in)] == in)
              dynamic_bytes -= std::min(dynamic_bytes, slot.nbytes());
            slot = Tensor();
          }
        }
  }
  return status;
}

Status Executable::run_into(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunStats* stats,
                            RunObserver* observer) const {
  const Graph& g = graph_;
  if (inputs.size() != g.inputs.size())
    return invalid_argument("the model takes " + std::to_string(g.inputs.size()) + " inputs, " +
                            std::to_string(inputs.size()) + " were given");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    if (v.kind != ValueKind::kTensor || inputs[i].kind() != ValueKind::kTensor) {
      if (inputs[i].kind() != v.kind || (v.dtype != DType::kUndefined && inputs[i].dtype() != v.dtype))
        return invalid_argument("input '" + v.name + "' must be a " + value_kind_name(v.kind) + " of " +
                                dtype_name(v.dtype) + ", got a " + value_kind_name(inputs[i].kind()) + " of " +
                                dtype_name(inputs[i].dtype()));
      continue;
    }
    if (inputs[i].dtype() != v.dtype || inputs[i].shape() != *v.shape)
      return invalid_argument("input '" + v.name + "' must be " + dtype_name(v.dtype) + " " +
                              shape_to_string(*v.shape) + " (as compiled), got " + dtype_name(inputs[i].dtype()) + " " +
                              shape_to_string(inputs[i].shape()));
  }
  // This thread's OpenMP setting may differ (another session, the caller's own code): restored after.
  ScopedNumThreads threads(num_threads_);
  std::unique_ptr<RunState> state = acquire_state();
  std::vector<Tensor>& slots = state->slots;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t v = static_cast<size_t>(g.inputs[i]);
    if (slot_kind_[v] == SlotKind::kShared)
      slots[v].share_storage(inputs[i]);
    else
      slots[v] = inputs[i];
  }
  auto tensor_of = [&](int v) -> const Tensor* {
    if (v < 0) return nullptr;
    const Value& value = g.values[static_cast<size_t>(v)];
    return value.constant ? &*value.constant : &slots[static_cast<size_t>(v)];
  };

  size_t peak_dynamic = 0;
  const Status status = run_steps_on(*state, observer, peak_dynamic);
  if (!status.ok()) {
    release_state(std::move(state));
    return status.with_context("model " + g.source);
  }
  if (observer) observer->on_outputs_start();
  // The outputs leave the run: bytes in the arena, a graph input or a constant are copied (into
  // the caller's tensor when it fits, else a new one); an owned dynamic result is handed over.
  outputs.resize(g.outputs.size());
  size_t copied_bytes = 0;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int v = g.outputs[i];
    const Tensor* t = tensor_of(v);
    const Value& value = g.values[static_cast<size_t>(v)];
    const bool shares_foreign_storage = slot_kind_[static_cast<size_t>(v)] != SlotKind::kDynamic ||
                                        !t->owns_storage() || value.constant ||
                                        g.values[static_cast<size_t>(alias_root_[static_cast<size_t>(v)])].producer < 0;
    if (!shares_foreign_storage) {
      outputs[i] = *t;
      continue;
    }
    copied_bytes += t->nbytes();
    if (fits_in_place(outputs[i], *t)) {
      if (t->nbytes()) std::memcpy(outputs[i].raw(), t->raw(), t->nbytes());
    } else {
      outputs[i] = t->clone();
    }
  }
  if (observer) observer->on_outputs_end(copied_bytes);
  release_state(std::move(state));
  if (stats) {
    stats->arena_bytes = arena_bytes_;
    stats->peak_dynamic_bytes = peak_dynamic;
  }
  return Status::Ok();
}

}  // namespace openge
