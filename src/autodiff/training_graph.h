// Reverse-mode differentiation of a model: from an ONNX graph and a loss, the training graph
// whose one run is a training step's forward and backward pass. The compile pipeline compiles it
// like any graph (fusion passes, precision, layout, the memory plan over the saved activations).
//
// The training graph's inputs, in order: the model's own inputs, the labels (when the loss is
// named at the API), the trainable parameters, the state tensors (BatchNormalization's running
// mean and variance), the step seed when a Dropout trains (kStepSeedInput), then the loss scale
// (the loss's shape and dtype: the gradient the backward
// pass starts from, so every gradient comes out multiplied by it). Its outputs: the loss, one
// gradient per trainable parameter (same order), then each state tensor's new value. The parameters are inputs, not
// constants, so that one compiled graph serves every step while the optimizer changes them.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"

namespace openge::autodiff {

inline constexpr const char* kLossScaleInput = "loss_scale";
// Training-mode Dropout's randomness (ops/grad/dropout_train.cpp): two int64, the step's seed and
// the index of the batch's first sample in the global batch. An input only of graphs that drop.
inline constexpr const char* kStepSeedInput = "step_seed";

enum class LossKind {
  kModelOutput,   // the model computes its loss: a scalar output (a loss node, or any scalar)
  kCrossEntropy,  // SoftmaxCrossEntropyLoss(output, labels), labels int64 class indices, mean
  kMse,           // mean((output - labels)^2), labels of the output's shape and dtype
};

struct TrainingSpec {
  LossKind loss = LossKind::kModelOutput;
  // The model output the loss reads (kCrossEntropy, kMse) or that is the loss (kModelOutput);
  // "": the first output (kModelOutput: the only scalar output).
  std::string output;
  std::string labels_input = "labels";  // the name of the labels input a named loss adds
  // Parameters to train, by initializer name; empty: every float initializer on a path to the
  // loss that a gradient rule differentiates.
  std::vector<std::string> trainable;
  // BatchNormalization nodes compute with the batch's statistics and update their running ones
  // (the training scenario, graph_run_mode = 1); false keeps them in inference mode (frozen).
  bool batch_norm_training = true;
};

struct TrainingGraph {
  Graph graph;
  size_t data_inputs = 0;              // the model's inputs and the labels: graph.inputs[0 .. data_inputs)
  std::vector<std::string> trainable;  // graph.inputs[data_inputs ..), outputs[1 ..)
  std::vector<Tensor> initial_values;  // each trainable's value in the model
  std::vector<std::string> state;      // graph.inputs after the trainables; outputs after the gradients
  std::vector<Tensor> initial_state;
  std::string loss_name;   // the loss value (graph output 0)
  bool step_seed = false;  // graph.inputs[size - 2] is the step seed (a Dropout trains)
};

// `data_shapes`: one concrete shape per model input (graph order) and, for a named loss, the
// labels' shape last ([] derives it from the output the loss reads). An error names the op without a gradient rule, a
// loss that is not a scalar, or a trainable name the model lacks.
Result<TrainingGraph> build_training_graph(const Graph& model, const std::vector<Shape>& data_shapes,
                                           const TrainingSpec& spec);

// The ONNX preview-training domain's Gradient op on the same machinery: every Gradient node
// (attributes xs: the values to differentiate with respect to, y: the value differentiated, zs:
// inputs held constant) is replaced by the backward nodes computing d sum(y) / d x for each x in
// xs, its outputs produced from them. `input_shapes` bind the graph's inputs for the inference
// the rules need. A graph without Gradient nodes is returned as it was.
Result<Graph> expand_gradient_nodes(Graph graph, const std::vector<Shape>& input_shapes);
bool has_gradient_nodes(const Graph& graph);

// A new graph input `name` of `dtype` and `shape` (the inputs a training graph adds: labels, the
// loss scale, the optimizer's hyperparameters, step and state); its value index.
int add_graph_input(Graph& g, const std::string& name, DType dtype, Shape shape);

// The value to feed as the training graph's last input (kLossScaleInput): `scale` in its dtype
// and shape.
Tensor loss_scale_tensor(const Graph& training_graph, float scale);

// The step seed to feed a training graph with TrainingGraph::step_seed: `seed` and the index of
// the batch's first sample in the global batch.
Tensor step_seed_tensor(int64_t seed, int64_t first_sample);

// The model's forward graph with `parameters` (names) and state turned into inputs after its own
// (same order as a TrainingGraph's), BatchNormalization and Dropout in inference mode: what evaluation runs
// with the trained values without recompiling for every step.
Result<Graph> parameterized_forward_graph(const Graph& model, const std::vector<std::string>& parameters);

}  // namespace openge::autodiff
