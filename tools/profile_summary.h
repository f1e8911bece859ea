// The top-operators table that `openge run --profile` and `openge profile-report` print.
#pragma once
#include <cstddef>

#include "openge/profiling_report.h"

namespace openge::cli {

// Prints iteration 1 apart, the steady median step time, and the `top` operators by their median
// time per iteration over iterations 2..N (with min and iteration-1 time).
void print_top_ops(const profiling::ReportData& data, size_t top);

}  // namespace openge::cli
