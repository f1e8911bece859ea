#include "compiler/in_place_updates.h"

#include <algorithm>

#include "ops/training/optimizer_update_op.h"

namespace openge::compiler {

Status order_in_place_updates(Graph& g) {
  std::vector<int> written_by(g.values.size(), -1);
  std::vector<char> read_elsewhere(g.values.size(), 0);
  bool any = false;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (!updates_inputs_in_place(node.op_type)) {
      for (int in : node.inputs)
        if (in >= 0) read_elsewhere[static_cast<size_t>(in)] = 1;
      continue;
    }
    any = true;
    for (size_t i = kOptimizerUpdateFirstMutated; i < node.inputs.size(); ++i) {
      if (i == kOptimizerUpdateGradient) continue;
      const int v = node.inputs[i];
      const Value& value = g.values[static_cast<size_t>(v)];
      const std::string label = node.op_type + " '" + node.name + "'";
      if (value.producer >= 0 || value.constant)
        return internal_error(label + " updates '" + value.name +
                              "' in place, which is not a graph input (a pass rewrote what it updates)");
      if (written_by[static_cast<size_t>(v)] >= 0)
        return internal_error(label + " and '" + g.nodes[static_cast<size_t>(written_by[static_cast<size_t>(v)])].name +
                              "' both update '" + value.name + "' in place");
      written_by[static_cast<size_t>(v)] = static_cast<int>(n);
    }
  }
  if (!any) return Status::Ok();
  for (const Node& node : g.nodes)
    if (updates_inputs_in_place(node.op_type))
      for (int out : node.outputs)
        if (out >= 0 && read_elsewhere[static_cast<size_t>(out)])
          return internal_error(node.op_type + " '" + node.name +
                                "': its result feeds another node; only graph "
                                "outputs may take it, as it runs last");
  std::stable_partition(g.nodes.begin(), g.nodes.end(),
                        [](const Node& node) { return !updates_inputs_in_place(node.op_type); });
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int out : g.nodes[n].outputs)
      if (out >= 0) g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);
  return Status::Ok();
}

}  // namespace openge::compiler
