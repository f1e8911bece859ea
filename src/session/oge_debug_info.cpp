#include "session/oge_debug_info.h"

#include <nlohmann/json.hpp>

#include "compiler/online_compiler.h"
#include "compiler/compile_config.h"
#include "compiler/compile_report.h"
#include "runtime/executable.h"

namespace openge {
namespace {

using nlohmann::json;

json value_names(const Graph& g, const std::vector<int>& values) {
  json names = json::array();
  for (int v : values) names.push_back(v >= 0 ? g.values[static_cast<size_t>(v)].name : "");
  return names;
}

// The model nodes a compiled node stands for: its fusion record, else itself when the model has
// a node of its name; none for a node the compile inserted.
json from_model_nodes(const Node& n, const std::set<std::string>& model_nodes) {
  if (!n.fused_from.empty()) return n.fused_from;
  return model_nodes.count(n.name) ? json::array({n.name}) : json::array();
}

json compile_record(const Executable& exe, const CompileReport& report, const std::set<std::string>& model_nodes) {
  const Graph& g = exe.graph();
  std::map<std::string, const precision::PrecisionDecision*> precision;
  for (const auto& d : report.precision_decisions) precision[d.node_name] = &d;
  json nodes = json::array();
  for (const Node& n : g.nodes) {
    json node = {{"node", n.name},
                 {"op_type", n.op_type},
                 {"from_model_nodes", from_model_nodes(n, model_nodes)},
                 {"inputs", value_names(g, n.inputs)},
                 {"outputs", value_names(g, n.outputs)}};
    if (auto it = precision.find(n.name); it != precision.end()) {
      const precision::PrecisionDecision& d = *it->second;
      node["precision"] = {{"input_dtype", dtype_name(d.input_dtype)},
                           {"output_dtype", dtype_name(d.output_dtype)},
                           {"aicpu_only", d.aicpu_only},
                           {"rule", d.rule}};
      if (!d.impl_mode.empty()) node["precision"]["impl_mode"] = d.impl_mode;
    }
    nodes.push_back(std::move(node));
  }
  json passes = json::array();
  for (const PassStat& p : report.pass_stats)
    if (p.applied > 0) passes.push_back({{"pass", p.name}, {"applied", p.applied}});
  return {{"nodes", std::move(nodes)},
          {"fusion_passes", std::move(passes)},
          {"precision_warnings", report.precision_warnings}};
}

Result<json> kernel_sources(const Executable& exe, const compiler::JitConfig& config) {
  const Graph& g = exe.graph();
  const compiler::JitSettings settings = compiler::jit_settings_for(config, /*dynamic_model=*/false);
  json kernels = json::array();
  for (const compiler::KernelRequest& r : compiler::fused_kernel_requests(g)) {
    auto kernel = compiler::describe_kernel(r, settings);
    if (!kernel.ok()) return kernel.status();
    json loc = json::array();
    for (const compiler::SourceLoc& l : kernel->locs) loc.push_back({{"line", l.line}, {"node", l.node}, {"op", l.op}});
    kernels.push_back(
        {{"node", r.node->name}, {"kernel_name", kernel->kernel_name}, {"source", kernel->source}, {"loc", loc}});
  }
  return kernels;
}

}  // namespace

Result<std::map<std::string, std::string>> oge_debug_sections(const Executable& exe, const CompileReport& report,
                                                              const std::set<std::string>& model_nodes,
                                                              const compiler::CompileConfig* config) {
  std::map<std::string, std::string> sections;
  if (!config || !config->jit.npu_collect) return sections;
  sections["compile"] = compile_record(exe, report, model_nodes).dump(1);
  auto kernels = kernel_sources(exe, config->jit);
  if (!kernels.ok()) return kernels.status().with_context("NPU_COLLECT_PATH debug information");
  sections["kernels"] = kernels->dump(1);
  return sections;
}

}  // namespace openge
