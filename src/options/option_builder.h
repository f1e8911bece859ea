// Builds the OptionSet: the one place that combines the sources, applies precedence
// (flag/API > options file > environment > default), validates every rule and reports every
// problem together.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/options.h"  // OptionAssignment, OptionInputs
#include "options/option_set.h"
#include "options/problem.h"

namespace openge::options {

struct BuildReport {
  std::optional<OptionSet> options;  // set when `errors` is empty
  std::vector<Problem> errors;
  std::vector<std::string> warnings;
};

BuildReport build_options(const OptionInputs& inputs);

// The same, as a Result whose error lists every problem (one "E10001: ..." line each).
Result<OptionSet> build_option_set(const OptionInputs& inputs);

}  // namespace openge::options
