#include "passes/fusion_result.h"

#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "logging/log.h"
#include "paths/artifact_paths.h"

namespace openge::passes {
namespace {

using Json = nlohmann::json;

std::string key_of(const std::string& session_id, int graph_id) {
  return "session_and_graph_id_" + session_id + "_" + std::to_string(graph_id);
}

Json graph_object(const std::vector<FusionCount>& counts) {
  Json graph = Json::object();
  for (const FusionCount& c : counts) {
    if (c.matched == 0 && c.applied == 0) continue;
    const bool ub = c.kind == "ub";
    Json entry = {{"match_times", std::to_string(c.matched)}, {"effect_times", std::to_string(c.applied)}};
    if (ub) entry["repository_hit_times"] = "0";
    graph[ub ? "ub_fusion" : "graph_fusion"][std::string(c.pass)] = std::move(entry);
  }
  return graph;
}

// The entries this process wrote, per file (sessions may resolve different work paths), and their
// keys in the order they were written: only the last kMaxGraphs stay, so a session that compiles
// for ever new input shapes neither grows this map nor rewrites an ever larger file.
struct FileEntries {
  Json json = Json::object();
  std::deque<std::string> order;
};
std::mutex g_mutex;
std::map<std::string, FileEntries> g_files;

}  // namespace

Status write_fusion_result(const paths::ResolvedPath& where, int graph_id, const std::vector<FusionCount>& counts) {
  const paths::RunIds ids = paths::RunIds::current();
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(where).with_context("fusion_result.json"));
  std::lock_guard<std::mutex> lock(g_mutex);
  FileEntries& file = g_files[where.path];
  const std::string key = key_of(ids.session_id, graph_id);
  if (!file.json.contains(key)) file.order.push_back(key);
  file.json[key] = graph_object(counts);
  while (file.order.size() > kMaxFusionResultGraphs) {
    file.json.erase(file.order.front());
    file.order.pop_front();
  }
  OPENGE_RETURN_IF_ERROR(write_file_atomically(where.path, file.json.dump(4) + "\n")
                             .with_context("fusion_result.json (" + where.rule + ")"));
  OPENGE_LOG_INFO("FE", "fusion result of graph " + std::to_string(graph_id) + " written to " + where.path);
  return Status::Ok();
}

}  // namespace openge::passes
