// Gradient buckets: the parameters' gradients cut into segments that are all-reduced as one
// operation each. The split points follow the TF adapter's gradient-split API, on the parameters
// in the order of the trainer's list (the model's order):
//   by index  set_split_strategy_by_idx([20, 100, 159]): the index of each segment's last gradient
//             (the last value must be the last gradient's index);
//   by size   set_split_strategy_by_size([60, 20, 20]): each segment's percentage of the gradient
//             bytes (summing to 100).
// Without either, HCCL's default applies: two segments by size, 96.54 % and 3.46 %.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/data_parallel.h"  // parse_split_indices, parse_split_sizes

namespace openge::distributed {

struct SplitStrategy {
  std::vector<int64_t> by_index;
  std::vector<double> by_size;  // percentages
};

// HCCL's default gradient split, by size.
inline const std::vector<double>& default_split_by_size() {
  static const std::vector<double> kDefault = {96.54, 3.46};
  return kDefault;
}

struct Bucket {
  size_t first = 0, last = 0;    // parameter indices [first, last]
  std::vector<int64_t> offsets;  // per parameter of the bucket: its first element in the bucket
  int64_t elements = 0;
};

// The buckets of parameters with `elements[i]` float elements each. An error names the bad split
// value and the rule it breaks.
Result<std::vector<Bucket>> plan_buckets(const std::vector<int64_t>& elements, const SplitStrategy& strategy);

// The split a plan stands for, as set_split_strategy_by_idx takes it (each bucket's last index).
std::vector<int64_t> split_indices(const std::vector<Bucket>& buckets);

// What gradient-split tuning (aoe_mode 4) measures, as index lists, each once: one bucket, HCCL's
// default, and equal shares of the bytes in 2, 4, 8, 16 and 32 buckets (as many as there are
// gradients at most).
std::vector<std::vector<int64_t>> split_candidates(const std::vector<int64_t>& elements);

}  // namespace openge::distributed
