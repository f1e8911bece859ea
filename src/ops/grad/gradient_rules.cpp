#include "ops/grad/gradient_rules.h"

#include <algorithm>
#include <string>

#include "ops/grad/grad_ops.h"
#include "ops/op_registry.h"

namespace openge {

Result<int> sum_to_shape(GradientBuilder& gb, int v, const Shape& target) {
  if (gb.shape_of(v) == target) return v;
  Attributes attrs;
  attrs.set("shape", ints_attr(target));
  return gb.emit1("SumToShape", {v}, std::move(attrs), kGradDomain);
}

Result<int> sum_to_input(GradientBuilder& gb, int grad, size_t input) {
  return sum_to_shape(gb, grad, gb.shape_of(gb.input(input)));
}

void register_gradient_rules(std::vector<OpSchema>& table) {
  std::vector<GradientRule> rules;
  add_math_gradient_rules(rules);
  add_nn_gradient_rules(rules);
  add_shape_gradient_rules(rules);
  add_recurrent_gradient_rules(rules);
  for (const GradientRule& r : rules)
    for (OpSchema& schema : table)
      if (schema.op_type == r.op_type) schema.gradient = r.rule;
}

void register_grad_ops(std::vector<OpSchema>& table) {
  register_sum_to_shape_op(table);
  register_activation_grad_ops(table);
  register_loss_grad_ops(table);
  register_conv_grad_op(table);
  register_pool_grad_ops(table);
  register_norm_grad_ops(table);
  register_gather_grad_op(table);
  register_dropout_train_ops(table);
  register_recurrent_grad_ops(table);
}

}  // namespace openge
