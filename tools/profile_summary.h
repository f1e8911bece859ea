// The top-operators table that `openge run --profile` and `openge profile-report` print.
#pragma once
#include <cstddef>

#include "profiling/report.h"

namespace openge::cli {

// Prints the `top` operators of `data` by total time (name, type, engine, count, total, share).
void print_top_ops(const profiling::ReportData& data, size_t top);

}  // namespace openge::cli
