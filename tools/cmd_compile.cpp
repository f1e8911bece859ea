// openge compile: ATC's offline compile. The model's rewrites (folding, fusion, precision) run
// once and the result is written as a .oge that `openge run --model M.oge` runs without them.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "openge/compile.h"
#include "run_artifacts.h"
#include "session_flags.h"

namespace openge::cli {
namespace {

int fail(const Status& s) { return report_error("compile", s); }

// ATC's --input_shape form: "name:1,3,224,224;name2:1,128" (the last ':' ends the name).
Result<std::map<std::string, Shape>> parse_input_shapes(const std::string& text) {
  std::map<std::string, Shape> shapes;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t colon = item.rfind(':');
    const std::string bad = "--input-shape: '" + item + "' is not NAME:D1,D2,... with dimensions >= 0";
    if (colon == std::string::npos || colon == 0) return invalid_argument(bad);
    Shape shape;
    size_t pos = colon + 1;
    while (pos < item.size()) {
      size_t comma = item.find(',', pos);
      if (comma == std::string::npos) comma = item.size();
      const std::string dim = item.substr(pos, comma - pos);
      if (dim.empty() || dim.size() > 12 || dim.find_first_not_of("0123456789") != std::string::npos)
        return invalid_argument(bad);
      shape.push_back(std::stoll(dim));
      pos = comma + 1;
    }
    if (!shapes.emplace(item.substr(0, colon), shape).second)
      return invalid_argument("--input-shape gives input '" + item.substr(0, colon) + "' twice");
  }
  return shapes;
}

// --info: what a .oge holds besides its graph (its header), and with --section one of
// the debug sections NPU_COLLECT_PATH compiled in (NPU-8), printed as it is stored.
int print_info(const std::string& path, const std::string& section) {
  auto model = read_compiled_model_info(path);
  if (!model.ok()) return fail(model.status());
  const CompiledModelInfo& h = *model;
  if (!section.empty()) {
    auto it = h.debug.find(section);
    if (it == h.debug.end()) {
      std::string names;
      for (const auto& [name, text] : h.debug) names += (names.empty() ? "" : ", ") + name;
      return fail(invalid_argument(
          "--section " + section + ": " + path + " has no such debug section (" +
          (names.empty() ? std::string("it has none: compile it with NPU_COLLECT_PATH set") : "it has " + names) +
          ")"));
    }
    std::cout << it->second << "\n";
    return 0;
  }
  std::string features;
  for (const std::string& f : h.cpu_features) features += (features.empty() ? "" : ",") + f;
  std::cout << path << ": .oge format " << h.format_version << ", OpenGE " << h.engine_version << "\n"
            << "  compiled from " << escape_control_chars(h.source_model) << ", fusion passes "
            << (h.fusion_passes ? "on" : "off") << ", " << h.nodes << " nodes\n"
            << "  cpu features " << features << "\n";
  for (const auto& [name, value] : h.options)
    std::cout << "  option " << name << " = " << (value.empty() ? "(unset)" : escape_control_chars(value)) << "\n";
  if (h.debug.empty()) std::cout << "  no debug sections (compiled without NPU_COLLECT_PATH)\n";
  for (const auto& [name, text] : h.debug)
    std::cout << "  debug section " << escape_control_chars(name) << ": " << text.size() << " bytes (--section " << name
              << " prints it)\n";
  return 0;
}

}  // namespace

int cmd_compile(int argc, char** argv) {
  std::vector<FlagSpec> flags = {
      {"model", "M.onnx", "the ONNX model to compile (required)"},
      {"output", "M.oge", "the compiled model to write (required)"},
      {"input-shape", "NAME:D1,D2;...",
       "shapes to compile for (ATC's --input_shape); needed for inputs whose shape "
       "the model leaves open"},
      {"info", "M.oge", "print what a compiled model holds (header, options, debug sections) instead of compiling"},
      {"section", "NAME", "with --info: print that debug section (NPU_COLLECT_PATH compiles them in)"},
  };
  for (auto& f : session_flag_specs()) flags.push_back(f);
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage(
        "openge compile --model M.onnx --output M.oge [--input-shape NAME:D1,D2;...] [options]\n"
        "       openge compile --info M.oge [--section NAME]",
        "Compiles a model once, as ATC does: constant folding, the fusion passes and the precision\n"
        "pass run with the options given, and the graph is written with those options, the engine\n"
        "version and the CPU features to M.oge. openge run --model M.oge then skips those steps.\n"
        "A .oge is refused by another OpenGE version, by a CPU lacking a feature it was compiled\n"
        "for, and under options that contradict the ones it was compiled with. With NPU_COLLECT_PATH\n"
        "set, M.oge also holds debug sections (the compile's record and the fused kernels' source).",
        flags);
    return 0;
  }
  if (args->has("info")) return print_info(args->get("info"), args->get("section"));
  if (args->has("section")) return fail(invalid_argument("--section goes with --info M.oge"));
  if (args->get("model").empty()) return fail(invalid_argument("--model is required"));
  if (args->get("output").empty()) return fail(invalid_argument("--output is required"));
  auto shapes = parse_input_shapes(args->get("input-shape"));
  if (!shapes.ok()) return fail(shapes.status());
  CreatedFolder created;
  auto options = session_options_from_flags("compile", *args, created);
  if (!options) return 1;
  const auto started = std::filesystem::file_time_type::clock::now();
  auto summary = compile_model(args->get("model"), args->get("output"), *options, *shapes);
  if (!summary.ok()) return fail(summary.status());
  std::cout << "compiled " << args->get("model") << " -> " << args->get("output") << " (" << summary->file_bytes
            << " bytes): " << summary->model_nodes << " nodes -> " << summary->compiled_nodes << "\n";
  for (const auto& [name, shape] : summary->input_shapes)
    std::cout << "  input '" << escape_control_chars(name) << "': " << shape_to_string(shape) << "\n";
  for (const auto& [pass, count] : summary->passes_applied)
    std::cout << "  pass " << pass << ": " << count << " rewrite(s)\n";
  for (const auto& [name, bytes] : summary->debug_sections)
    std::cout << "  debug section " << name << ": " << bytes << " bytes (NPU_COLLECT_PATH)\n";
  if (summary->prebuilt_kernels > 0)
    std::cout << "  kernels: " << summary->prebuilt_kernels << " built in for " << summary->kernel_isa
              << " (the file runs without a C++ compiler)\n";
  if (!summary->kernels_note.empty()) std::cout << "  kernels: " << summary->kernels_note << "\n";
  for (const auto& [name, value] : summary->options)
    std::cout << "  option " << name << " = " << (value.empty() ? "(unset)" : escape_control_chars(value)) << "\n";
  const std::string output = std::filesystem::absolute(args->get("output")).lexically_normal().string();
  print_artifacts_line(artifacts_written_since(*options->config, started, {output}), {"compiled model " + output});
  return 0;
}

}  // namespace openge::cli
