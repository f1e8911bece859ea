// The optimizers of ONNX's ai.onnx.preview.training domain (opset 1): Adagrad, Momentum and Adam.
// Each updates n tensors at once. Inputs: R (learning rate, scalar), T (update count, int64
// scalar), then the n tensors X, their n gradients G, then the optimizer's n states per kind
// (Adagrad: H; Momentum: V; Adam: V, H). Outputs: the n new X, then the n new states per kind.
// Every X_i, G_i and state_i share one shape; outputs have it. Computed in double per element,
// rounded once to the tensors' float type (float or double, as ONNX defines them).
//   G' = norm_coefficient * X + G
//   Adagrad:  H' = H + G'^2;  X' = X - R / (1 + T * decay_factor) * G' / (sqrt(H') + epsilon)
//   Momentum: V' = alpha * V + (T > 0 ? beta : 1) * G';
//             X' = X - R * V' (standard),  X - R * (G' + alpha * V') (nesterov)
//   Adam:     V' = alpha * V + (1 - alpha) * G';  H' = beta * H + (1 - beta) * G'^2;
//             R' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R;
//             X' = (1 - norm_coefficient_post) * (X - R' * V' / (sqrt(H') + epsilon))
#include <climits>
#include <cmath>
#include <string>
#include <type_traits>

#include "ops/op_registry.h"
#include "ops/training/optimizer_update_op.h"

