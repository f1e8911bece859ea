#include "distributed/gradient_buckets.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace openge::distributed {
namespace {

Bucket make_bucket(const std::vector<int64_t>& elements, size_t first, size_t last) {
  Bucket b;
  b.first = first;
  b.last = last;
  for (size_t i = first; i <= last; ++i) {
    b.offsets.push_back(b.elements);
    b.elements += elements[i];
  }
  return b;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) parts.push_back(part);
  return parts;
}

}  // namespace

Result<std::vector<Bucket>> plan_buckets(const std::vector<int64_t>& elements, const SplitStrategy& strategy) {
  const int64_t n = static_cast<int64_t>(elements.size());
  if (n == 0) return std::vector<Bucket>{};
  if (!strategy.by_index.empty() && !strategy.by_size.empty())
    return invalid_argument("give the gradient split by index or by size, not both");
  std::vector<Bucket> buckets;
  if (!strategy.by_index.empty()) {
    int64_t previous = -1;
    for (int64_t idx : strategy.by_index) {
      if (idx <= previous || idx >= n)
        return invalid_argument("gradient split by index: " + std::to_string(idx) +
                                " must be above the previous "
                                "index and below the gradient count " +
                                std::to_string(n));
      buckets.push_back(make_bucket(elements, static_cast<size_t>(previous + 1), static_cast<size_t>(idx)));
      previous = idx;
    }
    if (previous != n - 1)
      return invalid_argument("gradient split by index: the last index must be the last gradient's, " +
                              std::to_string(n - 1) + ", got " + std::to_string(previous));
    return buckets;
  }
  const std::vector<double>& sizes = strategy.by_size.empty() ? default_split_by_size() : strategy.by_size;
  double sum = 0;
  for (double s : sizes) {
    if (!(s > 0) || !std::isfinite(s))
      return invalid_argument("gradient split by size: every percentage must be above 0, got " + std::to_string(s));
    sum += s;
  }
  if (std::abs(sum - 100.0) > 1e-6)
    return invalid_argument("gradient split by size: the percentages must sum to 100, they sum to " +
                            std::to_string(sum));
  int64_t total = 0;
  for (int64_t e : elements) total += e;
  // Each segment ends at the first parameter that brings the running size to its cumulative share
  // (every segment takes at least one parameter; segments left without any are dropped).
  size_t next = 0;
  double cumulative = 0;
  int64_t running = 0;
  for (size_t s = 0; s < sizes.size() && next < elements.size(); ++s) {
    cumulative += sizes[s];
    const double target = total * cumulative / 100.0;
    size_t last = next;
    running += elements[last];
    while (last + 1 < elements.size() && (s + 1 == sizes.size() || static_cast<double>(running) < target - 0.5)) {
      ++last;
      running += elements[last];
    }
    buckets.push_back(make_bucket(elements, next, last));
    next = last + 1;
  }
  return buckets;
}

std::vector<int64_t> split_indices(const std::vector<Bucket>& buckets) {
  std::vector<int64_t> ends;
  for (const Bucket& b : buckets) ends.push_back(static_cast<int64_t>(b.last));
  return ends;
}

std::vector<std::vector<int64_t>> split_candidates(const std::vector<int64_t>& elements) {
  std::vector<std::vector<int64_t>> out;
  const int64_t n = static_cast<int64_t>(elements.size());
  if (n == 0) return out;
  std::vector<std::vector<double>> shares = {{100.0}, default_split_by_size()};
  for (int64_t k : {2, 4, 8, 16, 32})
    if (k <= n) shares.emplace_back(static_cast<size_t>(k), 100.0 / static_cast<double>(k));
  for (const auto& by_size : shares) {
    auto plan = plan_buckets(elements, {{}, by_size});
    if (!plan.ok()) continue;
    std::vector<int64_t> ends = split_indices(*plan);
    if (std::find(out.begin(), out.end(), ends) == out.end()) out.push_back(std::move(ends));
  }
  return out;
}

Result<std::vector<int64_t>> parse_split_indices(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& p : split_commas(text)) {
    try {
      size_t used = 0;
      const long long v = std::stoll(p, &used);
      if (used != p.size() || v < 0) throw std::invalid_argument(p);
      out.push_back(v);
    } catch (const std::exception&) {
      return invalid_argument("gradient split by index: '" + p + "' is not a gradient index (a list like 20,100,159)");
    }
  }
  if (out.empty()) return invalid_argument("gradient split by index: the list is empty (a list like 20,100,159)");
  return out;
}

Result<std::vector<double>> parse_split_sizes(const std::string& text) {
  std::vector<double> out;
  for (const std::string& p : split_commas(text)) {
    try {
      size_t used = 0;
      const double v = std::stod(p, &used);
      if (used != p.size()) throw std::invalid_argument(p);
      out.push_back(v);
    } catch (const std::exception&) {
      return invalid_argument("gradient split by size: '" + p + "' is not a percentage (a list like 60,20,20)");
    }
  }
  if (out.empty()) return invalid_argument("gradient split by size: the list is empty (a list like 60,20,20)");
  return out;
}

}  // namespace openge::distributed
