// The gradient-rule contract (reverse-mode differentiation, src/autodiff/). Each differentiable
// op has one rule in its OpSchema row (`gradient`): given the gradients that flow into the
// node's outputs, it emits the nodes that compute the gradients of its inputs. Rules see the
// forward graph with every dtype and shape inferred for the batch shape being compiled, so they
// may decide broadcast reductions, reshapes and permutations at build time.
//
// Rules emit only forms that every opset from 11 reads the same way (MatMul, Gemm without C,
// Transpose, Reshape, Expand, Mul/Add/Sub/Div/Neg, Exp, Where …) and the internal backward ops
// of domain "openge" (src/ops/grad/grad_ops.h), so a model's own opset never changes a gradient.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/attribute_values.h"  // int_attr … for the rules
#include "ir/graph.h"
#include "openge/status.h"

namespace openge {

class GradientBuilder {
 public:
  virtual ~GradientBuilder() = default;

  // The forward node being differentiated, and the graph it lives in (inferred types).
  virtual const Node& node() const = 0;
  virtual const Graph& graph() const = 0;

  // The gradient flowing into output `i` (same dtype and shape as the output), -1 when none does.
  virtual int grad_of_output(size_t i) const = 0;
  // Whether anything needs the gradient of input `i` (a trainable weight, or a value on the way
  // to one); rules skip the work for the others.
  virtual bool wants_grad_of_input(size_t i) const = 0;
  // Records `value` as (a contribution to) the gradient of input `i`; contributions add up.
  virtual void set_grad_of_input(size_t i, int value) = 0;

  // Emits a node into the backward graph and returns its outputs' value indices. Its output
  // types are inferred at once, so a rule may read them.
  // `omitted`: bit i set leaves output i out (-1), for a backward op whose caller wants only
  // some of its gradients.
  virtual Result<std::vector<int>> emit(std::string_view op_type, std::vector<int> inputs, Attributes attrs = {},
                                        size_t num_outputs = 1, std::string_view domain = "", uint32_t omitted = 0) = 0;
  // A constant value (an initializer of the training graph).
  virtual int constant(Tensor value) = 0;

  // Conveniences over the above. References into graph() are invalidated by emit() and
  // constant(): read what a rule needs before it emits.
  int input(size_t i) const { return i < node().inputs.size() ? node().inputs[i] : -1; }
  int output(size_t i) const { return i < node().outputs.size() ? node().outputs[i] : -1; }
  const Value& value(int v) const { return graph().values[static_cast<size_t>(v)]; }
  // The static shape inference gave `v` (a copy: emitting a node may move the graph's values).
  Shape shape_of(int v) const;
  DType dtype_of(int v) const { return value(v).dtype; }
  Result<int> emit1(std::string_view op_type, std::vector<int> inputs, Attributes attrs = {},
                    std::string_view domain = "");
  int scalar(DType dtype, double v);               // a 0-d constant of `dtype`
  int int64s(const std::vector<int64_t>& values);  // a 1-d int64 constant
  // An error naming the forward node: "Conv 'conv1': no gradient for ...".
  Status error(const std::string& message) const;
};

// Emits the gradient nodes of builder.node(); an error for a form the rule cannot differentiate.
using GradientFn = Status (*)(GradientBuilder&);

}  // namespace openge
