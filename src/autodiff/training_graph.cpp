#include "autodiff/training_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "autodiff/backward_builder.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/gradient.h"
#include "ops/graph_infer.h"
#include "ops/op_registry.h"

namespace openge::autodiff {
namespace {

// Folding during the type pass is only a means to know shapes that depend on constants.
constexpr size_t kMaxFoldBytesForTypes = size_t{64} << 20;

// Inputs that are never differentiated although they may be float: BatchNormalization's running
// statistics, an exponent, the losses' class weights, Dropout's ratio.
struct FrozenInputs {
  std::string_view op_type;
  std::initializer_list<size_t> inputs;
};
constexpr FrozenInputs kFrozenInputs[] = {
    {"BatchNormalization", {3, 4}},     {"Pow", {1}},     {"SoftmaxCrossEntropyLoss", {2}},
    {"NegativeLogLikelihoodLoss", {2}}, {"Dropout", {1}},
};

bool is_float(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 || t == DType::kBFloat16;
}

bool differentiable_input(const Graph& g, const Node& node, size_t i) {
  const int v = node.inputs[i];
  if (v < 0 || !is_float(g.values[static_cast<size_t>(v)].dtype)) return false;
  for (const FrozenInputs& row : kFrozenInputs)
    if (row.op_type == node.op_type)
      for (size_t frozen : row.inputs)
        if (frozen == i) return false;
  return true;
}

bool is_initializer(const Value& v) { return v.constant.has_value() && v.producer < 0; }

// BatchNormalization nodes compute with the batch's statistics and output their running ones
// (training_mode = 1 from opset 14; from 7 to 13 the presence of the running outputs says so).
// Returns, per node, the (running input, running output) value pairs.
std::vector<std::pair<int, int>> batch_norm_to_training(Graph& g) {
  std::vector<std::pair<int, int>> state;
  for (Node& node : g.nodes) {
    if (node.op_type != "BatchNormalization" || !node.domain.empty()) continue;
    if (g.opset >= 14 || g.opset < 7) node.attrs.set("training_mode", int_attr(1));
    node.outputs.resize(std::max<size_t>(node.outputs.size(), 3), -1);
    for (size_t k = 1; k < 3; ++k) {
      if (node.outputs[k] < 0) node.outputs[k] = g.add_value(node.name + (k == 1 ? "/running_mean" : "/running_var"));
      state.emplace_back(node.inputs[k + 2], node.outputs[k]);
    }
  }
  return state;
}

// Dropout nodes that train (opset 12+: a constant training_mode that is true and a constant ratio
// above 0) become TrainingDropout on the step seed, each with its own salt. Returns the step seed
// value, not yet an input (-1: nothing drops).
Result<int> dropout_to_training(Graph& g) {
  int seed = -1;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    Node& node = g.nodes[n];
    if (node.op_type != "Dropout" || !node.domain.empty() || g.opset < 12) continue;
    const int mode = node.inputs.size() > 2 ? node.inputs[2] : -1;
    if (mode < 0) continue;
    const Value& mv = g.values[static_cast<size_t>(mode)];
    if (!mv.constant)
      return invalid_argument("Dropout '" + node.name + "': training_mode must be a constant (true or false) to train");
    if (mv.constant->scalar_as_double() == 0) continue;
    double ratio = 0.5;
    if (node.inputs.size() > 1 && node.inputs[1] >= 0) {
      const Value& rv = g.values[static_cast<size_t>(node.inputs[1])];
      if (!rv.constant) return invalid_argument("Dropout '" + node.name + "': ratio must be a constant to train");
      ratio = rv.constant->scalar_as_double();
    }
    if (ratio == 0) continue;
    if (!(ratio > 0 && ratio < 1))
      return invalid_argument("Dropout '" + node.name + "': ratio must be in [0, 1), got " + std::to_string(ratio));
    if (seed < 0) {
      seed = g.add_value(kStepSeedInput);
      g.values[static_cast<size_t>(seed)].dtype = DType::kInt64;
      g.values[static_cast<size_t>(seed)].shape = Shape{2};
    }
    node.op_type = "TrainingDropout";
    node.domain = std::string(kGradDomain);
    node.inputs = {node.inputs[0], seed};
    node.attrs = Attributes();
    node.attrs.set("ratio", float_attr(static_cast<float>(ratio)));
    node.attrs.set("salt", int_attr(static_cast<int64_t>(n)));
    node.outputs.resize(2, -1);
    if (node.outputs[1] < 0) node.outputs[1] = g.add_value(node.name + "/mask");
  }
  return seed;
}

// Adds the named loss after `output` and returns the loss value; `labels_shape` from the data.
Result<int> attach_named_loss(Graph& g, const TrainingSpec& spec, int output, const Shape& labels_shape) {
  const Value& out = g.values[static_cast<size_t>(output)];
  const DType label_dtype = spec.loss == LossKind::kCrossEntropy ? DType::kInt64 : out.dtype;
  const int labels = add_graph_input(g, spec.labels_input, label_dtype, labels_shape);
  const int loss = g.add_value("loss");
  Node n;
  n.name = "loss";
  if (spec.loss == LossKind::kCrossEntropy) {
    n.op_type = "SoftmaxCrossEntropyLoss";
    n.inputs = {output, labels};
    n.outputs = {loss};
    n.attrs.set("reduction", string_attr("mean"));
    g.nodes.push_back(std::move(n));
    return loss;
  }
  // mean((output - labels)^2): Sub, Mul, ReduceMean over every dim (no axes: the same form in
  // every opset).
  const int diff = g.add_value("loss/diff"), square = g.add_value("loss/square");
  g.nodes.push_back(Node{"loss/sub", "Sub", "", {output, labels}, {diff}, {}, {}, false, ""});
  g.nodes.push_back(Node{"loss/square", "Mul", "", {diff, diff}, {square}, {}, {}, false, ""});
  Node mean{"loss/mean", "ReduceMean", "", {square}, {loss}, {}, {}, false, ""};
  mean.attrs.set("keepdims", int_attr(0));
  g.nodes.push_back(std::move(mean));
  return loss;
}

// The loss the model computes itself: the named value, else the output of a loss node, else the
// only scalar output.
Result<int> model_loss(const Graph& g, const TrainingSpec& spec) {
  if (!spec.output.empty()) {
    const int v = g.find_value(spec.output);
    if (v < 0) return invalid_argument("the loss '" + spec.output + "' is not a value of the model");
    return v;
  }
  std::vector<int> scalars;
  for (int out : g.outputs) {
    const Value& v = g.values[static_cast<size_t>(out)];
    if (v.producer >= 0) {
      const std::string& op = g.nodes[static_cast<size_t>(v.producer)].op_type;
      if (op == "SoftmaxCrossEntropyLoss" || op == "NegativeLogLikelihoodLoss") return out;
    }
    if (v.shape && shape_numel(*v.shape) == 1 && is_float(v.dtype)) scalars.push_back(out);
  }
  if (scalars.size() == 1) return scalars[0];
  return invalid_argument(scalars.empty()
                              ? "the model has no scalar output to minimise: name a loss (cross_entropy or mse) and "
                                "the output it reads"
                              : "the model has several scalar outputs: name the one that is the loss");
}

// Values that depend on a parameter and values the loss depends on, each through the inputs
// that gradient rules differentiate; a gradient is needed where both hold.
std::vector<char> values_needing_gradient(const Graph& g, const std::vector<int>& params, int loss) {
  std::vector<char> from_param(g.values.size(), 0), to_loss(g.values.size(), 0);
  for (int p : params) from_param[static_cast<size_t>(p)] = 1;
  for (const Node& node : g.nodes) {
    bool any = false;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      any = any || (differentiable_input(g, node, i) && from_param[static_cast<size_t>(node.inputs[i])]);
    if (any)
      for (int out : node.outputs)
        if (out >= 0) from_param[static_cast<size_t>(out)] = 1;
  }
  to_loss[static_cast<size_t>(loss)] = 1;
  for (size_t n = g.nodes.size(); n-- > 0;) {
    const Node& node = g.nodes[n];
    bool any = false;
    for (int out : node.outputs) any = any || (out >= 0 && to_loss[static_cast<size_t>(out)]);
    if (!any) continue;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (differentiable_input(g, node, i)) to_loss[static_cast<size_t>(node.inputs[i])] = 1;
  }
  std::vector<char> need(g.values.size());
  for (size_t v = 0; v < need.size(); ++v) need[v] = from_param[v] && to_loss[v];
  return need;
}

// Every value's kind, dtype and shape for the bound input shapes: inference (with folding, so
// that shapes computed from constants are known) on a copy, copied back. Folded values come back
// only when they are not floating point: the shape arithmetic of exported models (Slice bounds,
// Reshape targets) that gradient rules read; a float constant may have been computed from the
// parameters, which change every step.
Status infer_types(Graph& g) {
  OPENGE_RETURN_IF_ERROR(sort_topologically(g));  // nodes added since (the loss) take their place
  Graph typed = g;
  OPENGE_RETURN_IF_ERROR(infer_and_fold_nodes(typed, kMaxFoldBytesForTypes));
  for (size_t v = 0; v < g.values.size(); ++v) {
    Value& dst = g.values[v];
    const Value& src = typed.values[v];
    if (dst.producer < 0) continue;
    dst.kind = src.kind;
    dst.dtype = src.dtype;
    dst.shape = src.shape;
    if (src.constant && !is_float(src.dtype)) dst.constant = src.constant;
  }
  return Status::Ok();
}

Status bind_data_shapes(Graph& g, const std::vector<Shape>& shapes, size_t count) {
  if (shapes.size() < count)
    return invalid_argument("the model has " + std::to_string(count) + " inputs, got " + std::to_string(shapes.size()) +
                            " shapes");
  for (size_t i = 0; i < count; ++i) {
    Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    if (v.shape && v.shape->size() != shapes[i].size())
      return invalid_argument("input '" + v.name + "' has rank " + std::to_string(v.shape->size()) +
                              ", got data of shape " + shape_to_string(shapes[i]));
    v.shape = shapes[i];
  }
  return Status::Ok();
}

// Turns the initializers `names` into graph inputs (appended in that order); their values go to
// `values`.
Status initializers_to_inputs(Graph& g, const std::vector<std::string>& names, std::vector<Tensor>& values) {
  for (const std::string& name : names) {
    const int v = g.find_value(name);
    if (v < 0 || !is_initializer(g.values[static_cast<size_t>(v)]))
      return invalid_argument("'" + name + "' is not an initializer of the model");
    Value& val = g.values[static_cast<size_t>(v)];
    values.push_back(*val.constant);
    val.shape = val.constant->shape();
    val.dtype = val.constant->dtype();
    val.constant.reset();
    g.inputs.push_back(v);
  }
  return Status::Ok();
}

}  // namespace

