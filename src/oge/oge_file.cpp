#include "oge/oge_file.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include "base/mapped_file.h"
#include "base/sha256.h"
#include "frontend/attribute_proto.h"
#include "frontend/model_without_weights.h"
#include "frontend/onnx_loader.h"
#include "frontend/tensor_proto.h"
#include "graph_dump/graph_to_onnx.h"
#include "base/base64.h"
#include "base/cpu_features.h"
#include "ops/fused/fused_ops.h"
#include "ops/op_registry.h"
#include "ops/node_eval.h"

#ifndef OPENGE_ENGINE_VERSION
#error "CMakeLists.txt defines OPENGE_ENGINE_VERSION for this file"
#endif

namespace openge::oge {
namespace fs = std::filesystem;
namespace {

// ModelProto.domain of every .oge: near the start of the file (fields are written in number
// order), so that bytes in memory are recognised without parsing them.
constexpr std::string_view kMarker = "ai.openge.compiled";
constexpr size_t kMarkerWindow = 96;
constexpr const char* kDigestKey = "openge.digest";
constexpr const char* kDigestPrefix = "sha256:";
constexpr const char* kOptionPrefix = "openge.option.";
constexpr const char* kDebugPrefix = "openge.debug.";
// The reader never follows external data: a .oge holds its weights inline.
const std::string kNoExternalData = "/nonexistent-openge-oge-external-data";

// The header's metadata keys.
constexpr const char* kFormatKey = "openge.format_version";
constexpr const char* kEngineKey = "openge.engine_version";
constexpr const char* kCpuKey = "openge.cpu_features";
constexpr const char* kPassesKey = "openge.fusion_passes";
constexpr const char* kSourceKey = "openge.source_model";
// Prebuilt kernels: the level they were built for, and each binary in base64 (ONNX tools read
// metadata values as UTF-8).
constexpr const char* kKernelIsaKey = "openge.kernels.isa";
constexpr const char* kKernelPrefix = "openge.kernel.";

std::string trailer_for(const std::string& hex) {
  onnx::ModelProto t;
  auto* entry = t.add_metadata_props();
  entry->set_key(kDigestKey);
  entry->set_value(kDigestPrefix + hex);
  return t.SerializeAsString();
}

size_t trailer_size() {
  static const size_t size = trailer_for(std::string(64, '0')).size();
  return size;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Every value a node or the graph refers to gets a unique, non-empty name (passes may leave
// two values with one name, or none).
void make_names_unique(Graph& g) {
  std::set<std::string> taken;
  for (size_t v = 0; v < g.values.size(); ++v) {
    std::string& name = g.values[v].name;
    if (name.empty() || !taken.insert(name).second) {
      name = (name.empty() ? "value" : name) + "#" + std::to_string(v);
      taken.insert(name);
    }
  }
}

void add_meta(onnx::ModelProto& model, const std::string& key, const std::string& value) {
  auto* entry = model.add_metadata_props();
  entry->set_key(key);
  entry->set_value(value);
}

// Reads a .oge's ModelProto into a Graph. The writer's own output always passes; anything else
// is a file that was not written by it.
class Reader {
 public:
  // `outside`: where the initializers' raw_data lie when the parse left them out.
  Reader(const std::string& source, const ModelWithoutWeights& outside) : source_(source), outside_(outside) {}

  Result<Graph> read(const onnx::ModelProto& model) {
    g_.source = source_;
    for (const auto& opset : model.opset_import()) {
      if (opset.domain().empty() || opset.domain() == "ai.onnx")
        g_.opset = opset.version();
      else
        imported_.insert(opset.domain());
    }
    if (g_.opset < kMinOpset || g_.opset > kMaxOpset)
      return invalid_model("default-domain opset " + std::to_string(g_.opset) + " is not one OpenGE runs");
    const onnx::GraphProto& gp = model.graph();
    g_.name = gp.name();
    OPENGE_RETURN_IF_ERROR(read_initializers(gp));
    OPENGE_RETURN_IF_ERROR(read_inputs(gp));
    for (const auto& info : gp.value_info()) types_[info.name()] = &info;
    for (const auto& info : gp.output()) types_[info.name()] = &info;
    OPENGE_RETURN_IF_ERROR(read_nodes(gp));
    OPENGE_RETURN_IF_ERROR(read_outputs(gp));
    auto order = g_.topological_order();
    if (!order.ok()) return order.status();
    std::vector<Node> sorted;
    for (int n : *order) sorted.push_back(std::move(g_.nodes[static_cast<size_t>(n)]));
    g_.nodes = std::move(sorted);
    for (size_t n = 0; n < g_.nodes.size(); ++n)
      for (int out : g_.nodes[n].outputs)
        if (out >= 0) g_.values[static_cast<size_t>(out)].producer = static_cast<int>(n);
    return std::move(g_);
  }

 private:
  Result<int> new_value(const std::string& name, const std::string& what) {
    if (name.empty()) return invalid_model(what + " has no name");
    if (g_.find_value(name) >= 0) return invalid_model(what + " '" + name + "' is defined twice");
    return g_.add_value(name);
  }

  Status read_initializers(const onnx::GraphProto& gp) {
    for (int k = 0; k < gp.initializer_size(); ++k) {
      const onnx::TensorProto& init = gp.initializer(k);
      const std::string what = "initializer '" + init.name() + "'";
      if (init.data_location() == onnx::TensorProto::EXTERNAL)
        return invalid_model(what + " has external data; a .oge holds its weights inline");
      auto v = new_value(init.name(), "an initializer");
      if (!v.ok()) return v.status();
      auto tensor = tensor_from_proto(init, kNoExternalData, what, outside_.raw_data(static_cast<size_t>(k)));
      if (!tensor.ok()) return tensor.status();
      Value& value = g_.values[static_cast<size_t>(*v)];
      value.dtype = tensor->dtype();
      value.shape = tensor->shape();
      value.constant = std::move(tensor.value());
    }
    return Status::Ok();
  }

  // A value's dtype and shape from its ValueInfoProto; `require_static`: every dim known.
  static Status read_type(const onnx::ValueInfoProto& info, Value& value, bool require_static,
                          const std::string& what) {
    if (!info.type().has_tensor_type()) return invalid_model(what + " is not a tensor");
    const auto& tt = info.type().tensor_type();
    value.dtype = static_cast<DType>(tt.elem_type());
    if (!dtype_supported(value.dtype)) return invalid_model(what + " has an element type OpenGE does not support");
    if (!tt.has_shape()) {
      if (require_static) return invalid_model(what + " has no shape");
      return Status::Ok();
    }
    Shape shape, fixed;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() < 0) return invalid_model(what + " has a negative dimension");
      if (!d.has_dim_value() && require_static) return invalid_model(what + " has a dimension that is not fixed");
      shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
      fixed.push_back(d.has_dim_value() ? d.dim_value() : 1);
    }
    OPENGE_RETURN_IF_ERROR(check_dims(fixed, value.dtype, what));
    value.shape = std::move(shape);
    return Status::Ok();
  }

  Status read_inputs(const onnx::GraphProto& gp) {
    for (const auto& in : gp.input()) {
      auto v = new_value(in.name(), "a graph input");
      if (!v.ok()) return v.status();
      OPENGE_RETURN_IF_ERROR(
          read_type(in, g_.values[static_cast<size_t>(*v)], true, "graph input '" + in.name() + "'"));
      g_.inputs.push_back(*v);
    }
    return Status::Ok();
  }

  // The precision pass's and the fusion passes' records, stored as attributes named `_...`.
  static Status read_private_attribute(const onnx::AttributeProto& ap, Node& node, const std::string& what) {
    if (ap.name() == "_fused_from" && ap.type() == onnx::AttributeProto::STRINGS) {
      node.fused_from.assign(ap.strings().begin(), ap.strings().end());
    } else if (ap.name() == "_aicpu_only" && ap.type() == onnx::AttributeProto::INT) {
      node.aicpu_only = ap.i() != 0;
    } else if (ap.name() == "_impl_mode" && ap.type() == onnx::AttributeProto::STRING) {
      node.impl_mode = ap.s();
    } else if (ap.name() == "_original_outputs" && ap.type() == onnx::AttributeProto::STRINGS) {
      Attribute a;  // ir/original_outputs.h
      a.kind = Attribute::Kind::kStrings;
      a.strings.assign(ap.strings().begin(), ap.strings().end());
      node.attrs.set(ap.name(), std::move(a));
    } else {
      return invalid_model(what + " is not one this format knows");
    }
    return Status::Ok();
  }

  Status read_nodes(const onnx::GraphProto& gp) {
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& np = gp.node(i);
      Node node;
      node.name = np.name();
      node.op_type = np.op_type();
      const std::string label = "node " + node.op_type + " '" + node.name + "'";
      const OpSchema* schema = find_op_schema(node.op_type);
      if (!schema) return invalid_model(label + ": op " + node.op_type + " is not one this OpenGE has");
      if (np.domain() == kInternalDomain) {
        node.domain = kFusedDomain;
      } else if (!np.domain().empty() && np.domain() != "ai.onnx") {
        // Another domain only for an op the table registers there, imported by the file (the
        // training optimizers of ai.onnx.preview.training), as the .onnx loader accepts them.
        if (schema->domain != np.domain() || !imported_.count(np.domain()))
          return invalid_model(label + " is in domain '" + np.domain() + "'");
        node.domain = np.domain();
      }
      for (const auto& out : np.output()) {
        if (out.empty()) {
          node.outputs.push_back(-1);
          continue;
        }
        auto v = new_value(out, label + ": an output");
        if (!v.ok()) return v.status();
        node.outputs.push_back(*v);
        if (auto it = types_.find(out); it != types_.end())
          OPENGE_RETURN_IF_ERROR(
              read_type(*it->second, g_.values[static_cast<size_t>(*v)], false, "value '" + out + "'"));
      }
      for (const auto& ap : np.attribute()) {
        const std::string what = label + " attribute '" + ap.name() + "'";
        if (ap.type() == onnx::AttributeProto::GRAPH) return invalid_model(what + " is a subgraph; a .oge has none");
        if (!ap.name().empty() && ap.name()[0] == '_') {
          OPENGE_RETURN_IF_ERROR(read_private_attribute(ap, node, what));
          continue;
        }
        auto a = attribute_from_proto(ap, kNoExternalData, what);
        if (!a.ok()) return a.status();
        node.attrs.set(ap.name(), std::move(a.value()));
      }
      g_.nodes.push_back(std::move(node));
    }
    // Inputs once every value exists (nodes are stored in order, but the order is checked below).
    for (int i = 0; i < gp.node_size(); ++i) {
      Node& node = g_.nodes[static_cast<size_t>(i)];
      for (const auto& in : gp.node(i).input()) {
        if (in.empty()) {
          node.inputs.push_back(-1);
          continue;
        }
        const int v = g_.find_value(in);
        if (v < 0)
          return invalid_model("node " + node.op_type + " '" + node.name + "' reads '" + in +
                               "', which nothing defines");
        node.inputs.push_back(v);
      }
      OPENGE_RETURN_IF_ERROR(check_arity(*find_op_schema(node.op_type), node).with_context("node"));
    }
    return Status::Ok();
  }

