#include "ops/op_registry.h"

#include <algorithm>

#include "ops/opset_forms.h"

namespace openge {
namespace {

std::vector<OpSchema> build_table() {
  std::vector<OpSchema> table;
  register_elementwise_ops(table);
  register_shape_ops(table);
  register_nn_ops(table);
  register_reduce_ops(table);
  register_math_ops(table);
  register_fused_ops(table);
  register_index_ops(table);
  register_select_ops(table);
  register_layout_ops(table);
  register_normalization_ops(table);
  register_pooling_ops(table);
  register_detection_ops(table);
  register_grid_sample_ops(table);
  register_loss_ops(table);
  register_extended_activation_ops(table);
  register_numeric_ops(table);
  register_hardmax_ops(table);
  register_construct_ops(table);
  register_random_ops(table);
  register_signal_ops(table);
  register_linalg_ops(table);
  register_recurrent_ops(table);
  register_quantize_ops(table);
  register_old_form_ops(table);
  register_control_flow_ops(table);
  register_sequence_ops(table);
  register_string_ops(table);
  register_tfidf_ops(table);
  register_training_ops(table);
  register_grad_ops(table);
  register_gradient_rules(table);
  std::sort(table.begin(), table.end(), [](const OpSchema& a, const OpSchema& b) { return a.op_type < b.op_type; });
  return table;
}

}  // namespace

const std::vector<OpSchema>& all_op_schemas() {
  static const std::vector<OpSchema> table = build_table();
  return table;
}

const OpSchema* find_op_schema(std::string_view op_type) {
  const auto& table = all_op_schemas();
  auto it = std::lower_bound(table.begin(), table.end(), op_type,
                             [](const OpSchema& s, std::string_view t) { return s.op_type < t; });
  return it != table.end() && it->op_type == op_type ? &*it : nullptr;
}

}  // namespace openge