Result<TrainingGraph> build_training_graph(const Graph& model, const std::vector<Shape>& data_shapes,
                                           const TrainingSpec& spec) {
  TrainingGraph tg;
  Graph& g = tg.graph;
  g = model;
  OPENGE_RETURN_IF_ERROR(sort_topologically(g));
  const size_t model_inputs = g.inputs.size();
  OPENGE_RETURN_IF_ERROR(bind_data_shapes(g, data_shapes, model_inputs));
  std::vector<std::pair<int, int>> bn_state;
  if (spec.batch_norm_training) bn_state = batch_norm_to_training(g);
  auto step_seed = dropout_to_training(g);
  if (!step_seed.ok()) return step_seed.status();

  int loss = -1;
  if (spec.loss == LossKind::kModelOutput) {
    OPENGE_RETURN_IF_ERROR(infer_types(g));
    auto l = model_loss(g, spec);
    if (!l.ok()) return l.status();
    loss = *l;
  } else {
    int output = g.outputs.empty() ? -1 : g.outputs[0];
    if (!spec.output.empty()) output = g.find_value(spec.output);
    if (output < 0) return invalid_argument("the model has no output '" + spec.output + "' for the loss to read");
    if (data_shapes.size() != model_inputs + 1)
      return invalid_argument("a named loss needs the labels' shape after the model's " + std::to_string(model_inputs) +
                              " input shapes");
    // The output's inferred type decides the labels' dtype (mse) and, when not given, their shape.
    OPENGE_RETURN_IF_ERROR(infer_types(g));
    Shape labels_shape = data_shapes.back();
    if (labels_shape.empty()) {  // derived from the output: its shape (mse), without the class dim (cross entropy)
      labels_shape = g.values[static_cast<size_t>(output)].shape.value_or(Shape{});
      if (spec.loss == LossKind::kCrossEntropy && labels_shape.size() >= 2)
        labels_shape.erase(labels_shape.begin() + 1);
    }
    auto l = attach_named_loss(g, spec, output, labels_shape);
    if (!l.ok()) return l.status();
    loss = *l;
    OPENGE_RETURN_IF_ERROR(infer_types(g));
  }
  const Value& loss_value = g.values[static_cast<size_t>(loss)];
  if (!loss_value.shape || shape_numel(*loss_value.shape) != 1 || !is_float(loss_value.dtype))
    return invalid_argument("the loss '" + loss_value.name + "' must be one float value, got " +
                            dtype_name(loss_value.dtype) + " " +
                            (loss_value.shape ? shape_to_string(*loss_value.shape) : std::string("of unknown shape")));
  tg.loss_name = loss_value.name;
  tg.data_inputs = g.inputs.size();

  // Which initializers train: the named ones, else every float one a gradient reaches (the
  // model's initializers only: constants of Constant nodes are part of the computation).
  tg.trainable = spec.trainable;
  if (tg.trainable.empty()) {
    std::vector<int> candidates;
    for (int v : g.initializers)
      if (is_initializer(g.values[static_cast<size_t>(v)]) && is_float(g.values[static_cast<size_t>(v)].dtype))
        candidates.push_back(v);
    const std::vector<char> need = values_needing_gradient(g, candidates, loss);
    for (int v : candidates)
      if (need[static_cast<size_t>(v)]) tg.trainable.push_back(g.values[static_cast<size_t>(v)].name);
  }
  if (tg.trainable.empty())
    return invalid_argument("nothing to train: no float initializer of the model reaches the loss");
  OPENGE_RETURN_IF_ERROR(initializers_to_inputs(g, tg.trainable, tg.initial_values));
  std::vector<int> state_outputs;
  for (const auto& [in, out] : bn_state) {
    if (in < 0 || !is_initializer(g.values[static_cast<size_t>(in)])) continue;  // computed statistics: not state
    tg.state.push_back(g.values[static_cast<size_t>(in)].name);
    state_outputs.push_back(out);
  }
  OPENGE_RETURN_IF_ERROR(initializers_to_inputs(g, tg.state, tg.initial_state));

  std::vector<int> params;
  for (size_t i = tg.data_inputs; i < tg.data_inputs + tg.trainable.size(); ++i) params.push_back(g.inputs[i]);
  const std::vector<char> need = values_needing_gradient(g, params, loss);
  for (size_t i = 0; i < params.size(); ++i)
    if (!need[static_cast<size_t>(params[i])])
      return invalid_argument("parameter '" + tg.trainable[i] + "' does not reach the loss through differentiable ops");

  // The loss scale: the gradient the backward pass starts from (dynamic loss scaling of fp16
  // training multiplies every gradient by it; 1 otherwise).
  if (*step_seed >= 0) {
    g.inputs.push_back(*step_seed);
    tg.step_seed = true;
  }
  const Value& lv = g.values[static_cast<size_t>(loss)];
  const int scale = add_graph_input(g, kLossScaleInput, lv.dtype, *lv.shape);
  BackwardBuilder backward(g, need, differentiable_input);
  auto grads = backward.run(loss, scale, params);
  if (!grads.ok()) return grads.status();

  g.outputs.clear();
  g.outputs.push_back(backward.as_node_output(loss));
  for (int grad : *grads) g.outputs.push_back(backward.as_node_output(grad));
  for (int s : state_outputs) g.outputs.push_back(s);
  g.declared_outputs.assign(g.outputs.size(), Graph::DeclaredType{});
  return tg;
}

