// One option assignment checked by itself, for typed programming-language APIs (the Python
// package's npu.global_options().NAME = value): the value's type against the option's kind,
// then the same per-value check build_options() makes, reported as the same Problem. Rules
// between options still run only in build_options(), when a session is created.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openge/options.h"  // ApiType
#include "options/option_table.h"
#include "options/problem.h"

namespace openge::options {

// The types an option takes: bool for kBool, int for kInt and kTimeoutMs, text for the rest,
// and also int for an enum whose values are all integers (aoe_config.aoe_mode = 1 or "1").
std::vector<ApiType> accepted_api_types(const OptionSpec& spec);

struct CheckedOption {
  const OptionSpec* spec = nullptr;  // null for an unknown name
  std::string value;                 // canonical text when valid
  std::optional<Problem> problem;    // why it is not valid
};

// `name` as build_options accepts it (dotted name, alias, GE key or leaf name); `text` the
// value as text (bools "True"/"False", decimal integers). The problem's reason ends with
// "(from <origin>)" as build_options writes it. A profiling_options JSON is checked for its
// syntax here; its keys and values need the other options and are checked by build_options.
CheckedOption check_single_option(std::string_view name, ApiType type, const std::string& text,
                                  const std::string& origin);

}  // namespace openge::options
