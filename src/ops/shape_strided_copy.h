// One copy loop for every op that reads its input through a strided view: Transpose (permuted
// strides), Slice (scaled strides, offset start, negative steps), Expand and Tile (zero strides).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "openge/tensor.h"

namespace openge {

// Writes the elements of the view {shape, src_strides (in elements, may be 0 or negative)}
// starting at `src` into the contiguous row-major buffer `dst`. Adjacent dims that are
// contiguous in the view are merged first; rows with unit stride become memcpy, zero-stride rows
// become fills, and views whose unit-stride dim is not the last one (transposes) are copied in
// cache-sized tiles. Parallel over rows / tiles.
void strided_copy(const void* src, void* dst, size_t elem_size, const Shape& shape,
                  const std::vector<int64_t>& src_strides);

}  // namespace openge