  Status read_outputs(const onnx::GraphProto& gp) {
    if (gp.output_size() == 0) return invalid_model("the graph has no outputs");
    for (const auto& out : gp.output()) {
      const int v = g_.find_value(out.name());
      if (v < 0) return invalid_model("graph output '" + out.name() + "' is not produced by anything");
      if (std::find(g_.outputs.begin(), g_.outputs.end(), v) != g_.outputs.end())
        return invalid_model("graph output '" + out.name() + "' is listed twice");
      Value declared;
      OPENGE_RETURN_IF_ERROR(read_type(out, declared, false, "graph output '" + out.name() + "'"));
      g_.outputs.push_back(v);
      g_.declared_outputs.push_back({declared.dtype, declared.shape});
    }
    return Status::Ok();
  }

  std::string source_;
  const ModelWithoutWeights& outside_;
  Graph g_;
  std::map<std::string, const onnx::ValueInfoProto*> types_;
  std::set<std::string> imported_;  // the file's opset_import domains other than the default one
};

Result<OgeHeader> read_header(const onnx::ModelProto& model) {
  std::map<std::string, std::string> meta;
  for (const auto& entry : model.metadata_props()) meta[entry.key()] = entry.value();
  OgeHeader h;
  const auto format = meta.find(kFormatKey);
  if (format == meta.end()) return invalid_model("it has no .oge format version (not written by openge compile)");
  if (format->second != std::to_string(kFormatVersion))
    return invalid_model("it is in .oge format " + format->second + ", this OpenGE (" + engine_version() +
                         ") reads format " + std::to_string(kFormatVersion) +
                         ": recompile the model with this version's openge compile");
  for (const auto& [key, value] : meta) {
    if (key == kEngineKey)
      h.engine_version = value;
    else if (key == kCpuKey)
      h.cpu_features = split(value);
    else if (key == kPassesKey)
      h.fusion_passes = value != "off";
    else if (key == kSourceKey)
      h.source_model = value;
    else if (key.rfind(kOptionPrefix, 0) == 0)
      h.options[key.substr(std::strlen(kOptionPrefix))] = value;
    else if (key.rfind(kDebugPrefix, 0) == 0)
      h.debug[key.substr(std::strlen(kDebugPrefix))] = value;
    else if (key == kKernelIsaKey)
      h.kernel_isa = value;
    else if (key.rfind(kKernelPrefix, 0) == 0) {
      auto binary = base64_decode(value);
      if (!binary)
        return invalid_model("its prebuilt kernel '" + key.substr(std::strlen(kKernelPrefix)) + "' is damaged");
      h.kernels[key.substr(std::strlen(kKernelPrefix))] = std::move(*binary);
    }
  }
  if (!h.kernels.empty() && h.kernel_isa.empty())
    return invalid_model("it carries prebuilt kernels but not the instruction set they were built for");
  return h;
}

}  // namespace

