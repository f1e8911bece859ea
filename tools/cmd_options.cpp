// openge options | options --explain NAME | paths | check-options: the configuration surface
// as the user sees it.
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli_errors.h"
#include "commands.h"
#include "openge/did_you_mean.h"
#include "openge/options.h"
#include "openge/profiling_chains.h"
#include "options_cli.h"

namespace openge::cli {
namespace {

using namespace openge::options;

std::vector<FlagSpec> with_option_flags(std::vector<FlagSpec> specs) {
  for (auto& s : option_flag_specs()) specs.push_back(s);
  return specs;
}

void print_report(const Configuration& r, const char* cmd) {
  for (const auto& w : r.warnings) std::fprintf(stderr, "openge %s: warning: %s\n", cmd, w.c_str());
  for (const auto& e : r.errors) std::fprintf(stderr, "openge %s: error: %s\n", cmd, e.to_string().c_str());
}

std::string pad(std::string s, size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

// The value as listed (listing options is not recorded as reading them).
std::optional<OptionSetting> listed_value(const Configuration& report, const std::string& name) {
  if (!report.options) return std::nullopt;
  return option_setting(*report.options, name);
}

// The marker after a value in the list: what a user must know before relying on it.
const char* effect_marker(OptionEffect e) {
  switch (e) {
    case OptionEffect::kImplemented:
      return "";
    case OptionEffect::kNotImplemented:
      return " (not implemented yet)";
    case OptionEffect::kNoCpuEffect:
      return " (no effect on CPU)";
  }
  return "";
}

int explain(const std::string& name, const Configuration& report) {
  const std::optional<OptionInfo> spec = option_info(name);
  if (!spec) {
    std::fprintf(stderr, "openge options: unknown option '%s'%s\n", name.c_str(),
                 did_you_mean_suffix(suggest_names(name)).c_str());
    return 2;
  }
  std::cout << spec->name << "\n  " << spec->description << "\n";
  auto line = [](const char* k, const std::string& v) {
    if (!v.empty()) std::cout << "  " << pad(k, 14) << v << "\n";
  };
  line("type:", spec->kind);
  line("allowed:", spec->allowed);
  line("default:", spec->default_text);
  line("GE key:", spec->ge_key);
  line("aliases:", spec->aliases);
  line("env var:", spec->env_var);
  line("interactions:", spec->interactions);
  line("effect:", spec->effect_text);
  line("consumer:", spec->consumer);
  if (spec->deprecated_by)
    line("deprecated:", !spec->deprecated_by->empty() ? "use " + *spec->deprecated_by + " instead" : "no replacement");
  line("spec:", spec->spec_ids);
  if (const auto v = listed_value(report, spec->name))
    line("effective:", (v->value.empty() ? "(unset)" : v->value) + "  [" + v->source +
                           (v->origin.empty() ? "" : ": " + v->origin) + "]");
  return 0;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// The "Every option" table of docs/OPTIONS.md (a test keeps the document equal to it).
void print_markdown() {
  std::cout << "| option | type | allowed | default | GE key / env var | effect in OpenGE today |\n"
            << "|---|---|---|---|---|---|\n";
  for (const auto& spec : option_infos()) {
    std::string key = !spec.ge_key.empty() ? "`" + spec.ge_key + "`" : "";
    if (!spec.env_var.empty() && spec.env_var != spec.ge_key)
      key += (key.empty() ? "" : " / ") + ("`" + spec.env_var + "`");
    std::cout << "| `" << spec.name << "`" << (spec.deprecated_by ? " (deprecated)" : "") << " | " << spec.kind << " | "
              << md_cell(spec.allowed) << " | " << md_cell(spec.default_text) << " | " << key << " | "
              << md_cell(spec.effect_text)
              << (spec.effect == OptionEffect::kImplemented ? " (`" + spec.consumer + "`)" : std::string()) << " |\n";
  }
}

}  // namespace

int cmd_options(int argc, char** argv) {
  const auto specs = with_option_flags({{"explain", "NAME",
                                         "describe one option: values, default, GE key, "
                                         "interactions, what it does in OpenGE today"},
                                        {"markdown", "", "print the option table as Markdown (docs/OPTIONS.md)"}});
  auto args = Args::parse(argc, argv, 2, specs);
  if (!args.ok()) {
    report_error("options", args.status());
    return 2;
  }
  if (args->has("help")) {
    std::cout << usage("openge options [--explain NAME] [--option NAME=VALUE]... [--options-file F]...",
                       "Lists every option with its effective value and where it came from\n"
                       "(default / env / file / flag). Precedence: flag > file > env > default.\n"
                       "Options marked (not implemented yet) or (no effect on CPU) are accepted and\n"
                       "validated but change nothing; --explain NAME says why.",
                       specs);
    return 0;
  }
  if (args->has("markdown")) return print_markdown(), 0;
  const Configuration report = option_report_from_args(*args, capture_process_environment());
  if (args->has("explain")) return explain(args->get("explain"), report);
  print_report(report, "options");
  if (!report.options) return 1;
  for (const auto& spec : option_infos()) {
    const auto v = listed_value(report, spec.name);
    std::string value = v && !v->value.empty() ? v->value : "(unset)";
    std::string src = v ? v->source + (v->origin.empty() ? "" : ": " + v->origin) : "default";
    std::cout << pad(spec.name, 38) << " " << pad(value, 24) << " [" << src << "]" << effect_marker(spec.effect)
              << (spec.deprecated_by ? " (deprecated)" : "") << "\n";
  }
  return 0;
}

// The folder chains of CANN's other entry points: msprof, an application's acl.json, the PyTorch
// profiler and the graph-build APIs. Their first and last tiers depend on what a run names (the
// --output flag, the model, the executable, the handler's folder, DEBUG_DIR), so `openge paths`
// shows each chain and what the environment decides when the run sets no higher tier.
struct EntryChain {
  const char* kind;
  const char* chain;
  const char* last_tier;  // when it depends on the run: what decides then
  profiling::ChosenFolder (*resolve)(const EnvMap& env, const std::vector<ArtifactPath>& artifacts);
};

const EntryChain kEntryChains[] = {
    {"msprof_profiling", "msprof --output > ASCEND_WORK_PATH/profiling_data > the model file's folder",
     "the folder of the model file the application runs (of the application itself when it names none)",
     [](const EnvMap& env, const std::vector<ArtifactPath>&) {
       return profiling::msprof_output_folder("", env, "", "");
     }},
    {"acl_json_profiling",
     "acl.json profiler \"output\" > ASCEND_WORK_PATH/profiling_data > the application executable's folder",
     "the application executable's folder",
     [](const EnvMap& env, const std::vector<ArtifactPath>&) {
       return profiling::acl_json_output_folder("", env, "");
     }},
    {"torch_profiling", "the trace handler's folder > ASCEND_WORK_PATH/profiling_data > the working folder", nullptr,
     [](const EnvMap& env, const std::vector<ArtifactPath>&) { return profiling::trace_handler_folder("", env); }},
    {"graph_build_kernel_meta",
     "DEBUG_DIR (graph build) or ACL_DEBUG_DIR (operator compile) > ASCEND_WORK_PATH > working directory, "
     "each + kernel_meta",
     nullptr,
     [](const EnvMap&, const std::vector<ArtifactPath>& artifacts) {
       for (const auto& a : artifacts)
         if (a.kind == "kernel_meta") return profiling::ChosenFolder{a.path, a.rule};
       return profiling::ChosenFolder{};
     }},
};

void print_entry_chains(const EnvMap& env, const std::vector<ArtifactPath>& artifacts) {
  for (const auto& c : kEntryChains) {
    const auto chosen = c.resolve(env, artifacts);
    const bool run_decides = c.last_tier && chosen.rule.rfind("ASCEND_WORK_PATH", 0) != 0;
    std::cout << pad(c.kind, 17) << " " << (run_decides ? "(set by each run)" : chosen.path) << "\n"
              << pad("", 17) << "   rule: " << (run_decides ? c.last_tier : chosen.rule) << "\n"
              << pad("", 17) << "   chain: " << c.chain << "\n";
  }
}

int cmd_paths(int argc, char** argv) {
  const auto specs = with_option_flags({});
  auto args = Args::parse(argc, argv, 2, specs);
  if (!args.ok()) {
    report_error("paths", args.status());
    return 2;
  }
  if (args->has("help")) {
    std::cout << usage("openge paths [--option NAME=VALUE]... [--options-file F]...",
                       "Prints where every artifact kind goes, the rule of its priority chain that chose it,\n"
                       "and whether OpenGE writes it today; then the profiling-folder chains of msprof,\n"
                       "acl.json and the PyTorch profiler, and the graph-build APIs' DEBUG_DIR chain.",
                       specs);
    return 0;
  }
  const EnvMap env = capture_process_environment();
  const Configuration report = option_report_from_args(*args, env);
  print_report(report, "paths");
  if (!report.options) return 1;
  const auto artifacts = artifact_paths(*report.options);
  for (const auto& r : artifacts) {
    std::cout << pad(r.kind, 17) << " " << (r.path.empty() ? "(none)" : r.path) << "\n"
              << pad("", 17) << "   rule: " << r.rule << "\n"
              << pad("", 17) << "   chain: " << r.chain << "\n"
              << pad("", 17) << "   written: "
              << (!r.written_by.empty() ? "yes, by " + r.written_by : std::string("no, nothing writes it yet"))
              << (!r.written_by.empty() && !r.written_only.empty() ? ", only " + r.written_only : std::string())
              << "\n";
  }
  const CompileCacheSize limits = compile_cache_size(*report.options);
  std::cout << pad("compile_cache_size", 17) << " " << limits.max_size_mb << " MB, keep " << limits.remain_ratio_percent
            << "% in " << limits.soc_folder << "\n"
            << pad("", 17) << "   rule: " << limits.rule << "\n"
            << pad("", 17) << "   mode: " << limits.mode
            << (limits.mode == "disable" ? " (the folder is never touched)" : "") << "\n"
            << pad("", 17) << "   applied: "
            << (limits.applied
                    ? "yes"
                    : "no, the cache exists (src/compiler/op_cache.cpp) but no Session compiles operators online yet")
            << "\n";
  for (const auto& w : limits.warnings) std::fprintf(stderr, "openge paths: warning: %s\n", w.c_str());
  print_entry_chains(env, artifacts);
  return 0;
}

int cmd_check_options(int argc, char** argv) {
  const auto specs = with_option_flags({});
  auto args = Args::parse(argc, argv, 2, specs);
  if (!args.ok()) {
    report_error("check-options", args.status());
    return 2;
  }
  if (args->has("help")) {
    std::cout << usage("openge check-options [--option NAME=VALUE]... [--options-file F]...",
                       "Validates a configuration (flags, options files, environment) and lists every problem;\n"
                       "exits 1 when there is any.",
                       specs);
    return 0;
  }
  const Configuration report = option_report_from_args(*args, capture_process_environment());
  print_report(report, "check-options");
  if (!report.options) {
    std::fprintf(stderr, "openge check-options: %zu problem%s\n", report.errors.size(),
                 report.errors.size() == 1 ? "" : "s");
    return 1;
  }
  size_t user = 0;
  for (const auto& v : option_settings(*report.options)) user += v.source != "default" && !v.value.empty();
  std::cout << "options are valid (" << user << " set by flag, file or environment)\n";
  return 0;
}

}  // namespace openge::cli
