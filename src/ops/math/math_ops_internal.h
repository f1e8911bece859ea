// Sibling files of the linear-algebra family; register_math_ops calls them.
#pragma once
#include <vector>

#include "ops/op_registry.h"

namespace openge {

void register_math_einsum_ops(std::vector<OpSchema>& table);  // Einsum

}  // namespace openge
