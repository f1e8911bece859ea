// The rules between options (spec C: exclusions, requirements, overrides) and the checks of the
// files and folders options point to. Used by build_options(); separate so each rule is one
// small function in one table.
#pragma once
#include <string>
#include <vector>

#include "options/option_set.h"
#include "options/option_table.h"
#include "options/problem.h"

namespace openge::options {

// The value as given, normalised for its kind ("True" for a bool...), or the reason it is invalid.
struct Normalized {
  std::string value;
  std::string error;  // "" when valid
};
Normalized normalize_value(const OptionSpec& spec, const std::string& raw);

// Cross-option rules; needs no file system.
void check_option_rules(const OptionSet& set, std::vector<Problem>& errors, std::vector<std::string>& warnings);

// Reads and parses every file an option points to, checks required folders and the rules that
// need file contents (NPU_COLLECT_PATH + oom, aoe feature vs aoe_mode).
void check_option_files(const OptionSet& set, std::vector<Problem>& errors, std::vector<std::string>& warnings);

}  // namespace openge::options
