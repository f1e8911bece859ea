// The ops whose kernels add into their outputs instead of writing each element once (scatter-adds,
// a window's gradient given back to every tap it read): CANN's atomic operators. Their kernels
// expect zeroed outputs and do not clear them; the executor zeroes them first, all at once or each
// before its node (atomic_clean_policy, runtime/executable_run.cpp).
#pragma once
#include <string_view>

namespace openge {

// True for an op whose reference (AI CPU) kernel accumulates into its outputs.
bool accumulates_into_outputs(std::string_view op_type);

}  // namespace openge