namespace {

constexpr std::string_view kTrainingDomain = "ai.onnx.preview.training";

bool is_gradient_node(const Node& n) { return n.op_type == "Gradient" && n.domain == kTrainingDomain; }

Tensor ones_like(const Value& v) {
  Tensor t(v.dtype, v.shape.value_or(Shape{}));
  visit_float_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(1.0f);
  });
  return t;
}

}  // namespace

int add_graph_input(Graph& g, const std::string& name, DType dtype, Shape shape) {
  const int v = g.add_value(name);
  g.values[static_cast<size_t>(v)].dtype = dtype;
  g.values[static_cast<size_t>(v)].shape = std::move(shape);
  g.inputs.push_back(v);
  return v;
}

bool has_gradient_nodes(const Graph& graph) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(), is_gradient_node);
}

Result<Graph> expand_gradient_nodes(Graph g, const std::vector<Shape>& input_shapes) {
  if (!has_gradient_nodes(g)) return g;
  OPENGE_RETURN_IF_ERROR(bind_data_shapes(g, input_shapes, g.inputs.size()));
  while (true) {
    auto it = std::find_if(g.nodes.begin(), g.nodes.end(), is_gradient_node);
    if (it == g.nodes.end()) break;
    const Node gradient = *it;
    g.nodes.erase(it);
    const std::string label = "Gradient '" + gradient.name + "'";
    const Attribute* xs_attr = gradient.attrs.find("xs");
    const std::vector<std::string> xs = xs_attr ? xs_attr->strings : std::vector<std::string>{};
    const std::string y = gradient.attrs.get_string("y", "");
    if (xs.empty() || y.empty()) return invalid_model(label + ": attributes xs and y are required");
    if (gradient.outputs.size() != xs.size())
      return invalid_model(label + ": one output per name in xs (" + std::to_string(xs.size()) + "), got " +
                           std::to_string(gradient.outputs.size()));
    OPENGE_RETURN_IF_ERROR(sort_topologically(g));
    OPENGE_RETURN_IF_ERROR(infer_types(g));
    const int yv = g.find_value(y);
    if (yv < 0 || !is_float(g.values[static_cast<size_t>(yv)].dtype))
      return invalid_model(label + ": y '" + y + "' is not a float value of the graph");
    std::vector<int> params;
    for (const std::string& x : xs) {
      const int v = g.find_value(x);
      if (v < 0) return invalid_model(label + ": xs names '" + x + "', which is not a value of the graph");
      params.push_back(v);
    }
    std::vector<char> need = values_needing_gradient(g, params, yv);
    const int seed = g.add_value(gradient.name + "/seed");
    g.values[static_cast<size_t>(seed)].dtype = g.values[static_cast<size_t>(yv)].dtype;
    g.values[static_cast<size_t>(seed)].shape = g.values[static_cast<size_t>(yv)].shape;
    g.values[static_cast<size_t>(seed)].constant = ones_like(g.values[static_cast<size_t>(yv)]);
    need.resize(g.values.size(), 0);
    std::vector<int> grads;
    for (size_t i = 0; i < params.size(); ++i) {
      if (need[static_cast<size_t>(params[i])]) continue;
      return invalid_model(label + ": y '" + y + "' does not depend on '" + xs[i] + "' through differentiable ops");
    }
    BackwardBuilder backward(g, need, differentiable_input);
    auto computed = backward.run(yv, seed, params);
    if (!computed.ok()) return computed.status().with_context(label);
    for (size_t i = 0; i < xs.size(); ++i) {
      if (gradient.outputs[i] < 0) continue;
      g.nodes.push_back(Node{
          gradient.name + "/" + xs[i], "Identity", "", {(*computed)[i]}, {gradient.outputs[i]}, {}, {}, false, ""});
    }
  }
  OPENGE_RETURN_IF_ERROR(sort_topologically(g));
  return g;
}

Tensor loss_scale_tensor(const Graph& g, float scale) {
  // By name: a Trainer appends the optimizer's inputs after it.
  int input = g.inputs.back();
  for (int in : g.inputs)
    if (g.values[static_cast<size_t>(in)].name == kLossScaleInput) input = in;
  const Value& v = g.values[static_cast<size_t>(input)];
  Tensor t(v.dtype, v.shape.value_or(Shape{}));
  visit_float_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(scale);
  });
  return t;
}

Tensor step_seed_tensor(int64_t seed, int64_t first_sample) {
  Tensor t(DType::kInt64, Shape{2});
  t.data<int64_t>()[0] = seed;
  t.data<int64_t>()[1] = first_sample;
  return t;
}

Result<Graph> parameterized_forward_graph(const Graph& model, const std::vector<std::string>& parameters) {
  Graph g = model;
  // Dropout in inference mode: without its training_mode input.
  for (Node& node : g.nodes)
    if (node.op_type == "Dropout" && node.domain.empty() && node.inputs.size() > 2) node.inputs.resize(2);
  std::vector<Tensor> values;
  OPENGE_RETURN_IF_ERROR(initializers_to_inputs(g, parameters, values));
  return g;
}

}  // namespace openge::autodiff