namespace openge {
namespace {

constexpr std::string_view kTrainingDomain = "ai.onnx.preview.training";

// How many per-tensor state kinds each optimizer keeps (H; V; V and H).
size_t state_kinds(std::string_view op) { return op == "Adam" ? 2 : 1; }

// n, the number of tensors updated: inputs are 2 + n * (2 + states), outputs n * (1 + states).
Result<size_t> tensor_count(const Node& node, size_t inputs, size_t outputs) {
  const size_t per = 2 + state_kinds(node.op_type);
  const std::string label = node.op_type + " '" + node.name + "'";
  if (inputs < 2 + per || (inputs - 2) % per != 0)
    return invalid_model(label + ": takes R, T, then the tensors, their gradients and " +
                         (per == 4 ? "two states" : "one state") + " per tensor (2 + " + std::to_string(per) +
                         "n inputs), got " + std::to_string(inputs));
  const size_t n = (inputs - 2) / per;
  if (outputs != n * (per - 1))
    return invalid_model(label + ": updates " + std::to_string(n) + " tensors, so it has " +
                         std::to_string(n * (per - 1)) + " outputs, got " + std::to_string(outputs));
  return n;
}

Status training_infer(InferContext& ctx) {
  auto n = tensor_count(ctx.node(), ctx.num_inputs(), ctx.num_outputs());
  if (!n.ok()) return n.status();
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
  const DType r = ctx.input_dtype(0);
  if (r != DType::kFloat32 && r != DType::kFloat64)
    return ctx.error(std::string("R must be float or double, got ") + dtype_name(r));
  if (ctx.input_dtype(1) != DType::kInt64)
    return ctx.error(std::string("T must be int64, got ") + dtype_name(ctx.input_dtype(1)));
  for (size_t s : {size_t{0}, size_t{1}})
    if (ctx.input_shape_known(s) && shape_numel(ctx.input_shape(s)) != 1)
      return ctx.error(std::string(s ? "T" : "R") + " must hold one element, got shape " +
                       shape_to_string(ctx.input_shape(s)));
  const size_t groups = 2 + state_kinds(ctx.node().op_type);  // X, G, states
  for (size_t i = 0; i < *n; ++i) {
    const size_t x = 2 + i;
    const DType t = ctx.input_dtype(x);
    if (t != DType::kFloat32 && t != DType::kFloat64)
      return ctx.error("tensor " + std::to_string(i) + " must be float or double, got " + dtype_name(t));
    for (size_t g = 1; g < groups; ++g) {
      const size_t other = x + g * *n;
      if (ctx.input_dtype(other) != t)
        return ctx.error("input " + std::to_string(other) + " is " + dtype_name(ctx.input_dtype(other)) + ", tensor " +
                         std::to_string(i) + " is " + dtype_name(t));
      if (ctx.input_shape_known(x) && ctx.input_shape_known(other) && ctx.input_shape(x) != ctx.input_shape(other))
        return ctx.error("input " + std::to_string(other) + " has shape " + shape_to_string(ctx.input_shape(other)) +
                         ", tensor " + std::to_string(i) + " has " + shape_to_string(ctx.input_shape(x)));
    }
    for (size_t o = i; o < ctx.num_outputs(); o += *n) {
      if (ctx.input_shape_known(x))
        ctx.set_output(o, t, ctx.input_shape(x));
      else
        ctx.set_output_dtype(o, t);
    }
  }
  return Status::Ok();
}

struct Hyper {
  double norm = 0, decay = 0, epsilon = 0, alpha = 0, beta = 0, norm_post = 0;
  bool nesterov = false;
};

Hyper read_hyper(const Attributes& a, std::string_view op) {
  Hyper h;
  h.norm = a.get_float("norm_coefficient", 0.0f);
  if (op == "Adagrad") {
    h.decay = a.get_float("decay_factor", 0.0f);
    h.epsilon = a.get_float("epsilon", 0.0f);
  } else if (op == "Momentum") {
    h.alpha = a.get_float("alpha", 0.0f);
    h.beta = a.get_float("beta", 0.0f);
    h.nesterov = a.get_string("mode", "standard") == "nesterov";
  } else {
    h.alpha = a.get_float("alpha", 0.9f);
    h.beta = a.get_float("beta", 0.999f);
    h.epsilon = a.get_float("epsilon", 1e-6f);
    h.norm_post = a.get_float("norm_coefficient_post", 0.0f);
  }
  return h;
}

// One element's update: x and its states in, the new x and states out (state[0] = V or H, state[1] = H).
void update(std::string_view op, const Hyper& h, double r, int64_t t, double x, double g, double* state,
            double* x_new) {
  const double gr = h.norm * x + g;
  if (op == "Adagrad") {
    state[0] += gr * gr;
    *x_new = x - r / (1 + static_cast<double>(t) * h.decay) * gr / (std::sqrt(state[0]) + h.epsilon);
  } else if (op == "Momentum") {
    state[0] = h.alpha * state[0] + (t > 0 ? h.beta : 1.0) * gr;
    *x_new = h.nesterov ? x - r * (gr + h.alpha * state[0]) : x - r * state[0];
  } else {
    state[0] = h.alpha * state[0] + (1 - h.alpha) * gr;
    state[1] = h.beta * state[1] + (1 - h.beta) * gr * gr;
    const double td = static_cast<double>(t);
    const double ra = t > 0 ? r * std::sqrt(1 - std::pow(h.beta, td)) / (1 - std::pow(h.alpha, td)) : r;
    *x_new = (1 - h.norm_post) * (x - ra * state[0] / (std::sqrt(state[1]) + h.epsilon));
  }
}

Status training_kernel(KernelContext& ctx) {
  const std::string_view op = ctx.node().op_type;
  const size_t states = state_kinds(op);
  const size_t n = (ctx.num_inputs() - 2) / (2 + states);
  const Hyper h = read_hyper(ctx.attrs(), op);
  const double r = ctx.input(0).scalar_as_double();
  const int64_t t = ctx.input(1).scalar_as_int();
  for (size_t i = 0; i < n; ++i) {
    const Tensor& x = ctx.input(2 + i);
    const Tensor& g = ctx.input(2 + n + i);
    // infer allowed float and double only.
    auto apply = [&](auto* type_tag) {
      using T = std::remove_pointer_t<decltype(type_tag)>;
      for (int64_t e = 0; e < x.numel(); ++e) {
        double state[2] = {0, 0};
        for (size_t s = 0; s < states; ++s) state[s] = static_cast<double>(ctx.input(2 + (2 + s) * n + i).data<T>()[e]);
        double x_new = 0;
        update(op, h, r, t, static_cast<double>(x.data<T>()[e]), static_cast<double>(g.data<T>()[e]), state, &x_new);
        if (ctx.has_output(i)) ctx.output(i).data<T>()[e] = static_cast<T>(x_new);
        for (size_t s = 0; s < states; ++s)
          if (ctx.has_output((1 + s) * n + i)) ctx.output((1 + s) * n + i).data<T>()[e] = static_cast<T>(state[s]);
      }
    };
    if (x.dtype() == DType::kFloat64)
      apply(static_cast<double*>(nullptr));
    else
      apply(static_cast<float*>(nullptr));
  }
  return Status::Ok();
}

// Gradient (attributes xs, y, zs): the gradients of y with respect to the values xs names, one
// output each. The compile pipeline replaces every Gradient node by the nodes that compute them
// (autodiff::expand_gradient_nodes) before inference, so these two only report a node that was
// not expanded.
Status gradient_not_expanded(const Node& node) {
  return internal_error("Gradient '" + node.name + "' reached " +
                        "execution unexpanded: the compile pipeline replaces it by its backward nodes");
}
Status gradient_infer(InferContext& ctx) { return gradient_not_expanded(ctx.node()); }
Status gradient_kernel(KernelContext& ctx) { return gradient_not_expanded(ctx.node()); }

}  // namespace

void register_training_ops(std::vector<OpSchema>& table) {
  for (const char* op : {"Adagrad", "Adam", "Momentum"})
    table.push_back(
        OpSchema{op, 5, -1, 2, INT_MAX, training_infer, training_kernel, false, false, false, kTrainingDomain});
  table.push_back(
      OpSchema{"Gradient", 0, -1, 1, INT_MAX, gradient_infer, gradient_kernel, false, false, false, kTrainingDomain});
  register_optimizer_update_op(table);
}

}  // namespace openge
