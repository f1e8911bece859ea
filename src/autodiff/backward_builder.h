// The backward pass of autodiff (training_graph.h): walks the forward nodes in reverse order and
// asks each one's gradient rule (ops/gradient.h) for the gradients of its inputs, summing the
// contributions a value receives from several consumers.
#pragma once
#include <functional>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"

namespace openge::autodiff {

class BackwardBuilder {
 public:
  using DifferentiableFn = bool (*)(const Graph& g, const Node& node, size_t input);
  // `need`: per value, whether its gradient is needed (it lies between a parameter and the loss).
  BackwardBuilder(Graph& graph, std::vector<char> need, DifferentiableFn differentiable);

  // Emits the backward nodes into the graph and returns the gradient value of each parameter;
  // `seed` is the gradient of the loss itself (the loss scale: 1 for plain training).
  Result<std::vector<int>> run(int loss, int seed, const std::vector<int>& params);

  // `v` as the output of a node (an Identity when it is a graph input or constant), so that it
  // can be a graph output.
  int as_node_output(int v);

 private:
  friend class RuleContext;
  // The gradient of `v`: its contributions summed (one Add per extra contribution), -1 for none.
  Result<int> gradient_of(int v);
  Result<std::vector<int>> emit(const std::string& name, std::string_view op_type, std::vector<int> inputs,
                                Attributes attrs, size_t num_outputs, std::string_view domain, uint32_t omitted);
  int constant(const std::string& name, Tensor value);

  Graph& g_;
  std::vector<char> need_;
  DifferentiableFn differentiable_;
  std::vector<std::vector<int>> contributions_;  // per value
  size_t emitted_ = 0;                           // for unique names
};

}  // namespace openge::autodiff
