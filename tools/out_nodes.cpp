#include "out_nodes.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <onnx/onnx_pb.h>  // defines ONNX_API before including the generated onnx-ml.pb.h
#include <set>
#include <vector>

#include "openge/files.h"

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

bool has_subgraph(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

}  // namespace

Result<std::string> model_with_out_nodes(const std::string& model_path, const std::string& out_nodes) {
  onnx::ModelProto model;
  {
    std::ifstream in(model_path, std::ios::binary);
    if (!in) return io_error("cannot read " + model_path + "; check the path given to --model");
    if (!model.ParseFromIstream(&in))
      return invalid_argument("model " + model_path +
                              " is not an ONNX model; give the .onnx file the model was exported to");
  }
  onnx::GraphProto& g = *model.mutable_graph();
  std::map<std::string, int> node_of;
  for (int i = 0; i < g.node_size(); ++i) node_of.emplace(g.node(i).name(), i);
  std::vector<std::string> outputs;
  size_t start = 0;
  while (start < out_nodes.size()) {
    size_t end = out_nodes.find(';', start);
    if (end == std::string::npos) end = out_nodes.size();
    const std::string item = out_nodes.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t colon = item.rfind(':');
    const std::string name = item.substr(0, colon);
    int index = 0;
    if (colon != std::string::npos) {
      const std::string digits = item.substr(colon + 1);
      if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
        return invalid_argument("--out_nodes: '" + item + "' is not NODE:INDEX");
      index = std::stoi(digits);
    }
    auto it = node_of.find(name);
    if (it == node_of.end()) return invalid_argument("--out_nodes: the model has no node '" + name + "'");
    const onnx::NodeProto& node = g.node(it->second);
    if (index >= node.output_size() || node.output(index).empty())
      return invalid_argument("--out_nodes: node '" + name + "' has no output " + std::to_string(index));
    outputs.push_back(node.output(index));
  }
  if (outputs.empty()) return invalid_argument("--out_nodes names no node; give \"node:0;node2:1\"");
  // Only the nodes the new outputs need; with a subgraph (If, Loop, Scan) the outer values it
  // reads are not listed as inputs, so such a model keeps every node.
  bool keep_all = false;
  for (const auto& n : g.node()) keep_all = keep_all || has_subgraph(n);
  if (!keep_all) {
    std::map<std::string, int> producer;
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& o : g.node(i).output()) producer[o] = i;
    // A walk back from the new outputs over the producers of the values still to visit.
    std::set<int> needed;
    std::vector<std::string> to_visit = outputs;
    while (!to_visit.empty()) {
      const std::string value = to_visit.back();
      to_visit.pop_back();
      auto p = producer.find(value);
      if (p == producer.end() || !needed.insert(p->second).second) continue;
      for (const auto& in : g.node(p->second).input())
        if (!in.empty()) to_visit.push_back(in);
    }
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    for (int i = 0; i < g.node_size(); ++i)
      if (needed.count(i)) *kept.Add() = g.node(i);
    g.mutable_node()->Swap(&kept);
  }
  g.clear_output();
  for (const auto& o : outputs) g.add_output()->set_name(o);
  const fs::path source(model_path);
  const std::string copy =
      (source.parent_path() / ("." + source.stem().string() + ".out_nodes." + std::to_string(::getpid()) + ".onnx"))
          .string();
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return io_error("--out_nodes: the edited model could not be written");
  OPENGE_RETURN_IF_ERROR(write_file_atomically(copy, bytes).with_context("--out_nodes"));
  return copy;
}

}  // namespace openge::cli
