// The in-graph optimizer update (optimizer_update_op.cpp) and what the compile pipeline needs to
// know about ops that update their inputs in place.
#pragma once
#include <string_view>
#include <vector>

namespace openge {

struct OpSchema;

inline constexpr std::string_view kOptimizerUpdateOp = "OptimizerUpdate";
// Inputs of an OptimizerUpdate node from W on (W and its states) are written in place.
inline constexpr size_t kOptimizerUpdateFirstMutated = 2;
inline constexpr size_t kOptimizerUpdateGradient = 3;

// Whether nodes of this op write into some of their inputs (OptimizerUpdate).
bool updates_inputs_in_place(std::string_view op_type);

void register_optimizer_update_op(std::vector<OpSchema>& table);

}  // namespace openge
