// The optimizer inside the training graph (trainer_impl.h): one OptimizerUpdate node per
// parameter after the gradients, so that a step's forward, backward and update are one compiled
// graph and the parameters and optimizer state are updated where they live.
#include "ir/attribute_values.h"
#include "ops/training/optimizer_update_op.h"
#include "session/trainer_impl.h"

namespace openge {

Status append_optimizer_update(autodiff::TrainingGraph& tg, const training::OptimizerConfig& config) {
  Graph& g = tg.graph;
  const size_t n = tg.trainable.size();
  if (g.outputs.size() != 1 + n + tg.state.size())
    return internal_error("the training graph has " + std::to_string(g.outputs.size()) +
                          " outputs, expected the loss, " + std::to_string(n) + " gradients and " +
                          std::to_string(tg.state.size()) + " running statistics");
  const int hyper = autodiff::add_graph_input(g, kOptimizerHyperInput, DType::kFloat32, Shape{2});
  const int step = autodiff::add_graph_input(g, kOptimizerStepInput, DType::kInt64, Shape{});
  const size_t per = optimizer_rule_states(config.kind);
  std::vector<int> params(n);
  for (size_t i = 0; i < n; ++i) params[i] = g.inputs[tg.data_inputs + i];
  const Attribute rule = string_attr(optimizer_rule_name(config.kind));
  std::vector<int> done;
  for (size_t i = 0; i < n; ++i) {
    const Value& w = g.values[static_cast<size_t>(params[i])];
    Node node;
    node.name = tg.trainable[i] + "/optimizer_update";
    node.op_type = std::string(kOptimizerUpdateOp);
    node.inputs = {hyper, step, params[i], g.outputs[1 + i]};
    for (size_t k = 0; k < per; ++k)
      node.inputs.push_back(autodiff::add_graph_input(g, tg.trainable[i] + "/optimizer_state" + std::to_string(k),
                                                      w.dtype, w.shape.value_or(Shape{})));
    node.attrs.set("rule", rule);
    node.attrs.set("momentum", float_attr(config.momentum));
    node.attrs.set("weight_decay", float_attr(config.weight_decay));
    node.attrs.set("beta1", float_attr(config.beta1));
    node.attrs.set("beta2", float_attr(config.beta2));
    node.attrs.set("epsilon", float_attr(config.epsilon));
    const int out = g.add_value(node.name + "/step");
    node.outputs = {out};
    g.values[static_cast<size_t>(out)].producer = static_cast<int>(g.nodes.size());
    g.nodes.push_back(std::move(node));
    done.push_back(out);
  }
  // The gradients stay inside the graph (the memory plan reuses their bytes); the loss, the new
  // running statistics and each update's step leave it.
  std::vector<int> outputs = {g.outputs[0]};
  outputs.insert(outputs.end(), g.outputs.begin() + 1 + static_cast<std::ptrdiff_t>(n), g.outputs.end());
  outputs.insert(outputs.end(), done.begin(), done.end());
  g.outputs = std::move(outputs);
  g.declared_outputs.assign(g.outputs.size(), Graph::DeclaredType{});
  return Status::Ok();
}

}  // namespace openge
