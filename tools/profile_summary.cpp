#include "profile_summary.h"

#include <cstdio>

namespace openge::cli {

void print_top_ops(const profiling::ReportData& data, size_t top) {
  const auto ranked = profiling::ops_by_steady_median(data.ops);
  const bool steady = data.step_times.size() > 1;
  for (const auto& [id, ns] : data.step_times)
    if (id == 1)
      std::printf("iteration 1 (compile and warm-up): %.3f ms, reported apart\n", static_cast<double>(ns) / 1e6);
  std::printf("median step time: %.3f ms %s\n",
              static_cast<double>(profiling::steady_median_step_ns(data.step_times)) / 1e6,
              steady ? ("over iterations 2.." + std::to_string(data.step_times.size())).c_str()
                     : "(one iteration: no steady state, figures include compile and warm-up)");
  int64_t all = 0;
  for (const auto& [o, st] : ranked) all += st.median_ns;
  std::printf("%-4s %-40s %-22s %-8s %6s %12s %12s %14s %7s\n", "#", "op name", "type", "engine", "count", "median us",
              "min us", "iteration 1 us", "share");
  for (size_t i = 0; i < ranked.size() && i < top; ++i) {
    const auto& [o, st] = ranked[i];
    std::printf("%-4zu %-40s %-22s %-8s %6llu %12.3f %12.3f %14.3f %6.1f%%\n", i + 1, o.name.c_str(), o.type.c_str(),
                o.engine.c_str(), static_cast<unsigned long long>(o.count), static_cast<double>(st.median_ns) / 1e3,
                static_cast<double>(st.min_ns) / 1e3, st.first_ns < 0 ? 0.0 : static_cast<double>(st.first_ns) / 1e3,
                all > 0 ? 100.0 * static_cast<double>(st.median_ns) / static_cast<double>(all) : 0.0);
  }
}

}  // namespace openge::cli
