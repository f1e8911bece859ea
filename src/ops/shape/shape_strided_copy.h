// One copy loop for every op that reads its input through a strided view: Transpose (permuted
// strides), Slice (scaled strides, offset start, negative steps), Expand and Tile (zero strides).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "openge/tensor.h"
#include "ops/prepared_kernel.h"

namespace openge {

// Writes the elements of the view {shape, src_strides (in elements, may be 0 or negative)}
// starting at `src` into the contiguous row-major buffer `dst`. Adjacent dims that are
// contiguous in the view are merged first; rows with unit stride become memcpy, zero-stride rows
// become fills, and views whose unit-stride dim is not the last one (transposes) are copied in
// cache-sized tiles. Parallel over rows / tiles.
void strided_copy(const void* src, void* dst, size_t elem_size, const Shape& shape,
                  const std::vector<int64_t>& src_strides);

// The same in two steps: everything decided from the shapes (merged view, loop kind, tiling) once
// (a prepared kernel's, per compiled shape), then copies that allocate nothing.
struct StridedCopyPlan {
  size_t elem_size = 0;
  bool empty = false;
  std::vector<int64_t> size, stride;                   // the merged view
  int tiled_axis = -1;                                 // copy_tiled's unit-stride axis, or -1: row by row
  std::vector<int64_t> dst_stride, bsize, bsrc, bdst;  // copy_tiled's batch dims
};
StridedCopyPlan plan_strided_copy(size_t elem_size, const Shape& shape, const std::vector<int64_t>& src_strides);
void run_strided_copy(const StridedCopyPlan& plan, const void* src, void* dst);

// The prepared kernel of Transpose and Slice (and any op that copies input 0 through a fixed
// view into output 0): the view's plan and its start `offset` (in elements) made once.
std::unique_ptr<CompiledKernel> make_prepared_strided_copy(size_t elem_size, const Shape& out_shape,
                                                           const std::vector<int64_t>& src_strides, int64_t offset);

}  // namespace openge
