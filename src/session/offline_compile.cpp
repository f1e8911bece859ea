// openge compile (include/openge/compile.h): the model's rewrites run once and their result is
// written as a .oge (oge/oge_file.h).
#include <algorithm>
#include <filesystem>
#include <set>

#include "base/guard.h"
#include "base/size_limit.h"
#include "frontend/onnx_loader.h"
#include "io/atomic_file.h"
#include "logging/log.h"
#include "oge/oge_file.h"
#include "openge/compile.h"
#include "options/option_set.h"
#include "compiler/online_compiler.h"
#include "compiler/pipeline.h"
#include "session/compile_config_resolver.h"
#include "session/oge_debug_info.h"

namespace openge {
namespace {

// One concrete shape per graph input: the one asked for, else the model's (fixed) own.
Result<std::vector<Shape>> shapes_to_compile(const Graph& g, const std::map<std::string, Shape>& asked) {
  std::vector<Shape> shapes;
  size_t used = 0;
  for (int v : g.inputs) {
    const Value& value = g.values[static_cast<size_t>(v)];
    if (auto it = asked.find(value.name); it != asked.end()) {
      shapes.push_back(it->second);
      ++used;
      continue;
    }
    bool fixed = value.shape.has_value();
    for (int64_t d : value.shape.value_or(Shape{})) fixed = fixed && d >= 0;
    if (!fixed)
      return invalid_argument("input '" + value.name + "' has shape " +
                              (value.shape ? shape_to_string(*value.shape) : std::string("unknown")) +
                              ", fixed only at run time: give its shape to compile for (--input-shape " + value.name +
                              ":1,3,224,224 style)");
    shapes.push_back(*value.shape);
  }
  if (used != asked.size()) {
    std::string names;
    for (int v : g.inputs) names += (names.empty() ? "" : ", ") + g.values[static_cast<size_t>(v)].name;
    for (const auto& [name, shape] : asked)
      if (g.find_value(name) < 0 || std::find(g.inputs.begin(), g.inputs.end(), g.find_value(name)) == g.inputs.end())
        return invalid_argument("a shape was given for '" + name +
                                "', which is not an input of the model (its inputs: " + names + ")");
  }
  return shapes;
}

// The kernels of the graph's fused nodes, built for this CPU's x86-64 level, so that the .oge runs
// without a compiler and its first run builds nothing. None when the options do not compile
// online (jit_compile=false) or no compiler is at hand: the file is still complete, and says so.
Result<compiler::PrebuiltKernels> prebuilt_kernels(const Graph& g, const compiler::CompileConfig* config,
                                                   CompileSummary& summary) {
  const std::vector<compiler::KernelRequest> requests = compiler::fused_kernel_requests(g);
  if (requests.empty()) return compiler::PrebuiltKernels{};
  const compiler::JitSettings settings =
      compiler::jit_settings_for(config ? config->jit : compiler::JitConfig{}, /*dynamic_model=*/false);
  if (!settings.decision.online) {
    summary.kernels_note = settings.decision.reason + " (no generated kernels built in)";
    return compiler::PrebuiltKernels{};
  }
  auto built = compiler::prebuild_kernels(requests, settings);
  if (!built.ok() && built.status().code() == StatusCode::kUnsupported) {
    // No compiler here: a machine that runs the file with one builds them at its first run.
    summary.kernels_note = "no kernels built in: " + built.status().message();
    OPENGE_LOG_WARNING("GE", summary.kernels_note);
    return compiler::PrebuiltKernels{};
  }
  return built;
}

}  // namespace

Result<CompileSummary> compile_model(const std::string& model_path, const std::string& output_path,
                                     const SessionOptions& options, const std::map<std::string, Shape>& input_shapes) {
  const int64_t limit = options.config ? options.config->get_int("max_tensor_bytes", 0) : 0;
  ScopedMaxTensorBytes scoped_limit(limit > 0 ? static_cast<uint64_t>(limit) : kDefaultMaxTensorBytes);
  if (options.config) logging::configure(*options.config);
  auto compiled = guard_exceptions(
      [&]() -> Result<CompileSummary> {
        auto graph = load_onnx(model_path);
        if (!graph.ok()) return graph.status();
        CompileSummary summary;
        summary.model_nodes = graph->nodes.size();
        auto shapes = shapes_to_compile(*graph, input_shapes);
        if (!shapes.ok()) return shapes.status().with_context("model " + model_path);
        for (size_t i = 0; i < shapes->size(); ++i)
          summary.input_shapes.emplace_back(graph->values[static_cast<size_t>(graph->inputs[i])].name, (*shapes)[i]);
        std::set<std::string> model_nodes;  // for the debug record under NPU_COLLECT_PATH
        for (const Node& n : graph->nodes) model_nodes.insert(n.name);
        CompileOptions co;
        co.num_threads = options.num_threads;
        co.use_aicore = options.use_aicore;
        co.run_passes = options.run_passes;
        if (options.config) {
          auto config = resolve_compile_config(*options.config, {.rewrites = true, .run_passes = options.run_passes});
          if (!config.ok()) return config.status();
          co.config = std::move(config.value());
        }
        co.stages = CompileStages::kRewriteOnly;
        CompileReport report;
        auto exe = compiler::compile(std::move(graph.value()), *shapes, co, &report);
        if (!exe.ok()) return exe.status();
        oge::OgeHeader header = oge::current_header();
        header.fusion_passes = options.run_passes;
        header.source_model = std::filesystem::path(model_path).filename().string();
        for (const std::string& name : report.shaping_options)
          if (auto it = options.config->values().find(name); it != options.config->values().end())
            header.options[name] = it->second.value;
        // NPU_COLLECT_PATH: the compile's record and the fused kernels' sources go into the file (NPU-8).
        auto debug = oge_debug_sections(**exe, report, model_nodes, co.config.get());
        if (!debug.ok()) return debug.status().with_context("model " + model_path);
        header.debug = std::move(debug.value());
        auto kernels = prebuilt_kernels((*exe)->graph(), co.config.get(), summary);
        if (!kernels.ok()) return kernels.status().with_context("model " + model_path);
        header.kernel_isa = kernels->isa;
        header.kernels = std::move(kernels->binaries);
        summary.prebuilt_kernels = header.kernels.size();
        summary.kernel_isa = header.kernel_isa;
        auto bytes = oge::serialize_oge((*exe)->graph(), header);
        if (!bytes.ok()) return bytes.status().with_context("model " + model_path);
        OPENGE_RETURN_IF_ERROR(write_file_atomically(output_path, *bytes).with_context("--output " + output_path));
        summary.compiled_nodes = (*exe)->graph().nodes.size();
        for (const PassStat& p : report.pass_stats)
          if (p.applied > 0) summary.passes_applied.emplace_back(p.name, p.applied);
        summary.options = header.options;
        summary.file_bytes = bytes->size();
        for (const auto& [name, text] : header.debug) summary.debug_sections.emplace_back(name, text.size());
        OPENGE_LOG_INFO("GE", "model " + model_path + " compiled to " + output_path + ": " +
                                  std::to_string(summary.model_nodes) + " nodes -> " +
                                  std::to_string(summary.compiled_nodes) + ", " + std::to_string(summary.file_bytes) +
                                  " bytes");
        return summary;
      },
      [&] { return "model " + model_path; });
  if (!compiled.ok()) OPENGE_LOG_ERROR("GE", compiled.status().message());
  return compiled;
}

}  // namespace openge
