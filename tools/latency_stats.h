// Summaries of measured run times (milliseconds) for the CLIs.
#pragma once
#include <algorithm>
#include <vector>

namespace openge::cli {

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace openge::cli
