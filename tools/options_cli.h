// The option flags every command that builds a session takes (--option NAME=VALUE,
// --options-file F), and the one call that turns them plus the environment into an OptionSet.
#pragma once
#include <memory>
#include <vector>

#include "cli_args.h"
#include "openge/options.h"

namespace openge::cli {

// --option NAME=VALUE (repeatable) and --options-file F (repeatable).
std::vector<FlagSpec> option_flag_specs();

// The builder inputs from parsed flags and an environment (tests pass their own environment).
// A --option without '=' becomes a problem in the report.
// `extra` are assignments a command derives from its own flags (e.g. run --profile); they come
// before --option, so an explicit --option still wins.
options::Configuration option_report_from_args(const Args& args, const options::EnvMap& env,
                                               const std::vector<options::OptionAssignment>& extra = {});

// The validated option set, or an error listing every problem ("E10001: ..." lines).
// Warnings are in options::option_warnings() of the set.
Result<std::shared_ptr<const options::OptionSet>> option_set_from_args(
    const Args& args, const options::EnvMap& env, const std::vector<options::OptionAssignment>& extra = {});

}  // namespace openge::cli
