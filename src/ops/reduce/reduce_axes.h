// Axis bookkeeping shared by the reduction family: normalising axis lists, and viewing a
// tensor as [outer, axis, inner] blocks so kernels can run contiguous, vectorisable loops.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"
#include "ops/op_registry.h"

namespace openge {

// Maps axes into [0, rank), sorted; an error message for out-of-range or repeated axes.
Result<std::vector<int64_t>> normalize_axes(const std::vector<int64_t>& axes, int64_t rank);

// A shape seen as [outer, axis, inner] around one axis (or around a run of adjacent axes).
struct AxisSplit {
  int64_t outer = 1;
  int64_t axis = 1;
  int64_t inner = 1;
};
AxisSplit split_at_axis(const Shape& shape, int64_t axis);

// Reads a scalar (0-D or one-element 1-D) integer tensor such as CumSum's axis or TopK's K.
Result<int64_t> read_scalar_int(const Tensor& t, const char* what);

// Sibling files of the reduction family; register_reduce_ops calls them.
void register_reduce_index_ops(std::vector<OpSchema>& table);    // ArgMax, ArgMin, TopK
void register_reduce_softmax_ops(std::vector<OpSchema>& table);  // Softmax, LogSoftmax, CumSum

}  // namespace openge
