// What AOE operator tuning (aoe_mode 2) may choose for a node: the implementations the engine
// has for its op type, as one table (tuning_space.cpp). A row says which fields of KernelVariant
// have real alternatives for the op; one thread instead of the team is a candidate of every row
// when the session runs more than one thread.
#pragma once
#include <vector>

#include "ops/kernel.h"

namespace openge::aoe {

// True when `op_type` has a row (the op is tunable).
bool is_tunable(const std::string& op_type);

// The variants to measure for this node at `threads` threads, the default first; empty when the
// op is not tunable. A candidate the kernel factory cannot build is dropped by the tuner.
// `deeper` (aoe_config_file feature deeper_opat) widens the search: every variant is also tried
// on the whole thread team, which the ordinary search never gives a node the grain keeps on one
// thread (see tuning_space.cpp for why).
std::vector<KernelVariant> candidate_variants(const KernelRequest& request, int threads, bool deeper = false);

}  // namespace openge::aoe
