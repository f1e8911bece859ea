// The thread-plan stage of a compile (compiler/thread_plan.h): a small static graph is timed on
// the real executor with the team plan and with every node on the calling thread, and keeps the
// faster.
#include <algorithm>
#include <chrono>

#include "aoe/kernel_timing.h"
#include "compiler/executable_builder.h"
#include "compiler/op_grain.h"
#include "logging/log.h"
#include "runtime/control_flow.h"

namespace openge::compiler {
namespace {

// Timed runs of each plan, alternating after one warm-up run each: at least kCalibrationMinRounds
// pairs, then more until kCalibrationTime has passed (the medians of a few runs of a model of 1 ms
// moved by a third between two compiles on a shared machine), at most kCalibrationMaxRounds.
constexpr int kCalibrationMinRounds = 5;
constexpr int kCalibrationMaxRounds = 40;
constexpr std::chrono::milliseconds kCalibrationTime{40};

}  // namespace

bool ExecutableBuilder::small_static_graph() const {
  int64_t cycles = 0;
  for (const Node& node : exe_->graph_.nodes) {
    if (has_subgraph(node)) return false;
    const openge::KernelRequest request = kernel_request(node, false);
    for (const ValueInfo& out : request.outputs)
      if (out.dtype != DType::kUndefined && out.kind == ValueKind::kTensor && !out.shape_known) return false;
    cycles += std::max<int64_t>(estimated_node_cycles(request), 0);
    if (cycles > kCalibrationMaxCycles) return false;
  }
  return true;
}

void ExecutableBuilder::swap_thread_plans() {
  for (OneThreadKernel& alt : one_thread_kernels_) {
    CompiledNode& cn = exe_->nodes_[alt.node];
    if (alt.kernel) std::swap(cn.kernel, alt.kernel);
    std::swap(cn.single_thread, alt.single_thread);
  }
  branches_allowed_ = !branches_allowed_;
  // The run states hold the other kernels' states and the other plan's scratch.
  plan_memory_layout();
  exe_->drop_run_states();
}

void ExecutableBuilder::choose_thread_plan(ThreadPlanChoice choice) {
  exe_->run_threads_ =
      choice == ThreadPlanChoice::kOneThread && exe_->num_threads_ > 1 ? RunThreads::kOneThread : RunThreads::kTeam;
  if (choice != ThreadPlanChoice::kCalibrate || exe_->num_threads_ <= 1 || !time_plans_) return;
  // The nodes select_kernels gave no one-thread kernel (AI CPU kernels, whose parallel loops
  // follow the node's setting at run time) only change their flag.
  std::vector<char> has_alternative(exe_->nodes_.size(), 0);
  for (const OneThreadKernel& alt : one_thread_kernels_) has_alternative[alt.node] = 1;
  for (size_t s = 0; s < exe_->nodes_.size(); ++s)
    if (!exe_->nodes_[s].single_thread && !has_alternative[s]) one_thread_kernels_.push_back({s, nullptr, true});
  const bool any_team = !one_thread_kernels_.empty() || concurrent_steps(exe_->steps_) > 0;
  // Only a compile that measured the grain times the plans (a pinned grain pins the plan too).
  if (!any_team || exe_->grain_.fork_join_us < 0) {
    one_thread_kernels_.clear();
    return;
  }
  // Zeros: valid for every input (an index, a count, a shape), and the same work as real data for
  // the kernels of a static graph.
  std::vector<Tensor> inputs;
  for (int v : exe_->graph_.inputs) {
    const Value& value = exe_->graph_.values[static_cast<size_t>(v)];
    if (value.kind != ValueKind::kTensor || !shape_is_static(value.shape)) {
      one_thread_kernels_.clear();
      return;
    }
    inputs.emplace_back(value.dtype, *value.shape);
  }
  std::vector<Tensor> outputs;
  // A timing run that fails is not the user's run: no exception dump (failure hook) for it.
  std::shared_ptr<const NodeFailureHook> hook = std::move(exe_->failure_hook_);
  struct Restore {
    std::shared_ptr<const NodeFailureHook>& slot;
    std::shared_ptr<const NodeFailureHook>& saved;
    ~Restore() { slot = std::move(saved); }
  } restore{exe_->failure_hook_, hook};
  auto timed_run = [&]() -> double {
    const auto t0 = std::chrono::steady_clock::now();
    const Status ran = exe_->run_into(inputs, outputs);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    return ran.ok() ? us : -1;
  };
  // Team plan now; the one-thread plan after each swap. Each plan's first run makes its run state.
  std::vector<double> team, one;
  bool ok = true;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; ok && r <= kCalibrationMaxRounds; ++r) {
    if (r > kCalibrationMinRounds && std::chrono::steady_clock::now() - start > kCalibrationTime) break;
    const double t = timed_run();
    swap_thread_plans();
    const double o = timed_run();
    swap_thread_plans();
    ok = t >= 0 && o >= 0;
    if (r == 0) continue;  // warm-up
    team.push_back(t);
    one.push_back(o);
  }
  if (ok) {
    exe_->timed_team_us_ = aoe::median(team);
    exe_->timed_one_thread_us_ = aoe::median(one);
    if (exe_->timed_one_thread_us_ < exe_->timed_team_us_) {
      swap_thread_plans();
      exe_->run_threads_ = RunThreads::kOneThread;
    }
  } else {
    OPENGE_LOG_INFO(
        "GE", "model " + exe_->graph_.source + ": a timing run of the thread plans failed; the team plan is kept");
  }
  one_thread_kernels_.clear();  // the plan not kept: its kernels and packed weights go
}

}  // namespace openge::compiler
