// The validated, immutable configuration of one session: every option of the table with its
// effective value and the source that decided it (default / env / file / flag). Built only by
// build_options() (option_builder.h); every other component reads typed values from here and
// never from the process environment.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "openge/options.h"  // EnvMap, capture_process_environment

namespace openge::options {

// Ordered by precedence: a later source overrides an earlier one. The C++ API counts as kFlag.
enum class Source { kDefault = 0, kEnv = 1, kFile = 2, kFlag = 3 };
const char* source_name(Source s);  // "default", "env", "file", "flag"

struct OptionValue {
  std::string value;  // canonical text ("" = unset); bools are "True"/"False" as in TF scripts
  Source source = Source::kDefault;
  std::string origin;  // e.g. "PROFILING_OPTIONS", "opts.json:3", "--option", "derived: graph_run_mode=0"
};

// The options one OptionSet object has been asked for, by canonical name. It proves which
// options engine code consumes (tests/options/option_effects_test.cpp holds the option table's
// "implemented" rows to it). Thread-safe: sessions read their options from several threads. A
// copy or move of an OptionSet starts with an empty record, so the builder's own reads (defaults,
// validation) are not in the record of the set it returns.
class OptionReadRecord {
 public:
  OptionReadRecord() = default;
  OptionReadRecord(const OptionReadRecord&) {}
  OptionReadRecord& operator=(const OptionReadRecord&) {
    forget();
    return *this;
  }
  void add(const char* name) const;
  std::set<std::string> names() const;
  void forget() const;

 private:
  mutable std::mutex mutex_;
  mutable std::set<std::string> names_;
};

class OptionSet {
 public:
  // By canonical dotted name, alias, GE key or leaf name; nullptr for an unknown name.
  const OptionValue* find(std::string_view name) const;
  // Effective value, "" when the option has no value.
  std::string get(std::string_view name) const;
  bool has_value(std::string_view name) const { return !get(name).empty(); }
  // True when a user source (env, file, flag) gave the value.
  bool user_set(std::string_view name) const;
  bool get_bool(std::string_view name) const;  // "True" -> true
  int64_t get_int(std::string_view name, int64_t fallback = 0) const;

  // Convenience for the values most components need.
  int graph_run_mode() const { return static_cast<int>(get_int("graph_run_mode", 1)); }
  bool online_inference() const { return graph_run_mode() == 0; }
  std::string soc_version() const { return get("soc_version"); }
  int device_id() const { return static_cast<int>(get_int("device_id", 0)); }

  // The working directory when the session started (AMB-9); relative paths resolve against it.
  const std::string& cwd() const { return cwd_; }
  // $HOME from the environment given to the builder ("" if unset).
  const std::string& home() const { return home_; }
  // Warnings produced while building (deprecations, overrides, ignored settings), in order.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Every option row by canonical name. Reading through this map is not recorded: it is for
  // code that lists options (the CLI), not for code that acts on them.
  const std::map<std::string, OptionValue>& values() const { return values_; }

  // The canonical names of the options read through find/get/get_bool/get_int/has_value/user_set
  // on this object since it was made (or since forget_reads()).
  std::set<std::string> options_read() const { return reads_.names(); }
  void forget_reads() const { reads_.forget(); }

 private:
  friend class OptionSetBuilder;
  std::map<std::string, OptionValue> values_;
  std::vector<std::string> warnings_;
  std::string cwd_, home_;
  OptionReadRecord reads_;
};

}  // namespace openge::options
