// The configuration of a session (npu.global_options() and CANN's environment variables): built
// from assignments, option files and an environment, validated as a whole, every problem reported
// together as a value. The result is an immutable option set that SessionOptions.config, the
// precheck and the artifact-path queries take; its type is the engine's own and stays opaque here.
// Precedence: assignment > options file > environment > default.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "openge/status.h"

namespace openge::options {

class OptionSet;  // the validated configuration

// The environment as a map (name -> value). Tests pass their own; the CLI passes
// capture_process_environment().
using EnvMap = std::map<std::string, std::string>;

// The only function of the engine that reads the process environment.
EnvMap capture_process_environment();

struct OptionAssignment {
  std::string name;    // dotted name, alias, GE key or leaf name
  std::string value;   // as text; for bools True/False/true/false/1/0
  std::string origin;  // shown by `openge options` ("--option", "api")
};

struct OptionInputs {
  std::vector<OptionAssignment> flags;    // --option NAME=VALUE and the C++ API; later wins
  std::vector<std::string> option_files;  // --options-file, later files win
  EnvMap env;                             // the environment; nothing else is read
  std::string cwd;                        // working directory at session start ("" = current)
  // Read and parse the files the options point to, and check the folders that must exist.
  // Off only for checks of a configuration on another machine.
  bool check_files = true;
  // Check the rules between options. Off only to list the values and sources of a configuration
  // that breaks one (the Python package's attribute reads); each value is still checked.
  bool check_rules = true;
};

// One configuration problem in CANN's style: parameter, value, reason, reported with code E10001
// (AMB-29). Every problem of a configuration is collected and reported together.
struct Problem {
  std::string parameter;
  std::string value;
  std::string reason;
  // "E10001: Value [v] for parameter [p] is invalid. Reason: r"
  std::string to_string() const;
};

// One line per problem.
std::string format_problems(const std::vector<Problem>& problems);

// A configuration as built: the option set when no problem was found, else every problem.
struct Configuration {
  std::shared_ptr<const OptionSet> options;  // null when `errors` is not empty
  std::vector<Problem> errors;
  std::vector<std::string> warnings;  // deprecations, overrides, ignored settings, in order
};
Configuration build_configuration(const OptionInputs& inputs);

// The same as a Result whose error lists every problem (one "E10001: ..." line each).
Result<std::shared_ptr<const OptionSet>> build_session_config(const OptionInputs& inputs);

// One option of a built set: its effective value ("" = unset) and what decided it.
struct OptionSetting {
  std::string name;    // canonical dotted name
  std::string value;   // canonical text; bools "True"/"False"
  std::string source;  // "default", "env", "file", "flag" (the C++ API counts as flag)
  std::string origin;  // e.g. "PROFILING_OPTIONS", "opts.json:3", "--option", "derived: graph_run_mode=0"
};
// Every option of the set, by canonical name.
std::vector<OptionSetting> option_settings(const OptionSet& options);
std::optional<OptionSetting> option_setting(const OptionSet& options, std::string_view name);
// The warnings of the build that made the set.
const std::vector<std::string>& option_warnings(const OptionSet& options);

// What OpenGE does with an option today.
enum class OptionEffect { kImplemented, kNotImplemented, kNoCpuEffect };

// One row of the option table, as `openge options --explain` shows it.
struct OptionInfo {
  std::string name;                    // exact dotted name, or the environment variable's name for environment rows
  std::string aliases;                 // space-separated other accepted names
  std::string ge_key;                  // GE option key, also accepted as a name
  std::string env_var;                 // environment variable that feeds the row
  std::string kind;                    // "bool", "int", "enum", ... (the value's syntax)
  std::vector<std::string> api_types;  // the typed-API value types it takes: "bool", "int", "str"
  std::string allowed;                 // enum and type-list values "a|b|c"; human text for the others
  bool choices = false;                // `allowed` lists the values ("a|b|c")
  std::optional<std::pair<int64_t, int64_t>> range;  // integer options
  std::string default_value;                         // the default in the default scenario ("" = unset)
  std::string default_text;                          // the default, or its value per scenario when it depends on one
  bool default_depends_on_scenario = false;
  std::optional<std::string> deprecated_by;  // set when deprecated: the replacement ("" none)
  OptionEffect effect = OptionEffect::kImplemented;
  std::string effect_label;  // "implemented", "accepted, not implemented yet", "no effect on CPU"
  std::string effect_note;   // what it does, what is missing, or why a CPU has nothing to apply it to
  std::string effect_text;   // effect_label: effect_note
  std::string consumer;      // implemented: the engine file that reads it
  std::string description, interactions, spec_ids;
  bool environment_only = false;  // a row for an environment variable, not an npu.global_options() field
};
// Every row in table order.
std::vector<OptionInfo> option_infos();
// By canonical name, alias, GE key or leaf name ("enable_dump"); nullopt for an unknown name.
std::optional<OptionInfo> option_info(std::string_view name);
// Every name by which options can be given (for the fuzzers and did-you-mean).
std::vector<std::string> all_option_names();
// Up to three known names close to `name`, best first (for "did you mean").
std::vector<std::string> suggest_names(std::string_view name);

// The type of a value as a typed API (the Python package) hands it over. kOther: anything else
// (a float, a list...), given as its printed form.
enum class ApiType { kBool, kInt, kText, kOther };
const char* api_type_name(ApiType type);  // "bool", "int", "str", "other"

// One assignment checked by itself (npu.global_options().NAME = value): the value's type against
// the option's, then the per-value check of build_configuration. Returns (canonical name,
// canonical text) or the Problem's "E10001: ..." line as the error (its reason ends with
// "(from <origin>)"). Rules between options run only when a configuration is built.
Result<std::pair<std::string, std::string>> check_assignment(std::string_view name, ApiType type,
                                                             const std::string& text, const std::string& origin);

// Where one artifact kind goes for a configuration, and the rule of its priority chain that chose it.
struct ArtifactPath {
  std::string kind;  // "log", "atrace", "dump", ...
  std::string path;  // "" when the kind is off
  bool is_file = false;
  std::string rule, chain;
  std::string written_by;    // the engine code that writes it, "" when nothing writes it yet
  std::string written_only;  // when that code writes it only in some cases, which ("" always)
};
// Every artifact kind for this process (its pid and host name).
std::vector<ArtifactPath> artifact_paths(const OptionSet& options);

// The size limits of the operator compile cache (op_cache.ini or the options).
struct CompileCacheSize {
  int64_t max_size_mb = 0;
  int remain_ratio_percent = 0;
  std::string rule;
  std::vector<std::string> warnings;  // why an op_cache.ini present was not used
  std::string mode;                   // op_compiler_cache_mode, "enable" when unset
  std::string soc_folder;             // the cache keeps one folder per SoC
  bool applied = false;               // whether the engine writes the cache today
};
CompileCacheSize compile_cache_size(const OptionSet& options);

}  // namespace openge::options
