// Which passes run for one compile. fusion_switch_file (OPT-fusion_switch_file-3..8) turns the
// fusion rules on and off by name, under "GraphFusion" for graph passes and "UBFusion" for UB
// passes; "ALL" sets every rule of its kind, a rule named in the same object beats "ALL"; passes
// whose control is kAlwaysOn run whatever the file says (AMB-15). Names the file gives that no
// pass has are warned about (module FE), with the closest pass names; every pass switched off is
// logged at info level. Scope fusion passes are outside fusion_switch_file's reach
// (OPT-enable_scope_fusion_passes-2..4): General ones always run, Non-General ones when
// enable_scope_fusion_passes names them; names in that list that are no scope pass are warned
// about (module GE) with the closest scope pass names.
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"
#include "passes/pass.h"

namespace openge::options {
class OptionSet;
}

namespace openge::passes {

struct PassChoice {
  const Pass* pass = nullptr;
  bool on = true;
  std::string reason;  // why: "default", "fusion_switch_file GraphFusion.X=off", "ALL=off", ...
};

// One choice per pass of `passes`, in order. `options` null: every pass on. A file that cannot be
// read or parsed (it changed since the options were checked) is an error naming it.
Result<std::vector<PassChoice>> choose_passes(const std::vector<Pass>& passes, const options::OptionSet* options);

}  // namespace openge::passes
