// Gradient rules of the activations, Softmax, Conv, the pools, the normalizations, Dropout and
// the two losses. Most emit one backward op of grad_ops.h with the forward node's attributes.
#include <string>

#include "ops/grad/grad_ops.h"
#include "ops/grad/gradient_rules.h"

namespace openge {
namespace {

// ActivationGrad(dY, Z) for `activation`, with Z the output (use_output) or the input.
template <bool kUseOutput>
Status activation_grad(GradientBuilder& gb, const char* activation) {
  Attributes a;
  a.set("activation", string_attr(activation));
  if (const Attribute* alpha = gb.node().attrs.find("alpha")) a.set("alpha", *alpha);
  TRY_EMIT(g, gb.emit1("ActivationGrad", {gb.grad_of_output(0), kUseOutput ? gb.output(0) : gb.input(0)}, std::move(a),
                       kGradDomain));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

Status relu_grad(GradientBuilder& gb) { return activation_grad<true>(gb, "relu"); }
Status sigmoid_grad(GradientBuilder& gb) { return activation_grad<true>(gb, "sigmoid"); }
Status tanh_grad(GradientBuilder& gb) { return activation_grad<true>(gb, "tanh"); }
Status leaky_relu_grad(GradientBuilder& gb) { return activation_grad<false>(gb, "leaky_relu"); }
Status erf_grad(GradientBuilder& gb) { return activation_grad<false>(gb, "erf"); }

// Gelu: the fused erf form GeluONNXFusionPass makes, and ONNX's Gelu with approximate none or tanh.
Status gelu_grad(GradientBuilder& gb) {
  const std::string approximate = gb.node().attrs.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return gb.error("no gradient for approximate = '" + approximate + "' (none or tanh)");
  return activation_grad<false>(gb, approximate == "tanh" ? "gelu_tanh" : "gelu");
}

// Clip (min and max as inputs, opset 11 on; ReLU6 is Clip(0, 6)): the gradient passes where the
// input lies strictly inside the bounds (PyTorch's hardtanh backward), zero elsewhere.
Status clip_grad(GradientBuilder& gb) {
  if (gb.wants_grad_of_input(1) || gb.wants_grad_of_input(2)) return gb.error("no gradient for the bounds");
  const int x = gb.input(0), dy = gb.grad_of_output(0);
  // Before opset 11 the bounds are the attributes min and max (absent: unbounded).
  int bounds[3] = {-1, gb.input(1), gb.input(2)};
  if (gb.graph().opset < 11)
    for (size_t b = 1; b < 3; ++b)
      if (const Attribute* a = gb.node().attrs.find(b == 1 ? "min" : "max"))
        bounds[b] = gb.scalar(gb.dtype_of(x), a->f);
  int inside = -1;
  for (size_t b = 1; b < 3; ++b) {
    if (bounds[b] < 0) continue;
    TRY_EMIT(cmp, gb.emit1(b == 1 ? "Greater" : "Less", {x, bounds[b]}));
    if (inside < 0) {
      inside = cmp;
    } else {
      TRY_EMIT(both, gb.emit1("And", {inside, cmp}));
      inside = both;
    }
  }
  if (inside < 0) {  // no bounds: the identity
    gb.set_grad_of_input(0, dy);
    return Status::Ok();
  }
  TRY_EMIT(g, gb.emit1("Where", {inside, dy, gb.scalar(gb.dtype_of(dy), 0.0)}));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

// Softmax and LogSoftmax: before opset 13 the axis flattens the dims from it on (default 1).
template <bool kLog>
Status softmax_grad(GradientBuilder& gb) {
  const int64_t opset = gb.graph().opset;
  Attributes a;
  a.set("axis", int_attr(gb.node().attrs.get_int("axis", opset < 13 ? 1 : -1)));
  a.set("flatten", int_attr(opset < 13 ? 1 : 0));
  a.set("log", int_attr(kLog ? 1 : 0));
  TRY_EMIT(g, gb.emit1("SoftmaxGrad", {gb.grad_of_output(0), gb.output(0)}, std::move(a), kGradDomain));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

// Outputs of a multi-gradient backward op that nobody wants are left out.
uint32_t omitted_mask(GradientBuilder& gb, size_t count) {
  uint32_t mask = 0;
  for (size_t i = 0; i < count; ++i)
    if (gb.input(i) < 0 || !gb.wants_grad_of_input(i)) mask |= 1u << i;
  return mask;
}

Status give_outputs(GradientBuilder& gb, const std::vector<int>& grads) {
  for (size_t i = 0; i < grads.size(); ++i)
    if (grads[i] >= 0) gb.set_grad_of_input(i, grads[i]);
  return Status::Ok();
}

// Conv(X, W, B) -> ConvGrad(dY, X, W) -> dX, dW, dB.
Status conv_grad(GradientBuilder& gb) {
  auto g = gb.emit("ConvGrad", {gb.grad_of_output(0), gb.input(0), gb.input(1)}, gb.node().attrs, 3, kGradDomain,
                   omitted_mask(gb, 3));
  if (!g.ok()) return g.status();
  return give_outputs(gb, *g);
}

template <bool kMax>
Status pool_grad(GradientBuilder& gb) {
  if (kMax && gb.grad_of_output(1) >= 0) return gb.error("no gradient flows through MaxPool's Indices");
  TRY_EMIT(g, gb.emit1(kMax ? "MaxPoolGrad" : "AveragePoolGrad", {gb.grad_of_output(0), gb.input(0)}, gb.node().attrs,
                       kGradDomain));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

// GlobalAveragePool: dX = dY / (spatial size), expanded over the spatial dims.
Status global_average_pool_grad(GradientBuilder& gb) {
  const Shape& x = gb.shape_of(gb.input(0));
  int64_t spatial = 1;
  for (size_t d = 2; d < x.size(); ++d) spatial *= x[d];
  TRY_EMIT(s, gb.emit1("Mul", {gb.grad_of_output(0), gb.scalar(gb.dtype_of(gb.input(0)),
                                                               spatial ? 1.0 / static_cast<double>(spatial) : 0.0)}));
  TRY_EMIT(e, gb.emit1("Expand", {s, gb.int64s(x)}));
  gb.set_grad_of_input(0, e);
  return Status::Ok();
}

// BatchNormalization in training mode (autodiff switches the model's nodes to it): gradients of
// X, scale and B; the running statistics are state, not differentiated.
Status batch_norm_grad(GradientBuilder& gb) {
  const Node& n = gb.node();
  const int64_t opset = gb.graph().opset;
  const bool training =
      (opset >= 14 || opset < 7) ? n.attrs.get_int("training_mode", 0) != 0 : n.outputs.size() > 1 && n.outputs[1] >= 0;
  if (!training) return gb.error("differentiated in inference mode (running statistics); training uses the batch's");
  Attributes a;
  a.set("epsilon", float_attr(n.attrs.get_float("epsilon", 1e-5f)));
  auto g = gb.emit("BatchNormalizationGrad", {gb.grad_of_output(0), gb.input(0), gb.input(1)}, std::move(a), 3,
                   kGradDomain, omitted_mask(gb, 3));
  if (!g.ok()) return g.status();
  return give_outputs(gb, *g);
}

Status layer_norm_grad(GradientBuilder& gb) {
  const Node& n = gb.node();
  Attributes a;
  a.set("epsilon", float_attr(n.attrs.get_float("epsilon", 1e-5f)));
  a.set("axis", int_attr(n.attrs.get_int("axis", -1)));
  auto g = gb.emit("LayerNormalizationGrad", {gb.grad_of_output(0), gb.input(0), gb.input(1)}, std::move(a), 3,
                   kGradDomain, omitted_mask(gb, 3));
  if (!g.ok()) return g.status();
  return give_outputs(gb, *g);
}

// Dropout is the identity unless a constant training_mode turns it on with a ratio above 0, and
// such a node is a TrainingDropout by the time the backward pass runs (autodiff/training_graph.cpp).
Status dropout_grad(GradientBuilder& gb) {
  const int training = gb.input(2), ratio = gb.input(1);
  const bool on =
      training >= 0 && (!gb.value(training).constant || gb.value(training).constant->scalar_as_double() != 0);
  const bool zero_ratio = ratio >= 0 && gb.value(ratio).constant && gb.value(ratio).constant->scalar_as_double() == 0;
  if (on && !zero_ratio) return gb.error("training-mode dropout needs constant training_mode and ratio inputs");
  gb.set_grad_of_input(0, gb.grad_of_output(0));
  return Status::Ok();
}

// The kept elements' gradient, scaled as the forward scaled them (its mask, output 1).
Status training_dropout_grad(GradientBuilder& gb) {
  Attributes a;
  a.set("ratio", float_attr(gb.node().attrs.get_float("ratio", 0.5f)));
  TRY_EMIT(g, gb.emit1("DropoutGrad", {gb.grad_of_output(0), gb.output(1)}, std::move(a), kGradDomain));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

template <bool kSoftmax>
Status loss_grad(GradientBuilder& gb) {
  if (gb.wants_grad_of_input(2)) return gb.error("no gradient for the class weights");
  if (kSoftmax && gb.grad_of_output(1) >= 0) return gb.error("no gradient flows through log_prob yet");
  std::vector<int> inputs{gb.grad_of_output(0), gb.input(0), gb.input(1)};
  if (gb.input(2) >= 0) inputs.push_back(gb.input(2));
  Attributes a;
  a.set("reduction", string_attr(gb.node().attrs.get_string("reduction", "mean")));
  if (const Attribute* ignore = gb.node().attrs.find("ignore_index")) a.set("ignore_index", *ignore);
  TRY_EMIT(g, gb.emit1(kSoftmax ? "SoftmaxCrossEntropyLossGrad" : "NegativeLogLikelihoodLossGrad", std::move(inputs),
                       std::move(a), kGradDomain));
  gb.set_grad_of_input(0, g);
  return Status::Ok();
}

}  // namespace

void add_nn_gradient_rules(std::vector<GradientRule>& rules) {
  rules.insert(rules.end(), {
                                {"Relu", relu_grad},
                                {"Sigmoid", sigmoid_grad},
                                {"Tanh", tanh_grad},
                                {"LeakyRelu", leaky_relu_grad},
                                {"Erf", erf_grad},
                                {"Gelu", gelu_grad},
                                {"Clip", clip_grad},
                                {"Softmax", softmax_grad<false>},
                                {"LogSoftmax", softmax_grad<true>},
                                {"Conv", conv_grad},
                                {"MaxPool", pool_grad<true>},
                                {"AveragePool", pool_grad<false>},
                                {"GlobalAveragePool", global_average_pool_grad},
                                {"BatchNormalization", batch_norm_grad},
                                {"LayerNormalization", layer_norm_grad},
                                {"Dropout", dropout_grad},
                                {"TrainingDropout", training_dropout_grad},
                                {"SoftmaxCrossEntropyLoss", loss_grad<true>},
                                {"NegativeLogLikelihoodLoss", loss_grad<false>},
                            });
}

}  // namespace openge
