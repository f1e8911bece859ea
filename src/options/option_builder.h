// Builds the OptionSet: the one place that combines the sources, applies precedence
// (flag/API > options file > environment > default), validates every rule and reports every
// problem together.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "openge/status.h"
#include "options/option_set.h"
#include "options/problem.h"

namespace openge::options {

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

struct BuildReport {
  std::optional<OptionSet> options;  // set when `errors` is empty
  std::vector<Problem> errors;
  std::vector<std::string> warnings;
};

BuildReport build_options(const OptionInputs& inputs);

// The same, as a Result whose error lists every problem (one "E10001: ..." line each).
Result<OptionSet> build_option_set(const OptionInputs& inputs);

}  // namespace openge::options
