#include "profile_summary.h"

#include <algorithm>
#include <cstdio>

namespace openge::cli {

void print_top_ops(const profiling::ReportData& data, size_t top) {
  auto ops = data.ops;
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  int64_t all = 0;
  for (const auto& o : ops) all += o.total_ns;
  std::printf("%-4s %-40s %-22s %-8s %8s %12s %7s\n", "#", "op name", "type", "engine", "count", "total ms", "share");
  for (size_t i = 0; i < ops.size() && i < top; ++i)
    std::printf("%-4zu %-40s %-22s %-8s %8llu %12.3f %6.1f%%\n", i + 1, ops[i].name.c_str(), ops[i].type.c_str(),
                ops[i].engine.c_str(), static_cast<unsigned long long>(ops[i].count),
                static_cast<double>(ops[i].total_ns) / 1e6,
                all > 0 ? 100.0 * static_cast<double>(ops[i].total_ns) / static_cast<double>(all) : 0.0);
}

}  // namespace openge::cli
