#include "autodiff/backward_builder.h"

#include <string>

#include "ir/dispatch.h"
#include "ops/gradient.h"
#include "ops/graph_infer.h"
#include "ops/node_eval.h"
#include "ops/op_registry.h"

namespace openge::autodiff {

// What one gradient rule sees: its forward node, the gradients of that node's outputs, and a way
// to emit nodes named after it.
class RuleContext final : public GradientBuilder {
 public:
  // `node` is a copy: the rule's emits grow the graph's node list.
  RuleContext(BackwardBuilder& b, Node node, std::vector<int> output_grads)
      : b_(b), node_(std::move(node)), output_grads_(std::move(output_grads)) {}

  const Node& node() const override { return node_; }
  const Graph& graph() const override { return b_.g_; }
  int grad_of_output(size_t i) const override { return i < output_grads_.size() ? output_grads_[i] : -1; }
  bool wants_grad_of_input(size_t i) const override {
    const Node& n = node();
    return i < n.inputs.size() && n.inputs[i] >= 0 && b_.need_[static_cast<size_t>(n.inputs[i])] &&
           b_.differentiable_(b_.g_, n, i);
  }
  void set_grad_of_input(size_t i, int value) override {
    if (wants_grad_of_input(i)) b_.contributions_[static_cast<size_t>(node().inputs[i])].push_back(value);
  }
  Result<std::vector<int>> emit(std::string_view op_type, std::vector<int> inputs, Attributes attrs, size_t num_outputs,
                                std::string_view domain, uint32_t omitted) override {
    return b_.emit(node().name + "/grad/" + std::string(op_type), op_type, std::move(inputs), std::move(attrs),
                   num_outputs, domain, omitted);
  }
  int constant(Tensor value) override { return b_.constant(node().name + "/grad/const", std::move(value)); }

 private:
  BackwardBuilder& b_;
  Node node_;
  std::vector<int> output_grads_;
};

BackwardBuilder::BackwardBuilder(Graph& graph, std::vector<char> need, DifferentiableFn differentiable)
    : g_(graph), need_(std::move(need)), differentiable_(differentiable), contributions_(graph.values.size()) {}

int BackwardBuilder::constant(const std::string& name, Tensor value) {
  const int v = g_.add_value(name + std::to_string(emitted_++));
  Value& val = g_.values[static_cast<size_t>(v)];
  val.dtype = value.dtype();
  val.shape = value.shape();
  val.constant = std::move(value);
  contributions_.resize(g_.values.size());
  need_.resize(g_.values.size(), 0);
  return v;
}

Result<std::vector<int>> BackwardBuilder::emit(const std::string& name, std::string_view op_type,
                                               std::vector<int> inputs, Attributes attrs, size_t num_outputs,
                                               std::string_view domain, uint32_t omitted) {
  const OpSchema* schema = find_op_schema(op_type);
  if (!schema) return internal_error("a gradient rule emitted the unknown op " + std::string(op_type));
  Node node;
  node.name = name + "_" + std::to_string(emitted_++);
  node.op_type = std::string(op_type);
  node.domain = std::string(domain);
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  for (size_t o = 0; o < num_outputs; ++o) {
    if (omitted & (1u << o)) {
      node.outputs.push_back(-1);
      continue;
    }
    const int v = g_.add_value(node.name + ":" + std::to_string(o));
    g_.values[static_cast<size_t>(v)].producer = static_cast<int>(g_.nodes.size());
    node.outputs.push_back(v);
  }
  // Types at once: the rules of the nodes before this one may read them.
  OPENGE_RETURN_IF_ERROR(infer_node_types(g_, node));
  std::vector<int> outputs = node.outputs;
  g_.nodes.push_back(std::move(node));
  contributions_.resize(g_.values.size());
  need_.resize(g_.values.size(), 0);
  return outputs;
}

Result<int> BackwardBuilder::gradient_of(int v) {
  // By index, not by reference: emit() grows contributions_.
  const size_t at = static_cast<size_t>(v);
  if (contributions_[at].empty()) return -1;
  while (contributions_[at].size() > 1) {  // pairwise, in the order the contributions came
    const int a = contributions_[at][0], b = contributions_[at][1];
    auto sum = emit(g_.values[at].name + "/grad/accumulate", "Add", {a, b}, {}, 1, "", 0);
    if (!sum.ok()) return sum.status();
    std::vector<int>& parts = contributions_[at];
    parts.erase(parts.begin(), parts.begin() + 2);
    parts.insert(parts.begin(), (*sum)[0]);
  }
  return contributions_[at][0];
}

Result<std::vector<int>> BackwardBuilder::run(int loss, int seed, const std::vector<int>& params) {
  contributions_[static_cast<size_t>(loss)].push_back(seed);

  const size_t forward_nodes = g_.nodes.size();
  for (size_t n = forward_nodes; n-- > 0;) {
    const Node node = g_.nodes[n];  // a copy: emitting grows g_.nodes
    bool wanted = false;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      wanted =
          wanted || (node.inputs[i] >= 0 && need_[static_cast<size_t>(node.inputs[i])] && differentiable_(g_, node, i));
    if (!wanted) continue;
    std::vector<int> output_grads;
    bool any = false;
    for (int out : node.outputs) {
      int grad = -1;
      if (out >= 0) {
        auto gr = gradient_of(out);
        if (!gr.ok()) return gr.status();
        grad = *gr;
      }
      any = any || grad >= 0;
      output_grads.push_back(grad);
    }
    if (!any) continue;
    const OpSchema* schema = find_op_schema(node.op_type);
    if (!schema || !schema->gradient)
      return unsupported(g_.node_label(static_cast<int>(n)) +
                         ": the op has no gradient rule, so training cannot pass "
                         "through it (freeze the parameters before it, or ask for the rule)");
    RuleContext ctx(*this, node, std::move(output_grads));
    OPENGE_RETURN_IF_ERROR(schema->gradient(ctx));
  }
  std::vector<int> grads;
  for (int p : params) {
    auto gr = gradient_of(p);
    if (!gr.ok()) return gr.status();
    if (*gr < 0)
      return internal_error("no gradient reached parameter '" + g_.values[static_cast<size_t>(p)].name + "'");
    grads.push_back(*gr);
  }
  return grads;
}

int BackwardBuilder::as_node_output(int v) {
  const Value& val = g_.values[static_cast<size_t>(v)];
  if (val.producer >= 0 && !val.constant) return v;
  auto out = emit(val.name + "/output", "Identity", {v}, {}, 1, "", 0);
  return out.ok() ? (*out)[0] : v;
}

}  // namespace openge::autodiff
