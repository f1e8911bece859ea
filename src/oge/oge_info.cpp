// What a .oge holds, for `openge compile --info` and ATC --mode=1 (openge/compile.h).
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "oge/oge_file.h"
#include "openge/compile.h"

namespace openge {
namespace {

using Json = nlohmann::json;

Json value_json(const Value& v) {
  Json out = {{"name", v.name}, {"dtype", dtype_name(v.dtype)}};
  if (v.kind != ValueKind::kTensor) out["kind"] = value_kind_name(v.kind);
  if (v.shape) out["shape"] = *v.shape;
  return out;
}

std::string value_name(const Graph& g, int v) { return v < 0 ? "" : g.values[static_cast<size_t>(v)].name; }

}  // namespace

Result<CompiledModelInfo> read_compiled_model_info(const std::string& path) {
  auto model = oge::read_oge_file(path);
  if (!model.ok()) return model.status();
  const oge::OgeHeader& h = model->header;
  CompiledModelInfo info;
  info.format_version = h.format_version;
  info.engine_version = h.engine_version;
  info.cpu_features = h.cpu_features;
  info.options = h.options;
  info.fusion_passes = h.fusion_passes;
  info.source_model = h.source_model;
  info.debug = h.debug;
  info.nodes = model->graph.nodes.size();
  return info;
}

Status write_compiled_model_json(const std::string& oge_path, const std::string& json_path) {
  auto model = oge::read_oge_file(oge_path);
  if (!model.ok()) return model.status();
  const Graph& g = model->graph;
  const oge::OgeHeader& h = model->header;
  Json header = {{"format_version", h.format_version}, {"engine_version", h.engine_version},
                 {"cpu_features", h.cpu_features},     {"options", h.options},
                 {"fusion_passes", h.fusion_passes},   {"source_model", h.source_model}};
  // The prebuilt kernels by name and size (their bytes are machine code, not for a JSON reader).
  Json kernels = Json::array();
  for (const auto& [name, binary] : h.kernels) kernels.push_back({{"name", name}, {"bytes", binary.size()}});
  header["kernels"] = {{"isa", h.kernel_isa}, {"binaries", kernels}};
  Json inputs = Json::array(), outputs = Json::array(), nodes = Json::array();
  for (int v : g.inputs) inputs.push_back(value_json(g.values[static_cast<size_t>(v)]));
  for (int v : g.outputs) outputs.push_back(value_json(g.values[static_cast<size_t>(v)]));
  for (const Node& n : g.nodes) {
    Json node = {{"name", n.name},
                 {"type", n.op_type},
                 {"input", Json::array()},
                 {"output", Json::array()},
                 {"attr", Json::array()}};
    if (!n.domain.empty()) node["domain"] = n.domain;
    for (int v : n.inputs) node["input"].push_back(value_name(g, v));
    for (int v : n.outputs) node["output"].push_back(value_name(g, v));
    for (const auto& [name, attr] : n.attrs.all()) node["attr"].push_back(name);
    if (!n.fused_from.empty()) node["fused_from"] = n.fused_from;
    nodes.push_back(std::move(node));
  }
  const Json doc = {{"header", header}, {"graph", {{"input", inputs}, {"output", outputs}, {"node", nodes}}}};
  // Names come from the model file: bytes that are not UTF-8 are replaced rather than refused.
  return write_file_atomically(json_path, doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace openge
