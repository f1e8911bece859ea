#include "compiler/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace openge {

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests) {
  constexpr size_t kAlign = 64;
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

  struct Placed {
    size_t begin, end;
    int first, last;
  };
  std::vector<Placed> placed;
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    const size_t size = (r.bytes + kAlign - 1) / kAlign * kAlign;
    plan.total_bytes += size;
    // Intervals already taken during this buffer's lifetime, by start offset.
    std::vector<std::pair<size_t, size_t>> busy;
    for (const Placed& p : placed)
      if (p.first <= r.last_step && r.first_step <= p.last) busy.emplace_back(p.begin, p.end);
    std::sort(busy.begin(), busy.end());
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (const auto& [b, e] : busy) {
      if (b > cursor && b - cursor >= size && b - cursor < best_gap) {
        best = cursor;
        best_gap = b - cursor;
      }
      cursor = std::max(cursor, e);
    }
    if (best == SIZE_MAX) best = cursor;
    plan.offsets[idx] = best;
    placed.push_back({best, best + size, r.first_step, r.last_step});
    plan.arena_bytes = std::max(plan.arena_bytes, best + size);
  }
  return plan;
}

}  // namespace openge
