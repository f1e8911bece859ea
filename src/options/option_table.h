// The option table: one row per npu.global_options() field (exact dotted names), per extra
// OpenGE field (soc_version, device_id) and per environment variable of the spec. Code reads
// this table; it does not scatter knowledge about options over ifs.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "openge/options.h"  // all_option_names, suggest_names

namespace openge::options {

enum class Kind {
  kBool,              // True/False (also true/false/1/0)
  kInt,               // integer in [min, max]
  kEnum,              // one of `allowed` ("a|b|c")
  kString,            // free text
  kFile,              // path to a file that must exist and be readable when given
  kDir,               // path to a directory
  kStreamParallel,    // "ENGINE:N,..." (stream_max_parallel_num)
  kDumpStep,          // "0|5|10-20"
  kProfilingOptions,  // a JSON object in a string (profiling_options / PROFILING_OPTIONS)
  kTimeoutMs,         // -1 or a positive number of milliseconds
  kTypeList,          // comma-separated subset of `allowed`
  kNameList,          // comma-separated free names (enable_scope_fusion_passes)
};

// What an option does in OpenGE today. Every row says exactly one of these, and
// tests/options/option_effects_test.cpp holds the table to it: an implemented row names the file
// under src/ that consumes it, and a Session run with the option set must read it.
enum class Effect {
  kImplemented,     // acts now; `effect` says what, `consumer` names the code that reads it
  kNotImplemented,  // accepted and validated, but no engine code acts on it yet
  kNoCpuEffect,     // accepted and validated; it has no meaning for a CPU engine (`effect` says why)
};
const char* effect_label(Effect e);  // "implemented", "accepted, not implemented yet", "no effect on CPU"

// What decides a default that depends on the scenario or the product.
struct DefaultContext {
  int graph_run_mode = 1;
  std::string soc_version;
};
using DefaultFn = std::string (*)(const DefaultContext&);

struct OptionSpec {
  const char* name;     // exact dotted name, or the env var's name for environment rows
  const char* aliases;  // space-separated other accepted names ("" none)
  const char* ge_key;   // GE option key, also accepted as a name ("" none)
  const char* env_var;  // environment variable that feeds this row ("" none)
  Kind kind;
  const char* allowed;        // kEnum/kTypeList values "a|b|c"; human text for the others
  int64_t min, max;           // kInt range
  const char* default_value;  // "" = unset
  DefaultFn default_fn;       // non-null when the default depends on graph_run_mode/soc_version
  const char* deprecated_by;  // nullptr: current; "": deprecated, no replacement; else replacement
  Effect status;              // what OpenGE does with it today
  const char* effect;         // kImplemented: what it does now; kNotImplemented: what is missing and what it
                              // will do; kNoCpuEffect: why a CPU has nothing to apply it to (AMB-1)
  const char* consumer;       // kImplemented: the file under src/ that reads it (it names the option); else ""
  const char* description;    // one line, English
  const char* interactions;   // rules that involve other options ("" none)
  const char* spec_ids;       // requirement IDs
};

std::span<const OptionSpec> option_table();

// Resolves a canonical name, alias, GE key or leaf name ("enable_dump") to its row.
const OptionSpec* find_option(std::string_view name);

// The default of a row in the given scenario ("" when unset).
std::string default_for(const OptionSpec& spec, const DefaultContext& ctx);

const char* kind_name(Kind k);

// The SoC profiles OpenGE knows; kDefaultSoc is the Atlas A2 training series.
inline constexpr const char* kDefaultSoc = "Ascend910B";
bool soc_is_a2(std::string_view soc);
// One of the three profiles shipped in opp/ (others come from ASCEND_OPP_PATH).
bool soc_is_built_in(std::string_view soc);

}  // namespace openge::options
