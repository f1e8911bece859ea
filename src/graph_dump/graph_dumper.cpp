#include "graph_dump/graph_dumper.h"

#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

#include "graph_dump/graph_to_onnx.h"
#include "base/file_modes.h"
#include "io/atomic_file.h"
#include "logging/log.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"

namespace openge::graph_dump {
namespace {

// GE numbers graphs per process and dump files with one process-wide index.
std::atomic<int> g_next_graph_id{0};
std::atomic<int> g_next_file_index{0};

void strip_weight_data(onnx::ModelProto& model) {
  for (auto& t : *model.mutable_graph()->mutable_initializer()) t.clear_raw_data();
  for (auto& n : *model.mutable_graph()->mutable_node())
    for (auto& a : *n.mutable_attribute())
      if (a.has_t()) a.mutable_t()->clear_raw_data();
}

}  // namespace

Result<std::string> claim_dump_folder(const std::string& folder, int device_id) {
  static std::mutex mutex;
  static std::map<std::string, std::string> chosen;  // folder -> where this process writes
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = chosen.find(folder); it != chosen.end()) return it->second;
  std::error_code ec;
  const std::string canonical = std::filesystem::weakly_canonical(folder, ec).string();
  char name[64];
  std::snprintf(name, sizeof name, "openge-graph-dump-%016zx", std::hash<std::string>{}(ec ? folder : canonical));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name, std::strlen(name));  // sun_path[0] = 0: the abstract namespace
  const socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + std::strlen(name));
  std::string where = folder;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), length) != 0) {
    const bool taken = errno == EADDRINUSE;
    ::close(fd);
    if (taken) {
      where = (std::filesystem::path(folder) / (std::to_string(::getpid()) + "_" + std::to_string(device_id))).string();
      OPENGE_RETURN_IF_ERROR(make_directories(where, kFolderMode).with_context("DUMP_GE_GRAPH"));
      OPENGE_LOG_INFO("GE", "graph dumps of this process go to " + where + ": another process dumps into " + folder);
    }
  }
  // A bound socket stays open for the life of the process: the claim. Where no socket can be made,
  // the folder is written as before.
  chosen[folder] = where;
  return where;
}

std::string after_fusion_group(std::string_view pass_kind) {
  return pass_kind == "ub" ? "PreRunAfterUbFusion" : "PreRunAfterGraphFusion";
}

GraphDumpSettings graph_dump_settings(const options::OptionSet& options) {
  GraphDumpSettings s;
  if (!options.has_value("DUMP_GE_GRAPH")) return s;
  s.detail = static_cast<int>(options.get_int("DUMP_GE_GRAPH", 0));
  s.level = static_cast<int>(options.get_int("DUMP_GRAPH_LEVEL", 2));
  s.where = paths::resolve_artifact(paths::ArtifactKind::kGraphDump, options, paths::RunIds::current());
  s.device_id = options.device_id();
  return s;
}

GraphDumper::GraphDumper(const GraphDumpSettings* settings) : graph_id_(g_next_graph_id++) {
  if (!settings) return;
  where_ = settings->where;
  device_id_ = settings->device_id;
  detail_ = settings->detail;
  level_ = settings->level;
}

// GE's filter (graph_utils.cc): 1 every stage; 2 all but partition/subgraph/AI CPU stages; 3 the
// built graph; 4 the graph as loaded.
bool GraphDumper::level_keeps(std::string_view stage) const {
  switch (level_) {
    case 1:
      return true;
    case 3:
      return stage == kFinal;
    case 4:
      return stage == kAfterLoad;
    default:
      for (std::string_view skip : {"partition", "OptimizeSubGraph", "Aicpu", "sub_graph"})
        if (stage.find(skip) != std::string_view::npos) return false;
      return true;
  }
}

Result<std::string> GraphDumper::next_file_stem() {
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(where_).with_context("DUMP_GE_GRAPH"));
  auto folder = claim_dump_folder(where_.path, device_id_);
  if (!folder.ok()) return folder.status();
  char stem[64];
  std::snprintf(stem, sizeof stem, "ge_onnx_%08d_graph_%d_", g_next_file_index++, graph_id_);
  return (std::filesystem::path(*folder) / stem).string();
}

Status GraphDumper::write_beside(std::string_view name, std::string_view contents) {
  if (!active()) return Status::Ok();
  auto stem = next_file_stem();
  if (!stem.ok()) return stem.status();
  const std::string path = *stem + std::string(name);
  OPENGE_RETURN_IF_ERROR(write_file_atomically(path, contents).with_context("DUMP_GE_GRAPH"));
  OPENGE_LOG_INFO("GE", "precision report " + path);
  return Status::Ok();
}

Status GraphDumper::dump(const Graph& graph, std::string_view stage) {
  // Every stage is an engine event of the trace ring (atrace), dumped or not.
  OPENGE_LOG_DEBUG("GE", "compile stage " + std::string(stage) + " done: " + std::to_string(graph.nodes.size()) +
                             " nodes, model " + graph.source);
  if (!active() || !level_keeps(stage)) return Status::Ok();
  auto stem = next_file_stem();
  if (!stem.ok()) return stem.status();
  onnx::ModelProto model;
  graph_to_onnx(graph, static_cast<Detail>(detail_), model, /*file_constants=*/true);
  const std::string base = *stem + std::string(stage);
  OPENGE_RETURN_IF_ERROR(
      write_file_atomically(base + ".onnx", model.SerializeAsString()).with_context("DUMP_GE_GRAPH"));
  // The text leaves the weights' bytes out (they are in the .onnx): escaped, ResNet-50's 100 MB
  // of weights become ~290 MB of unreadable text per stage and most of a compile's time.
  strip_weight_data(model);
  std::string text;
  google::protobuf::TextFormat::PrintToString(model, &text);
  OPENGE_RETURN_IF_ERROR(write_file_atomically(base + ".pbtxt", text).with_context("DUMP_GE_GRAPH"));
  OPENGE_LOG_INFO("GE", "graph dump " + base + ".onnx (" + std::to_string(graph.nodes.size()) + " nodes)");
  return Status::Ok();
}

}  // namespace openge::graph_dump
