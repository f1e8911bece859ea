// Gradient checks: for every op with a gradient rule, the gradients of the training graph that
// autodiff builds agree with central finite differences of the same graph's loss, in float64 on
// random shapes (broadcasting included). The loss is sum(Y * R) for a random R, so every output
// element is weighted differently. A rule without a case here fails EveryGradientRuleHasACheck.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "autodiff/training_graph.h"
#include "compiler/pipeline.h"
#include "ops/gradient.h"
#include "ops/op_registry.h"

namespace openge {
namespace {

// A one-op graph under construction: differentiated operands are float64 initializers.
struct CaseGraph {
  Graph g;
  std::mt19937 rng{7};
  std::vector<std::string> params;

  int value(const std::string& name, Tensor t) {
    const int v = g.add_value(name);
    g.values[static_cast<size_t>(v)].dtype = t.dtype();
    g.values[static_cast<size_t>(v)].shape = t.shape();
    g.values[static_cast<size_t>(v)].constant = std::move(t);
    return v;
  }
  // A trained operand, uniform in [lo, hi).
  int param(const std::string& name, Shape shape, double lo = -1, double hi = 1) {
    Tensor t(DType::kFloat64, std::move(shape));
    std::uniform_real_distribution<double> u(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = u(rng);
    params.push_back(name);
    const int v = value(name, std::move(t));
    g.initializers.push_back(v);
    return v;
  }
  int ints(const std::string& name, Shape shape, std::vector<int64_t> v) {
    Tensor t(DType::kInt64, std::move(shape));
    for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
    return value(name, std::move(t));
  }
  std::vector<int> node(const std::string& op, std::vector<int> inputs, Attributes attrs = {}, size_t outputs = 1) {
    Node n;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    for (size_t o = 0; o < outputs; ++o) n.outputs.push_back(g.add_value(n.name + ":" + std::to_string(o)));
    g.nodes.push_back(n);
    return n.outputs;
  }
};

Attributes attrs(std::initializer_list<std::pair<const char*, Attribute>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

Attribute strings_attr(std::vector<std::string> v) {
  Attribute a;
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
  return a;
}

struct GradCase {
  std::string op;     // the op whose rule is checked (test name)
  std::string label;  // a variant's suffix
  int64_t opset = 17;
  // Builds the op on the case's operands; returns its output (float64, any shape).
  std::function<int(CaseGraph&)> build;
};

const std::vector<GradCase>& cases() {
  static const std::vector<GradCase> list = {
      {"Add", "broadcast", 17,
       [](CaseGraph& c) {
         return c.node("Add", {c.param("a", {2, 3, 4}), c.param("b", {3, 1})})[0];
       }},
      {"Add", "bias_over_leading_dims", 17,
       [](CaseGraph& c) {
         return c.node("Add", {c.param("a", {2, 3, 4}), c.param("b", {4})})[0];
       }},
      {"Sub", "broadcast", 17,
       [](CaseGraph& c) {
         return c.node("Sub", {c.param("a", {4}), c.param("b", {2, 4})})[0];
       }},
      {"Mul", "broadcast", 17,
       [](CaseGraph& c) {
         return c.node("Mul", {c.param("a", {2, 1, 3}), c.param("b", {4, 3})})[0];
       }},
      {"Div", "broadcast", 17,
       [](CaseGraph& c) {
         return c.node("Div", {c.param("a", {2, 3}), c.param("b", {3}, 1, 2)})[0];
       }},
      {"Neg", "", 17, [](CaseGraph& c) { return c.node("Neg", {c.param("x", {5})})[0]; }},
      {"Exp", "", 17,
       [](CaseGraph& c) {
         return c.node("Exp", {c.param("x", {2, 3})})[0];
       }},
      {"Log", "", 17,
       [](CaseGraph& c) {
         return c.node("Log", {c.param("x", {2, 3}, 0.5, 2)})[0];
       }},
      {"Sqrt", "", 17,
       [](CaseGraph& c) {
         return c.node("Sqrt", {c.param("x", {2, 3}, 0.5, 2)})[0];
       }},
      {"Pow", "constant_exponent", 17,
       [](CaseGraph& c) {
         Tensor e(DType::kFloat64, {});
         e.data<double>()[0] = 3.0;
         return c.node("Pow", {c.param("x", {2, 3}), c.value("e", e)})[0];
       }},
      {"Gemm", "transA_alpha_beta", 17,
       [](CaseGraph& c) {
         return c.node("Gemm", {c.param("a", {3, 2}), c.param("b", {3, 4}), c.param("c", {4})},
                       attrs({{"transA", int_attr(1)}, {"alpha", float_attr(0.5f)}, {"beta", float_attr(2.0f)}}))[0];
       }},
      {"Gemm", "transB", 17,
       [](CaseGraph& c) {
         return c.node("Gemm", {c.param("a", {2, 3}), c.param("b", {4, 3}), c.param("c", {2, 1})},
                       attrs({{"transB", int_attr(1)}}))[0];
       }},
      {"MatMul", "2d", 17,
       [](CaseGraph& c) {
         return c.node("MatMul", {c.param("a", {3, 4}), c.param("b", {4, 2})})[0];
       }},
      {"MatMul", "batched_times_matrix", 17,
       [](CaseGraph& c) {
         return c.node("MatMul", {c.param("a", {2, 3, 4}), c.param("b", {4, 5})})[0];
       }},
      {"MatMul", "vector_times_batched", 17,
       [](CaseGraph& c) {
         return c.node("MatMul", {c.param("a", {4}), c.param("b", {2, 4, 3})})[0];
       }},
      {"MatMul", "matrix_times_vector", 17,
       [](CaseGraph& c) {
         return c.node("MatMul", {c.param("a", {3, 4}), c.param("b", {4})})[0];
       }},
      {"MatMul", "dot", 17,
       [](CaseGraph& c) {
         return c.node("MatMul", {c.param("a", {5}), c.param("b", {5})})[0];
       }},
      {"MatMul", "batched_broadcast", 17,
       [](CaseGraph& c) {
         return c.node("MatMul", {c.param("a", {2, 1, 3, 4}), c.param("b", {3, 4, 5})})[0];
       }},
      {"ReduceSum", "axes_input", 17,
       [](CaseGraph& c) {
         return c.node("ReduceSum", {c.param("x", {2, 3, 4}), c.ints("axes", {1}, {1})},
                       attrs({{"keepdims", int_attr(0)}}))[0];
       }},
      {"ReduceMean", "axes_attribute", 17,
       [](CaseGraph& c) {
         return c.node("ReduceMean", {c.param("x", {2, 3, 4})}, attrs({{"axes", ints_attr({0, 2})}}))[0];
       }},
      {"Relu", "", 17,
       [](CaseGraph& c) {
         return c.node("Relu", {c.param("x", {3, 4})})[0];
       }},
      {"Sigmoid", "", 17,
       [](CaseGraph& c) {
         return c.node("Sigmoid", {c.param("x", {3, 4})})[0];
       }},
      {"Tanh", "", 17,
       [](CaseGraph& c) {
         return c.node("Tanh", {c.param("x", {3, 4})})[0];
       }},
      {"LeakyRelu", "", 17,
       [](CaseGraph& c) {
         return c.node("LeakyRelu", {c.param("x", {3, 4})}, attrs({{"alpha", float_attr(0.2f)}}))[0];
       }},
      {"Erf", "", 17,
       [](CaseGraph& c) {
         return c.node("Erf", {c.param("x", {3, 4})})[0];
       }},
      {"Gelu", "fused_erf_form", 17,
       [](CaseGraph& c) {
         const int y = c.node("Gelu", {c.param("x", {3, 4}, -3, 3)})[0];
         c.g.nodes.back().domain = "openge";
         return y;
       }},
      {"Gelu", "approximate_none", 17,
       [](CaseGraph& c) {
         return c.node("Gelu", {c.param("x", {2, 5}, -3, 3)}, attrs({{"approximate", string_attr("none")}}))[0];
       }},
      {"Gelu", "approximate_tanh", 17,
       [](CaseGraph& c) {
         return c.node("Gelu", {c.param("x", {2, 5}, -3, 3)}, attrs({{"approximate", string_attr("tanh")}}))[0];
       }},
      // The recurrent ops: Y, Y_h and Y_c summed (Y_h and Y_c broadcast over Y's time axis) so
      // that every output's gradient flows; absent inputs are -1.
      {"LSTM", "forward_bias_initial_states_all_outputs", 17,
       [](CaseGraph& c) {
         const auto o = c.node("LSTM",
                               {c.param("x", {3, 2, 4}), c.param("w", {1, 12, 4}), c.param("r", {1, 12, 3}),
                                c.param("b", {1, 24}), -1, c.param("h0", {1, 2, 3}), c.param("c0", {1, 2, 3})},
                               attrs({{"hidden_size", int_attr(3)}}), 3);
         return c.node("Add", {c.node("Add", {o[0], o[1]})[0], o[2]})[0];
       }},
      {"LSTM", "bidirectional_no_bias_y_only", 17,
       [](CaseGraph& c) {
         return c.node("LSTM", {c.param("x", {4, 2, 3}), c.param("w", {2, 8, 3}), c.param("r", {2, 8, 2})},
                       attrs({{"direction", string_attr("bidirectional")}}))[0];
       }},
      {"LSTM", "reverse_y_c_only", 17,
       [](CaseGraph& c) {
         return c.node(
             "LSTM",
             {c.param("x", {3, 1, 2}), c.param("w", {1, 8, 2}), c.param("r", {1, 8, 2}), c.param("b", {1, 16}), -1, -1,
              c.param("c0", {1, 1, 2})},
             attrs({{"direction", string_attr("reverse")}, {"activations", strings_attr({"sigmoid", "tanh", "tanh"})}}),
             3)[2];
       }},
      {"GRU", "linear_before_reset_bias_initial_h", 17,
       [](CaseGraph& c) {
         const auto o = c.node("GRU",
                               {c.param("x", {3, 2, 4}), c.param("w", {1, 9, 4}), c.param("r", {1, 9, 3}),
                                c.param("b", {1, 18}), -1, c.param("h0", {1, 2, 3})},
                               attrs({{"linear_before_reset", int_attr(1)}}), 2);
         return c.node("Add", {o[0], o[1]})[0];
       }},
      {"GRU", "bidirectional_reset_before_linear", 17,
       [](CaseGraph& c) {
         const auto o = c.node("GRU",
                               {c.param("x", {3, 2, 2}), c.param("w", {2, 6, 2}), c.param("r", {2, 6, 2}),
                                c.param("b", {2, 12}), -1, c.param("h0", {2, 2, 2})},
                               attrs({{"direction", string_attr("bidirectional")}}), 2);
         return c.node("Add", {o[0], o[1]})[0];
       }},
      {"GRU", "reverse_no_bias_y_only", 17,
       [](CaseGraph& c) {
         return c.node("GRU", {c.param("x", {4, 1, 3}), c.param("w", {1, 6, 3}), c.param("r", {1, 6, 2})},
                       attrs({{"direction", string_attr("reverse")}}))[0];
       }},
      {"RNN", "forward_bias_initial_h_all_outputs", 17,
       [](CaseGraph& c) {
         const auto o = c.node("RNN",
                               {c.param("x", {3, 2, 3}), c.param("w", {1, 3, 3}), c.param("r", {1, 3, 3}),
                                c.param("b", {1, 6}), -1, c.param("h0", {1, 2, 3})},
                               {}, 2);
         return c.node("Add", {o[0], o[1]})[0];
       }},
      {"RNN", "bidirectional_no_bias_y_only", 17,
       [](CaseGraph& c) {
         return c.node("RNN", {c.param("x", {4, 2, 2}), c.param("w", {2, 3, 2}), c.param("r", {2, 3, 3})},
                       attrs({{"direction", string_attr("bidirectional")}}))[0];
       }},
      {"Clip", "opset6_attributes", 6,
       [](CaseGraph& c) {
         return c.node("Clip", {c.param("x", {3, 4})},
                       attrs({{"min", float_attr(-0.4f)}, {"max", float_attr(0.5f)}}))[0];
       }},
      {"Clip", "relu6_like", 17,
       [](CaseGraph& c) {
         Tensor lo(DType::kFloat64, {}), hi(DType::kFloat64, {});
         lo.data<double>()[0] = -0.5;
         hi.data<double>()[0] = 0.6;
         return c.node("Clip", {c.param("x", {3, 4}), c.value("lo", lo), c.value("hi", hi)})[0];
       }},
      {"Softmax", "axis1", 17,
       [](CaseGraph& c) {
         return c.node("Softmax", {c.param("x", {2, 3, 4})}, attrs({{"axis", int_attr(1)}}))[0];
       }},
      {"Softmax", "opset11_flatten", 11,
       [](CaseGraph& c) {
         return c.node("Softmax", {c.param("x", {2, 3, 4})}, attrs({{"axis", int_attr(1)}}))[0];
       }},
      {"LogSoftmax", "", 17,
       [](CaseGraph& c) {
         return c.node("LogSoftmax", {c.param("x", {3, 5})})[0];
       }},
      {"Conv", "group_stride_pad_dilation", 17,
       [](CaseGraph& c) {
         return c.node("Conv", {c.param("x", {2, 4, 7, 6}), c.param("w", {6, 2, 3, 2}), c.param("b", {6})},
                       attrs({{"group", int_attr(2)},
                              {"strides", ints_attr({2, 1})},
                              {"pads", ints_attr({1, 0, 1, 1})},
                              {"dilations", ints_attr({1, 2})}}))[0];
       }},
      {"Conv", "1d_same_upper", 17,
       [](CaseGraph& c) {
         return c.node("Conv", {c.param("x", {1, 2, 9}), c.param("w", {3, 2, 4})},
                       attrs({{"auto_pad", string_attr("SAME_UPPER")}, {"strides", ints_attr({2})}}))[0];
       }},
      {"MaxPool", "pads_strides", 17,
       [](CaseGraph& c) {
         return c.node("MaxPool", {c.param("x", {2, 3, 6, 5})},
                       attrs({{"kernel_shape", ints_attr({3, 2})},
                              {"strides", ints_attr({2, 2})},
                              {"pads", ints_attr({1, 0, 1, 1})}}))[0];
       }},
      {"MaxPool", "1d_generic_walker", 17,
       [](CaseGraph& c) {
         return c.node(
             "MaxPool", {c.param("x", {2, 3, 7})},
             attrs({{"kernel_shape", ints_attr({3})}, {"strides", ints_attr({2})}, {"pads", ints_attr({1, 1})}}))[0];
       }},
      {"AveragePool", "3d_generic_walker", 17,
       [](CaseGraph& c) {
         return c.node("AveragePool", {c.param("x", {1, 2, 3, 4, 3})},
                       attrs({{"kernel_shape", ints_attr({2, 2, 2})},
                              {"pads", ints_attr({1, 0, 1, 0, 1, 1})},
                              {"count_include_pad", int_attr(1)}}))[0];
       }},
      {"AveragePool", "count_include_pad", 17,
       [](CaseGraph& c) {
         return c.node("AveragePool", {c.param("x", {2, 2, 5, 5})},
                       attrs({{"kernel_shape", ints_attr({3, 3})},
                              {"pads", ints_attr({1, 1, 1, 1})},
                              {"count_include_pad", int_attr(1)}}))[0];
       }},
      {"AveragePool", "exclude_pad", 17,
       [](CaseGraph& c) {
         return c.node("AveragePool", {c.param("x", {1, 2, 5, 4})},
                       attrs({{"kernel_shape", ints_attr({2, 2})},
                              {"strides", ints_attr({2, 2})},
                              {"pads", ints_attr({1, 1, 1, 1})}}))[0];
       }},
      {"GlobalAveragePool", "", 17,
       [](CaseGraph& c) {
         return c.node("GlobalAveragePool", {c.param("x", {2, 3, 4, 5})})[0];
       }},
      {"BatchNormalization", "training", 15,
       [](CaseGraph& c) {
         Tensor mean(DType::kFloat64, {3}), var(DType::kFloat64, {3});
         for (int i = 0; i < 3; ++i) var.data<double>()[i] = 1.0;
         return c.node("BatchNormalization", {c.param("x", {4, 3, 2, 2}), c.param("scale", {3}), c.param("bias", {3}),
                                              c.value("mean", mean), c.value("var", var)})[0];
       }},
      {"LayerNormalization", "last_axis", 17,
       [](CaseGraph& c) {
         return c.node("LayerNormalization", {c.param("x", {3, 2, 5}), c.param("scale", {5}), c.param("bias", {5})},
                       attrs({{"axis", int_attr(-1)}}))[0];
       }},
      {"Dropout", "inference", 17,
       [](CaseGraph& c) {
         return c.node("Dropout", {c.param("x", {3, 4})})[0];
       }},
      {"Dropout", "training_ratio_0", 17,
       [](CaseGraph& c) {
         Tensor ratio(DType::kFloat64, {}), on(DType::kBool, {});
         on.data<bool>()[0] = true;
         return c.node("Dropout", {c.param("x", {3, 4}), c.value("ratio", ratio), c.value("training", on)})[0];
       }},
      {"SoftmaxCrossEntropyLoss", "mean_ignore_index", 17,
       [](CaseGraph& c) {
         return c.node("SoftmaxCrossEntropyLoss", {c.param("scores", {4, 5}), c.ints("labels", {4}, {1, 4, 2, 0})},
                       attrs({{"ignore_index", int_attr(2)}}))[0];
       }},
      {"SoftmaxCrossEntropyLoss", "sum_spatial_weights", 17,
       [](CaseGraph& c) {
         Tensor w(DType::kFloat64, {3});
         for (int i = 0; i < 3; ++i) w.data<double>()[i] = 0.5 + i;
         return c.node("SoftmaxCrossEntropyLoss",
                       {c.param("scores", {2, 3, 2}), c.ints("labels", {2, 2}, {0, 2, 1, 1}), c.value("weights", w)},
                       attrs({{"reduction", string_attr("sum")}}))[0];
       }},
      {"NegativeLogLikelihoodLoss", "none", 17,
       [](CaseGraph& c) {
         return c.node("NegativeLogLikelihoodLoss", {c.param("x", {3, 4}), c.ints("labels", {3}, {3, 0, 1})},
                       attrs({{"reduction", string_attr("none")}}))[0];
       }},
      {"Reshape", "", 17,
       [](CaseGraph& c) {
         return c.node("Reshape", {c.param("x", {2, 6}), c.ints("shape", {3}, {3, -1, 2})})[0];
       }},
      {"Flatten", "", 17,
       [](CaseGraph& c) {
         return c.node("Flatten", {c.param("x", {2, 3, 2})})[0];
       }},
      {"Squeeze", "", 17,
       [](CaseGraph& c) {
         return c.node("Squeeze", {c.param("x", {2, 1, 3}), c.ints("axes", {1}, {1})})[0];
       }},
      {"Unsqueeze", "", 17,
       [](CaseGraph& c) {
         return c.node("Unsqueeze", {c.param("x", {2, 3}), c.ints("axes", {1}, {0})})[0];
       }},
      {"Identity", "", 17, [](CaseGraph& c) { return c.node("Identity", {c.param("x", {4})})[0]; }},
      {"Transpose", "perm", 17,
       [](CaseGraph& c) {
         return c.node("Transpose", {c.param("x", {2, 3, 4})}, attrs({{"perm", ints_attr({2, 0, 1})}}))[0];
       }},
      {"Concat", "axis1", 17,
       [](CaseGraph& c) {
         return c.node("Concat", {c.param("a", {2, 1}), c.param("b", {2, 3})}, attrs({{"axis", int_attr(1)}}))[0];
       }},
      {"Split", "one_output_used", 17,
       [](CaseGraph& c) {
         return c.node("Split", {c.param("x", {5, 2}), c.ints("split", {2}, {2, 3})}, attrs({{"axis", int_attr(0)}}),
                       2)[1];
       }},
      {"Slice", "negative_start_two_axes", 17,
       [](CaseGraph& c) {
         return c.node("Slice", {c.param("x", {3, 5, 4}), c.ints("starts", {2}, {-4, 1}), c.ints("ends", {2}, {4, 100}),
                                 c.ints("axes", {2}, {1, 2})})[0];
       }},
      {"Gather", "embedding_repeats", 17,
       [](CaseGraph& c) {
         return c.node("Gather", {c.param("table", {5, 3}), c.ints("idx", {2, 3}, {4, 0, 4, -1, 2, 0})})[0];
       }},
      {"Expand", "", 17,
       [](CaseGraph& c) {
         return c.node("Expand", {c.param("x", {3, 1}), c.ints("shape", {3}, {2, 3, 4})})[0];
       }},
      {"Where", "broadcast", 17,
       [](CaseGraph& c) {
         Tensor cond(DType::kBool, {2, 3});
         for (int i = 0; i < 6; ++i) cond.data<bool>()[i] = i % 3 != 1;
         return c.node("Where", {c.value("cond", cond), c.param("a", {2, 3}), c.param("b", {3})})[0];
       }},
      // Training-mode Dropout becomes TrainingDropout on the step seed (fixed for the check: the
      // mask is the same at every point, so the function is linear in x).
      {"Dropout", "training_mode", 17,
       [](CaseGraph& c) {
         Tensor ratio(DType::kFloat64, {});
         ratio.data<double>()[0] = 0.4;
         Tensor on(DType::kBool, {});
         on.data<bool>()[0] = true;
         return c.node("Dropout", {c.param("x", {4, 6}), c.value("ratio", ratio), c.value("on", on)}, {}, 2)[0];
       }},
      {"TrainingDropout", "", 17,
       [](CaseGraph& c) {
         const int y = c.node("TrainingDropout", {c.param("x", {3, 8}), c.ints("seed", {2}, {11, 0})},
                              attrs({{"ratio", float_attr(0.25f)}, {"salt", int_attr(3)}}), 2)[0];
         c.g.nodes.back().domain = "openge";
         return y;
       }},
      {"Cast", "to_double", 17,
       [](CaseGraph& c) {
         return c.node("Cast", {c.param("x", {4})},
                       attrs({{"to", int_attr(static_cast<int64_t>(DType::kFloat64))}}))[0];
       }},
  };
  return list;
}

// The case's graph with its loss sum(Y * R), Y the op's output.
Graph case_graph(const GradCase& gc, std::vector<std::string>& params) {
  CaseGraph c;
  c.g.opset = gc.opset;
  c.g.name = gc.op;
  const int y = gc.build(c);
  // Y's shape, for R: inferred by building the training graph would be circular, so run infer.
  Graph probe = c.g;
  probe.outputs = {y};
  for (Node& n : probe.nodes)  // an inference compile refuses training-mode Dropout; its shape is X's
    if (n.op_type == "Dropout" && n.inputs.size() > 2) n.inputs.resize(2);
  auto exe = compiler::compile(probe, {}, CompileOptions{});
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  const Value& yv =
      (*exe)->graph().values[static_cast<size_t>((*exe)->graph().find_value(c.g.values[static_cast<size_t>(y)].name))];
  Tensor r(DType::kFloat64, yv.shape.value_or(Shape{}));
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < r.numel(); ++i) r.data<double>()[i] = u(c.rng);
  const int rv = c.value("R", r);
  const int weighted = c.node("Mul", {y, rv})[0];
  const int loss = c.node("ReduceSum", {weighted}, attrs({{"keepdims", int_attr(0)}}))[0];
  c.g.outputs = {loss};
  c.g.declared_outputs.assign(1, Graph::DeclaredType{});
  params = c.params;
  return c.g;
}

class GradientCheck : public ::testing::TestWithParam<GradCase> {};

TEST_P(GradientCheck, MatchesFiniteDifferencesInFloat64) {
  const GradCase& gc = GetParam();
  std::vector<std::string> params;
  const Graph model = case_graph(gc, params);
  autodiff::TrainingSpec spec;
  spec.output = model.values[static_cast<size_t>(model.outputs[0])].name;
  spec.trainable = params;  // not R, which a default choice would train too
  auto tg = autodiff::build_training_graph(model, {}, spec);
  ASSERT_TRUE(tg.ok()) << tg.status().message();
  ASSERT_EQ(tg->trainable, params);
  std::vector<Shape> shapes;
  for (const Tensor& t : tg->initial_values) shapes.push_back(t.shape());
  for (const Tensor& t : tg->initial_state) shapes.push_back(t.shape());
  const Tensor seed = autodiff::step_seed_tensor(5, 0);
  if (tg->step_seed) shapes.push_back(seed.shape());
  const Tensor scale = autodiff::loss_scale_tensor(tg->graph, 1.0f);
  shapes.push_back(scale.shape());
  CompileOptions co;
  co.use_aicore = false;
  co.num_threads = 1;
  auto exe = compiler::compile(tg->graph, shapes, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();

  std::vector<Tensor> inputs;
  for (const Tensor& t : tg->initial_values) inputs.push_back(t.clone());
  for (const Tensor& t : tg->initial_state) inputs.push_back(t.clone());
  if (tg->step_seed) inputs.push_back(seed);
  inputs.push_back(scale);
  auto out = (*exe)->run(inputs);
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto loss_at = [&](const std::vector<Tensor>& in) {
    auto r = (*exe)->run(in);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? (*r)[0].scalar_as_double() : 0.0;
  };
  constexpr double kStep = 1e-6;
  for (size_t p = 0; p < params.size(); ++p) {
    const Tensor& grad = (*out)[1 + p];
    ASSERT_EQ(grad.shape(), inputs[p].shape()) << params[p];
    for (int64_t i = 0; i < inputs[p].numel(); ++i) {
      double* x = inputs[p].data<double>() + i;
      const double saved = *x;
      *x = saved + kStep;
      const double up = loss_at(inputs);
      *x = saved - kStep;
      const double down = loss_at(inputs);
      *x = saved;
      const double numeric = (up - down) / (2 * kStep);
      const double analytic = grad.data<double>()[i];
      EXPECT_NEAR(analytic, numeric, 1e-6 + 1e-5 * std::fabs(numeric)) << params[p] << "[" << i << "]";
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<GradCase>& info) {
  return info.param.op + (info.param.label.empty() ? "" : "_" + info.param.label);
}

INSTANTIATE_TEST_SUITE_P(Ops, GradientCheck, ::testing::ValuesIn(cases()), case_name);

TEST(GradientRules, EveryGradientRuleHasACheck) {
  std::set<std::string> checked;
  for (const GradCase& gc : cases()) checked.insert(gc.op);
  int rules = 0;
  for (const OpSchema& s : all_op_schemas()) {
    if (!s.gradient) continue;
    ++rules;
    EXPECT_TRUE(checked.count(std::string(s.op_type))) << s.op_type << " has a gradient rule but no gradient check";
  }
  EXPECT_GE(rules, 40);
}

// The recurrent rules refuse the forms their backward ops do not model, naming node and attribute.
TEST(GradientRules, RecurrentFormsWithoutAGradientAreRefusedByName) {
  struct Refused {
    const char* op;
    int64_t gates;
    Attributes attrs;
    bool seq_lens;
    const char* named;
  };
  const std::vector<Refused> refused = {
      {"LSTM", 4, attrs({{"clip", float_attr(3.0f)}}), false, "clip"},
      {"LSTM", 4, attrs({{"input_forget", int_attr(1)}}), false, "input_forget"},
      {"GRU", 3, attrs({{"activations", strings_attr({"Relu", "Tanh"})}}), false, "activations"},
      {"GRU", 3, {}, true, "sequence_lens"},
  };
  for (const Refused& r : refused) {
    CaseGraph c;
    c.g.opset = 17;
    std::vector<int> in = {c.param("x", {2, 1, 2}), c.param("w", {1, 2 * r.gates, 2}),
                           c.param("r", {1, 2 * r.gates, 2})};
    if (r.seq_lens) {
      Tensor lens(DType::kInt32, {1});
      lens.data<int32_t>()[0] = 2;
      in.push_back(-1);
      in.push_back(c.value("lens", lens));
    }
    const int y = c.node(r.op, in, r.attrs)[0];
    c.g.outputs = {c.node("ReduceSum", {y}, attrs({{"keepdims", int_attr(0)}}))[0]};
    auto tg = autodiff::build_training_graph(c.g, {}, autodiff::TrainingSpec{});
    ASSERT_FALSE(tg.ok()) << r.named;
    const std::string& m = tg.status().message();
    EXPECT_NE(m.find(std::string(r.op) + " '" + r.op + "_0'"), std::string::npos) << m;
    EXPECT_NE(m.find(r.named), std::string::npos) << m;
  }
}

TEST(GradientRules, AnOpWithoutARuleIsNamed) {
  CaseGraph c;
  c.g.opset = 17;
  const int y = c.node("Floor", {c.param("x", {3})})[0];
  const int loss = c.node("ReduceSum", {y}, attrs({{"keepdims", int_attr(0)}}))[0];
  c.g.outputs = {loss};
  auto tg = autodiff::build_training_graph(c.g, {}, autodiff::TrainingSpec{});
  ASSERT_FALSE(tg.ok());
  EXPECT_NE(tg.status().message().find("Floor"), std::string::npos) << tg.status().message();
  EXPECT_NE(tg.status().message().find("no gradient rule"), std::string::npos) << tg.status().message();
}

}  // namespace
}  // namespace openge
