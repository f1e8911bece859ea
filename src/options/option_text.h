// An option's row as `openge options --explain`, `--markdown` and the Python explain() show it.
#pragma once
#include <string>

#include "options/option_table.h"

namespace openge::options {

// The default: the value, "(unset)", or, when it depends on graph_run_mode / soc_version, the
// value of each scenario ("Ascend910 training: 1; Ascend910 online inference: 0; ...").
std::string default_text(const OptionSpec& spec);

// "implemented: ...", "accepted, not implemented yet: ..." or "no effect on CPU: ...".
std::string effect_text(const OptionSpec& spec);

}  // namespace openge::options
