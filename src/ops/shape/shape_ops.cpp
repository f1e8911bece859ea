// The shape / data-movement op family. Each shape_*.cpp file registers a few related ops;
// shared helpers are in shape_common.h and the strided copy loop in shape_strided_copy.h.
#include "ops/shape/shape_common.h"

namespace openge {

void register_shape_ops(std::vector<OpSchema>& table) {
  register_shape_reshape_ops(table);
  register_shape_transpose_ops(table);
  register_shape_concat_split_ops(table);
  register_shape_slice_ops(table);
  register_shape_gather_ops(table);
  register_shape_expand_tile_ops(table);
  register_shape_pad_ops(table);
  register_shape_info_ops(table);
}

}  // namespace openge
