#include "compiler/compile_log.h"

#include <cstdio>

#include "base/sha256.h"
#include "compiler/compile_report.h"
#include "kernels/aicore_coverage.h"
#include "logging/log.h"
#include "runtime/executable.h"

namespace openge {

namespace {

// Where the grain came from: the machine's calibration (compiler/grain_calibration.h), or the
// caller's setting.
std::string grain_source(const ThreadingGrain& grain) {
  if (grain.fork_join_us < 0) return "";
  char us[32];
  std::snprintf(us, sizeof us, "%.1f", grain.fork_join_us);
  return std::string(" (a team fork/join calibrated at ") + us + " us)";
}

// The Concats whose inputs were written into their outputs, when there are any.
std::string concats_in_place(const Executable& exe) {
  int n = 0;
  for (size_t s = 0; s < exe.nodes().size(); ++s) n += exe.concat_in_place(s);
  return n ? std::to_string(n) + " Concat" + (n > 1 ? "s" : "") + " in place, " : "";
}

// The thread plan, when the compile chose the calling thread or timed the two.
std::string thread_plan(const Executable& exe) {
  const bool one = exe.run_threads() == RunThreads::kOneThread;
  if (exe.timed_team_us() < 0) return one ? "every node on the calling thread (as asked), " : "";
  char text[160];
  std::snprintf(text, sizeof text, "timed %.0f us a run with the team, %.0f us on the calling thread: %s, ",
                exe.timed_team_us(), exe.timed_one_thread_us(),
                one ? "runs on the calling thread" : "runs with the team");
  return text;
}

// The steps that run two branches at once (runtime/branch_schedule.h), when there are any.
std::string branches(const std::vector<RunStep>& steps) {
  int nodes = 0;
  for (const RunStep& step : steps)
    if (!step.second.empty()) nodes += static_cast<int>(step.first.size() + step.second.size());
  const int concurrent = concurrent_steps(steps);
  if (concurrent == 0) return "";
  return std::to_string(concurrent) + " steps running two branches at once (" + std::to_string(nodes) + " nodes), ";
}

}  // namespace

std::string thread_plan_hash(const Executable& exe) {
  std::string plan = "grain " + std::to_string(exe.threading_grain().cycles) + "\n" +
                     (exe.run_threads() == RunThreads::kOneThread ? "one thread\n" : "team\n");
  for (const CompiledNode& n : exe.nodes()) plan += n.node.name + (n.single_thread ? " 1\n" : " 0\n");
  for (const RunStep& step : exe.run_steps()) {
    if (step.second.empty()) continue;
    plan += "step";
    for (int s : step.first) plan += " " + std::to_string(s);
    plan += " |";
    for (int s : step.second) plan += " " + std::to_string(s);
    plan += "\n";
  }
  return sha256_hex(plan).substr(0, 16);
}

void log_compile_decisions(const Executable& exe, const CompileReport& report, bool aicore_enabled) {
  using logging::Level;
  const std::string model = "model " + exe.graph().source + ": ";
  for (const PassStat& p : report.pass_stats)
    if (p.applied > 0)
      OPENGE_LOG_INFO("FE", model + "fusion pass " + p.name + " applied " + std::to_string(p.applied) + " time(s)");
  for (const std::string& w : report.precision_warnings) OPENGE_LOG_WARNING("FE", model + "precision: " + w);
  if (logging::enabled(Level::kInfo)) {
    for (const precision::PrecisionDecision& d : report.precision_decisions)
      if (d.changed())
        OPENGE_LOG_INFO("FE", model + "node " + d.node_name + " (" + d.op_type + ") computes in " +
                                  dtype_name(d.input_dtype) + " -> " + dtype_name(d.output_dtype) + ": " + d.rule);
  }
  size_t aicore = 0, one_thread = 0;
  for (const CompiledNode& n : exe.nodes()) {
    if (n.single_thread) ++one_thread;
    if (n.engine == Engine::kAiCore) {
      ++aicore;
      continue;
    }
    if (!aicore_enabled || !logging::enabled(Level::kInfo)) continue;
    // A fallback: the op has an AI Core kernel, which refused this node's form.
    const char* why = n.node.aicpu_only                ? "placed on AI CPU by the precision rules"
                      : n.schema->output_aliases_input ? "a view of its input, no kernel runs"
                      : has_aicore_kernel(n.node.op_type)
                          ? "fallback: its AI Core kernel does not cover this dtype, rank or attributes, the AI CPU "
                            "reference kernel runs"
                          : "no AI Core kernel for this op type";
    OPENGE_LOG_INFO("GE", model + "node " + n.node.name + " (" + n.node.op_type + ") runs on AI CPU: " + why);
  }
  OPENGE_LOG_INFO("GE", model + "compiled: " + std::to_string(exe.nodes().size()) + " nodes, " +
                            std::to_string(aicore) + " on AI Core, " + std::to_string(exe.nodes().size() - aicore) +
                            " on AI CPU, " + std::to_string(one_thread) + " below the threading grain of " +
                            std::to_string(exe.threading_grain().cycles) + " cycles" +
                            grain_source(exe.threading_grain()) + " (on the calling thread), " +
                            branches(exe.run_steps()) + thread_plan(exe) + concats_in_place(exe) + "arena " +
                            std::to_string(exe.arena_bytes()) + " bytes, thread plan " + thread_plan_hash(exe));
}

}  // namespace openge
