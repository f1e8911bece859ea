#include "options/option_builder.h"

#include <filesystem>
#include <system_error>

#include "openge/did_you_mean.h"
#include "options/option_rules.h"
#include "options/option_table.h"
#include "options/options_file.h"

namespace openge::options {
namespace {

// "o.py: 3 lines that set no option skipped (lines 1, 2, 9)": a pasted script's session
// setup is passed over, and said so.
std::string skipped_lines_note(const std::string& path, const std::vector<int>& lines) {
  std::string list;
  for (size_t i = 0; i < lines.size() && i < 10; ++i) list += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > 10) list += ", ...";
  return path + ": " + std::to_string(lines.size()) + (lines.size() == 1 ? " line that sets" : " lines that set") +
         " no option skipped (line" + (lines.size() == 1 ? " " : "s ") + list + ")";
}

}  // namespace

// Friend of OptionSet: the only code that writes one.
class OptionSetBuilder {
 public:
  explicit OptionSetBuilder(const OptionInputs& in) : in_(in) {}

  BuildReport build() {
    set_.cwd_ = in_.cwd;
    if (set_.cwd_.empty()) {
      std::error_code ec;
      set_.cwd_ = std::filesystem::current_path(ec).string();
    }
    if (auto h = in_.env.find("HOME"); h != in_.env.end()) set_.home_ = h->second;

    // Sources from low to high precedence; a later assignment replaces an earlier one.
    for (const auto& spec : option_table()) {
      if (!*spec.env_var) continue;
      auto it = in_.env.find(spec.env_var);
      if (it == in_.env.end() || it->second.empty()) continue;  // an empty variable counts as unset
      assign(spec.name, it->second, Source::kEnv, spec.env_var);
    }
    for (const auto& path : in_.option_files) {
      auto parsed = read_options_file(path);
      for (const auto& e : parsed.errors) report_.errors.push_back({"--options-file", path, e});
      if (!parsed.skipped_lines.empty()) report_.warnings.push_back(skipped_lines_note(path, parsed.skipped_lines));
      for (const auto& a : parsed.assignments)
        assign(a.name, a.value, Source::kFile, path + ":" + std::to_string(a.line));
    }
    for (const auto& f : in_.flags) assign(f.name, f.value, Source::kFlag, f.origin.empty() ? "--option" : f.origin);

    apply_defaults();
    apply_forced_values();
    warn_deprecated();
    note_cube_fp16_inputs();
    if (in_.check_rules) check_option_rules(set_, report_.errors, report_.warnings);
    if (in_.check_files) check_option_files(set_, report_.errors, report_.warnings);

    set_.warnings_ = report_.warnings;
    if (report_.errors.empty()) report_.options = std::move(set_);
    return std::move(report_);
  }

 private:
  void assign(const std::string& name, const std::string& raw, Source source, const std::string& origin) {
    const OptionSpec* spec = find_option(name);
    if (!spec) {
      report_.errors.push_back({name, raw, "unknown option" + did_you_mean_suffix(suggest_names(name))});
      return;
    }
    Normalized n = normalize_value(*spec, raw);
    if (!n.error.empty()) {
      report_.errors.push_back({spec->name, raw, n.error + " (from " + origin + ")"});
      return;
    }
    set_.values_[spec->name] = OptionValue{n.value, source, origin};
  }

  void apply_defaults() {
    DefaultContext ctx;
    ctx.graph_run_mode = static_cast<int>(set_.get_int("graph_run_mode", 1));
    ctx.soc_version = set_.get("soc_version").empty() ? kDefaultSoc : set_.get("soc_version");
    for (const auto& spec : option_table()) {
      auto& v = set_.values_[spec.name];
      if (v.source == Source::kDefault && v.value.empty())
        v = OptionValue{default_for(spec, ctx), Source::kDefault, ""};
    }
  }

  // Values the spec fixes whatever the user says, each with its warning.
  void apply_forced_values() {
    auto& small = set_.values_["enable_small_channel"];
    if (set_.online_inference()) {
      if (small.source != Source::kDefault && small.value != "1")
        report_.warnings.push_back("enable_small_channel=" + small.value +
                                   " is ignored: in online inference (graph_run_mode=0) it is not user-configurable "
                                   "and is always 1");
      if (small.source != Source::kDefault) small = OptionValue{"1", Source::kDefault, "forced by graph_run_mode=0"};
    }
    // NPU_COLLECT_PATH switches the exception dump on unless the user decided (NPU-6).
    auto& exc = set_.values_["enable_exception_dump"];
    if (set_.has_value("NPU_COLLECT_PATH") && exc.source == Source::kDefault)
      exc = OptionValue{"1", Source::kEnv, "NPU_COLLECT_PATH"};
  }

  // force_fp32 reads as "float32 everywhere", but CANN (and the precision pass) runs Cube ops on
  // float16 inputs under it: a user comparing precision must know which baseline they have.
  void note_cube_fp16_inputs() {
    if (!set_.user_set("precision_mode") || set_.get("precision_mode") != "force_fp32") return;
    if (set_.user_set("precision_mode_v2") && set_.has_value("precision_mode_v2")) return;
    report_.warnings.push_back(
        "precision_mode=force_fp32 runs Cube ops (Conv, MatMul, Gemm) on float16 inputs with float32 outputs, as CANN "
        "does; must_keep_origin_dtype keeps them in float32");
  }

  void warn_deprecated() {
    for (const auto& spec : option_table()) {
      if (!spec.deprecated_by || !set_.user_set(spec.name)) continue;
      // CANN's TF adapter wording (docs/FORMATS.md, "Options: names and value rules").
      std::string w = "[warning][tf_adapter] Option '" + std::string(spec.name) +
                      "' is deprecated and will be removed in future version. ";
      w += *spec.deprecated_by ? "Please use '" + std::string(spec.deprecated_by) + "' instead."
                               : std::string("Please do not configure this option in the future.");
      if (spec.status == Effect::kNoCpuEffect) w += " It has no effect.";
      if (spec.status == Effect::kNotImplemented) w += " OpenGE does not implement it yet.";
      report_.warnings.push_back(w);
    }
  }

  const OptionInputs& in_;
  OptionSet set_;
  BuildReport report_;
};

BuildReport build_options(const OptionInputs& inputs) { return OptionSetBuilder(inputs).build(); }

Result<OptionSet> build_option_set(const OptionInputs& inputs) {
  BuildReport r = build_options(inputs);
  if (!r.errors.empty()) return invalid_argument(format_problems(r.errors));
  return std::move(*r.options);
}

}  // namespace openge::options
