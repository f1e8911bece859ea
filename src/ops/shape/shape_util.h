// Shape arithmetic shared by op inference functions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "openge/tensor.h"

namespace openge {

// NumPy/ONNX multidirectional broadcast of two shapes; nullopt if incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);
// Maps a possibly negative axis into [0, rank); nullopt if out of range.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank);
// Row-major strides of a shape, in elements.
std::vector<int64_t> contiguous_strides(const Shape& shape);
// Strides for reading `from` (right-aligned) as if broadcast to `to`: 0 on broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& from, const Shape& to);

}  // namespace openge
