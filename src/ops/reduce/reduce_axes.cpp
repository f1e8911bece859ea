#include "ops/reduce/reduce_axes.h"

#include <algorithm>

#include "ops/shape/shape_util.h"

namespace openge {

Result<std::vector<int64_t>> normalize_axes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    auto n = normalize_axis(a, rank);
    if (!n) return invalid_argument("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) return invalid_argument("axes must not repeat an axis");
  return out;
}

AxisSplit split_at_axis(const Shape& shape, int64_t axis) {
  AxisSplit s;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    if (i < axis)
      s.outer *= shape[static_cast<size_t>(i)];
    else if (i == axis)
      s.axis = shape[static_cast<size_t>(i)];
    else
      s.inner *= shape[static_cast<size_t>(i)];
  }
  return s;
}

Result<int64_t> read_scalar_int(const Tensor& t, const char* what) {
  if (!dtype_is_integer(t.dtype()))
    return invalid_argument(std::string(what) + " must be an integer tensor, got " + dtype_name(t.dtype()));
  if (t.numel() != 1 || t.rank() > 1)
    return invalid_argument(std::string(what) + " must hold exactly one value (0-D or 1-D of size 1), got shape " +
                            shape_to_string(t.shape()));
  return t.scalar_as_int(0);
}

}  // namespace openge
