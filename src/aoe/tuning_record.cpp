#include "aoe/tuning_record.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"

namespace openge::aoe {
namespace {

using json = nlohmann::json;

// "35.35%": how much faster `after` is than `before`.
std::string improvement(double before, double after) {
  if (before <= 0 || after < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", (before - after) / before * 100.0);
  return buf;
}

double rounded(double v, double unit) { return static_cast<double>(static_cast<long long>(v / unit + 0.5)) * unit; }

// YYYYmmddHHMMSSmmm, local time.
std::string timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  char out[40];
  std::snprintf(out, sizeof out, "%s%03d", buf, static_cast<int>(ms));
  return out;
}

json operator_json(const OperatorTuning& op) {
  return {{"op_name", op.name},
          {"op_type", op.op_type},
          {"knowledge_base_hit", op.knowledge_base_hit},
          {"tune_performance",
           {{"Implementation",
             {{"implementation_before_tune", to_string(op.before)},
              {"implementation_after_tune", to_string(op.after)},
              {"performance_before_tune(us)", rounded(op.before_us, 0.001)},
              {"performance_after_tune(us)", rounded(op.after_us, 0.001)},
              {"performance_improvement", improvement(op.before_us, op.after_us)},
              {"update_mode", op.knowledge_base_hit ? "hit" : "add"}}}}}};
}

// The "basic" block both records share (ENV-2: task name, tuning time, model before and after).
json basic_json(const TuningStats& stats, const std::string& model_name, const std::string& timestamp) {
  return {{"tuning_name", model_name + "_" + timestamp},
          {"tuning_time(s)", rounded(stats.tuning_seconds, 0.001)},
          {"model_baseline_performance(ms)", rounded(stats.model_before_ms, 0.001)},
          {"model_result_performance(ms)", rounded(stats.model_after_ms, 0.001)},
          {"model_performance_improvement", improvement(stats.model_before_ms, stats.model_after_ms)}};
}

std::string kb_status(const TuningStats& stats) {
  return !stats.knowledge_base_problem.empty() ? "rebuilt: the file was corrupt (" + stats.knowledge_base_problem + ")"
                                               : "sound";
}

std::string report_key(const std::string& timestamp) {
  return "report_" + timestamp + "_" + std::to_string(static_cast<long>(syscall(SYS_gettid)));
}

}  // namespace

std::string tuning_record_json(const TuningStats& stats, const std::string& model_name, const std::string& timestamp) {
  json modified = json::array(), all = json::array();
  for (const OperatorTuning& op : stats.operators) {
    all.push_back(operator_json(op));
    if (!(op.after == op.before)) modified.push_back(operator_json(op));
  }
  const json basic = basic_json(stats, model_name, timestamp);
  json opat = {{"opat_tuning_result", "tuning successful"},
               {"knowledge_base",
                {{"path", stats.knowledge_base_path},
                 {"status", kb_status(stats)},
                 {"tunable_operators", stats.tunable_operators},
                 {"hits", stats.knowledge_base_hits},
                 {"measured_operators", stats.measured_operators}}},
               {"repo_modified_operators", modified},
               {"tuned_operators", all}};
  json report = json::array({{{"basic", basic}}, {{"OPAT", opat}}});
  json doc = {{report_key(timestamp), report}};
  return doc.dump(1) + "\n";
}

std::string subgraph_record_json(const TuningStats& stats, const std::string& model_name,
                                 const std::string& timestamp) {
  json candidates = json::array();
  for (const auto& c : stats.subgraph_candidates)
    candidates.push_back({{"passes_off", c.passes_off}, {"model_performance(ms)", rounded(c.model_ms, 0.001)}});
  json sgat = {{"sgat_tuning_result", "tuning successful"},
               {"knowledge_base",
                {{"path", stats.knowledge_base_path},
                 {"status", kb_status(stats)},
                 {"hits", stats.subgraph_hit ? 1 : 0},
                 {"operator_hits", stats.knowledge_base_hits}}},
               {"candidates", candidates},
               {"passes_off", stats.passes_off}};
  json report = json::array({{{"basic", basic_json(stats, model_name, timestamp)}}, {{"SGAT", sgat}}});
  json doc = {{report_key(timestamp), report}};
  return doc.dump(1) + "\n";
}

std::string gradient_split_record_json(const TuningStats& stats, const std::string& model_name,
                                       const std::string& timestamp) {
  json candidates = json::array();
  for (const auto& c : stats.split_candidates)
    candidates.push_back({{"split_by_idx", c.split_by_index}, {"step_performance(ms)", rounded(c.step_ms, 0.001)}});
  json gdat = {{"gdat_tuning_result", "tuning successful"},
               {"knowledge_base", {{"path", stats.knowledge_base_path}, {"status", kb_status(stats)}}},
               {"rank_size", stats.ranks},
               {"candidates", candidates},
               {"split_by_idx", stats.split_by_index}};
  json report = json::array({{{"basic", basic_json(stats, model_name, timestamp)}}, {{"GDAT", gdat}}});
  json doc = {{report_key(timestamp), report}};
  return doc.dump(1) + "\n";
}

namespace {

Result<std::string> write_record(const std::string& kind, const TuningStats& stats, const std::string& model_name,
                                 const paths::ResolvedPath& aoe_data,
                                 std::string (*text)(const TuningStats&, const std::string&, const std::string&)) {
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(aoe_data));
  const std::string ts = timestamp_now();
  const std::string path =
      aoe_data.path + "/aoe_result_" + kind + "_" + ts + "_pid" + std::to_string(static_cast<long>(getpid())) + ".json";
  OPENGE_RETURN_IF_ERROR(write_file_atomically(path, text(stats, model_name, ts)).with_context("AOE record"));
  return path;
}

}  // namespace

Result<std::string> write_tuning_record(const TuningStats& stats, const std::string& model_name,
                                        const paths::ResolvedPath& aoe_data) {
  return write_record("opat", stats, model_name, aoe_data, tuning_record_json);
}

Result<std::string> write_subgraph_record(const TuningStats& stats, const std::string& model_name,
                                          const paths::ResolvedPath& aoe_data) {
  return write_record("sgat", stats, model_name, aoe_data, subgraph_record_json);
}

Result<std::string> write_gradient_split_record(const TuningStats& stats, const std::string& model_name,
                                                const paths::ResolvedPath& aoe_data) {
  return write_record("gdat", stats, model_name, aoe_data, gradient_split_record_json);
}

}  // namespace openge::aoe