std::string engine_version() { return OPENGE_ENGINE_VERSION; }

OgeHeader current_header() {
  OgeHeader h;
  h.engine_version = engine_version();
  h.cpu_features = cpu_features();
  return h;
}

Result<std::string> serialize_oge(const Graph& compiled, const OgeHeader& header) {
  for (const Node& n : compiled.nodes) {
    if (!n.domain.empty() && n.domain != kFusedDomain && !graph_dump::domain_opset(n))
      return internal_error("node " + n.op_type + " '" + n.name + "' is in domain '" + n.domain +
                            "', which a .oge cannot hold");
    for (const auto& [name, a] : n.attrs.all())
      if (a.kind == Attribute::Kind::kGraph)
        return unsupported("node " + n.op_type + " '" + n.name + "' has a subgraph ('" + name +
                           "'): models with If, Loop or Scan cannot be compiled to a .oge yet; run the .onnx");
  }
  Graph g = compiled;  // tensors share their storage: the copy costs the names only
  make_names_unique(g);
  onnx::ModelProto model;
  graph_dump::graph_to_onnx(g, graph_dump::Detail::kFull, model);
  model.set_producer_version(header.engine_version);
  model.set_domain(std::string(kMarker));
  model.set_doc_string("OpenGE compiled model (openge compile); run it with openge run --model");
  // The IR's internal domain ("openge": fused ops, channels-last forms) is "ai.openge" in the
  // file, imported whether or not a node uses it; graph_to_onnx imported the other domains.
  for (auto& node : *model.mutable_graph()->mutable_node())
    if (node.domain() == kFusedDomain) node.set_domain(kInternalDomain);
  auto& imports = *model.mutable_opset_import();
  imports.erase(std::remove_if(imports.begin(), imports.end(),
                               [](const onnx::OperatorSetIdProto& o) { return o.domain() == kFusedDomain; }),
                imports.end());
  auto* internal = model.add_opset_import();
  internal->set_domain(kInternalDomain);
  internal->set_version(1);
  add_meta(model, kFormatKey, std::to_string(header.format_version));
  add_meta(model, kEngineKey, header.engine_version);
  add_meta(model, kCpuKey, join(header.cpu_features));
  add_meta(model, kPassesKey, header.fusion_passes ? "on" : "off");
  add_meta(model, kSourceKey, header.source_model);
  for (const auto& [name, value] : header.options) add_meta(model, kOptionPrefix + name, value);
  for (const auto& [name, text] : header.debug) add_meta(model, kDebugPrefix + name, text);
  if (!header.kernels.empty()) add_meta(model, kKernelIsaKey, header.kernel_isa);
  for (const auto& [name, binary] : header.kernels) add_meta(model, kKernelPrefix + name, base64_encode(binary));
  if (model.ByteSizeLong() + trailer_size() > kMaxModelBytes)
    return unsupported("the compiled model is larger than 2 GiB, which a .oge cannot hold");
  // Room for the trailer up front: appending it must not copy a model of hundreds of MB again.
  std::string bytes;
  bytes.reserve(model.ByteSizeLong() + trailer_size());
  model.AppendToString(&bytes);
  return seal_oge(std::move(bytes));
}

