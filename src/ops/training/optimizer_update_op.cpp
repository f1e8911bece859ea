// OptimizerUpdate (domain openge): one parameter's update by PyTorch's rules
// (ops/training/optimizer_rules.h), the node the Trainer appends after the gradients so that a
// training step is one graph. Attributes: rule (sgd, momentum, nesterov, adam, adamw, lamb),
// momentum, weight_decay, beta1, beta2, epsilon. Inputs: hyper (float32 [2]: learning rate, gradient
// scale), step (int64 scalar, 1 for the first update), W, G, then the rule's states (none; b; m, v),
// all float32 of W's shape. Output: the step (int64 scalar), so that the node has a result to keep.
//
// W and the states are updated in place: they are graph inputs whose storage the Trainer keeps
// between steps, so a step copies no weights. The compile pipeline runs these nodes after every
// other node (compiler/in_place_updates.h), so no other node reads a half-updated W, and refuses a
// graph where W or a state is not a graph input.
#include <climits>

#include "ops/op_registry.h"
#include "ops/training/optimizer_rules.h"
#include "ops/training/optimizer_update_op.h"

namespace openge {
namespace {

Result<OptimizerRuleConfig> read_config(const Node& node) {
  auto kind = parse_optimizer_rule(node.attrs.get_string("rule", "sgd"));
  if (!kind.ok())
    return invalid_model(std::string(kOptimizerUpdateOp) + " '" + node.name + "': " + kind.status().message());
  OptimizerRuleConfig c;
  c.kind = *kind;
  c.momentum = node.attrs.get_float("momentum", c.momentum);
  c.weight_decay = node.attrs.get_float("weight_decay", c.weight_decay);
  c.beta1 = node.attrs.get_float("beta1", c.beta1);
  c.beta2 = node.attrs.get_float("beta2", c.beta2);
  c.epsilon = node.attrs.get_float("epsilon", c.epsilon);
  return c;
}

Status update_infer(InferContext& ctx) {
  auto config = read_config(ctx.node());
  if (!config.ok()) return config.status();
  const size_t states = optimizer_rule_states(config->kind);
  if (ctx.num_inputs() != 4 + states)
    return ctx.error(std::string("rule ") + optimizer_rule_name(config->kind) + " takes hyper, step, W, G and " +
                     std::to_string(states) + " states (" + std::to_string(4 + states) + " inputs), got " +
                     std::to_string(ctx.num_inputs()));
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
  if (ctx.input_dtype(0) != DType::kFloat32 || (ctx.input_shape_known(0) && shape_numel(ctx.input_shape(0)) != 2))
    return ctx.error("hyper must be float32 [2] (learning rate, gradient scale)");
  if (ctx.input_dtype(1) != DType::kInt64) return ctx.error("step must be an int64 scalar");
  for (size_t i = 2; i < ctx.num_inputs(); ++i) {
    if (ctx.input_dtype(i) != DType::kFloat32)
      return ctx.error("input " + std::to_string(i) + " must be float32, got " + dtype_name(ctx.input_dtype(i)));
    if (ctx.input_shape_known(2) && ctx.input_shape_known(i) && ctx.input_shape(i) != ctx.input_shape(2))
      return ctx.error("input " + std::to_string(i) + " has shape " + shape_to_string(ctx.input_shape(i)) + ", W has " +
                       shape_to_string(ctx.input_shape(2)));
  }
  ctx.set_output(0, DType::kInt64, Shape{});
  return Status::Ok();
}

Status update_kernel(KernelContext& ctx) {
  auto config = read_config(ctx.node());
  if (!config.ok()) return config.status();
  const Tensor& hyper = ctx.input(0);
  config->lr = hyper.data<float>()[0];
  const float grad_scale = hyper.data<float>()[1];
  const int64_t step = ctx.input(1).scalar_as_int();
  // The in-place contract above: W and the states are the Trainer's own buffers.
  auto mutable_data = [&](size_t i) { return const_cast<float*>(ctx.input(i).data<float>()); };
  const size_t states = ctx.num_inputs() - 4;
  std::vector<float> scratch;
  apply_optimizer_rule(*config, step, mutable_data(2), ctx.input(3).data<float>(), grad_scale,
                       states > 0 ? mutable_data(4) : nullptr, states > 1 ? mutable_data(5) : nullptr,
                       ctx.input(2).numel(), scratch);
  ctx.output(0).data<int64_t>()[0] = step;
  return Status::Ok();
}

}  // namespace

bool updates_inputs_in_place(std::string_view op_type) { return op_type == kOptimizerUpdateOp; }

void register_optimizer_update_op(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{kOptimizerUpdateOp, 4, 6, 1, 1, update_infer, update_kernel});
}

}  // namespace openge
