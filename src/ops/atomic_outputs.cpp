#include "ops/atomic_outputs.h"

#include <algorithm>
#include <iterator>

namespace openge {
namespace {

// One row per op, with what it adds up. A table of its own rather than a field of OpSchema: every
// op file includes ops/op_registry.h.
struct AtomicOp {
  std::string_view op_type;
  std::string_view adds;
};

constexpr AtomicOp kAtomicOps[] = {
    {"GatherGrad", "each gathered slice's gradient, at its index"},
    {"MaxPoolGrad", "each window's gradient, at the window's first maximum"},
    {"AveragePoolGrad", "each window's gradient, spread over its taps"},
    {"ConvGrad", "dX: each position's column gradient at its taps; dW: one product per sample and group"},
};

}  // namespace

bool accumulates_into_outputs(std::string_view op_type) {
  return std::any_of(std::begin(kAtomicOps), std::end(kAtomicOps),
                     [&](const AtomicOp& op) { return op.op_type == op_type; });
}

}  // namespace openge
