// The neural-network op family: each nn_*.cpp file registers its own rows.
#include "ops/nn/nn_common.h"
#include "ops/op_registry.h"

namespace openge {

void register_nn_ops(std::vector<OpSchema>& table) {
  register_nn_conv_ops(table);
  register_nn_pool_ops(table);
  register_nn_norm_ops(table);
  register_nn_resize_ops(table);
}

}  // namespace openge