std::string seal_oge(std::string model_bytes) {
  model_bytes += trailer_for(sha256_hex(model_bytes));
  return model_bytes;
}

namespace {

// `pages`, when the bytes are a mapped file, gets the pages of each weight back once copied.
Result<OgeModel> parse_oge_bytes(const void* data, size_t size, const std::string& source_name,
                                 const MappedFile* pages) {
  const std::string where = "compiled model " + source_name;
  const std::string recompile = ": recompile it with openge compile";
  const size_t tail = trailer_size();
  if (size > kMaxModelBytes) return invalid_model(where + ": larger than 2 GiB, not a .oge");
  const char* bytes = static_cast<const char*>(data);
  onnx::ModelProto trailer;
  if (size <= tail || !trailer.ParseFromArray(bytes + size - tail, static_cast<int>(tail)) ||
      trailer.metadata_props_size() != 1 || trailer.metadata_props(0).key() != kDigestKey ||
      trailer.SerializeAsString() != std::string_view(bytes + size - tail, tail) ||
      trailer.metadata_props(0).value().rfind(kDigestPrefix, 0) != 0)
    return invalid_model(where + ": its digest is missing (the file is truncated or is not a .oge)" + recompile);
  const std::string stored = trailer.metadata_props(0).value().substr(std::strlen(kDigestPrefix));
  if (sha256_hex(std::string_view(bytes, size - tail)) != stored)
    return invalid_model(where + ": its digest does not match its contents (the file is corrupt)" + recompile);
  if (pages) pages->release_pages(0, size);  // the digest read every page; the weights are read again below
  // Parsed without the weights, which go straight from the file into their tensors (as the
  // .onnx loader does: a .oge is never held twice).
  onnx::ModelProto model;
  ModelWithoutWeights outside;
  if (!outside.parse(data, size, pages, model) || !model.has_graph())
    return invalid_model(where + ": not a readable .oge" + recompile);
  auto header = read_header(model);
  if (!header.ok()) return header.status().with_context(where);
  Reader reader(source_name, outside);
  auto graph = reader.read(model);
  if (!graph.ok()) return invalid_model(where + ": " + graph.status().message() + recompile);
  return OgeModel{std::move(graph.value()), std::move(header.value())};
}

}  // namespace

