// Static memory planning: intermediate tensors whose sizes are known at compile time share one
// arena, and two tensors may occupy the same bytes when their lifetimes do not overlap.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace openge {

struct BufferRequest {
  size_t bytes = 0;
  int first_step = 0;  // step that writes it
  int last_step = 0;   // last step that reads it (inclusive)
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // one per request, 64-byte aligned
  size_t arena_bytes = 0;       // peak: the arena size that holds every buffer
  size_t total_bytes = 0;       // what the buffers would need without reuse
};

// Greedy best-fit by decreasing size: each buffer goes at the lowest offset that no buffer
// with an overlapping lifetime occupies.
MemoryPlan plan_memory(const std::vector<BufferRequest>& requests);

}  // namespace openge