Result<OgeModel> parse_oge(const void* data, size_t size, const std::string& source_name) {
  return parse_oge_bytes(data, size, source_name, nullptr);
}

Result<OgeModel> read_oge_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return io_error("compiled model " + path + ": is a directory, not a .oge file");
  // Mapped, not read into a buffer: the weights are copied from the file's pages into their
  // tensors once each, and those pages given back as they go.
  auto file = MappedFile::open(path);
  if (!file.ok())
    return io_error("compiled model " + path +
                    ": cannot open the file (check the path and its read permission): " + file.status().message());
  if ((*file)->size() > kMaxModelBytes)
    return invalid_model("compiled model " + path + ": larger than 2 GiB, not a .oge");
  return parse_oge_bytes((*file)->data(), (*file)->size(), path, file->get());
}

bool file_looks_like_oge(const std::string& path) {
  if (looks_like_oge(nullptr, 0, path)) return true;
  // Only a regular file is peeked at: opening a FIFO would wait for a writer. The loader then
  // reports what the path is.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char head[kMarkerWindow];
  in.read(head, sizeof head);
  return in.gcount() > 0 && looks_like_oge(head, static_cast<size_t>(in.gcount()), "");
}

bool looks_like_oge(const void* data, size_t size, const std::string& name) {
  if (name.size() >= 4 && name.compare(name.size() - 4, 4, ".oge") == 0) return true;
  if (!data) return false;
  const std::string_view head(static_cast<const char*>(data), std::min(size, kMarkerWindow));
  return head.find(kMarker) != std::string_view::npos;
}

}  // namespace openge::oge
