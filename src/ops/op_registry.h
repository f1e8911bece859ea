// The op table: one OpSchema per supported ONNX op type. Everything that needs to know about
// an op (loader validation, inference, constant folding, the AI CPU engine) reads this table.
#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "ops/gradient.h"
#include "ops/op_context.h"

namespace openge {

using InferFn = Status (*)(InferContext&);
using KernelFn = Status (*)(KernelContext&);
class CompiledKernel;  // ops/kernel.h
struct KernelRequest;
// The compile-time prepare step of a reference kernel (docs/ARCHITECTURE.md, "The op contract"):
// for a node whose shapes are all static, everything the kernel can decide before it sees data
// (attributes, output shapes, strides, broadcast plans, loop partitions, scratch sizes) is
// decided once, and the returned AI CPU kernel only computes. Null: the node runs `reference`.
using PrepareFn = Result<std::unique_ptr<CompiledKernel>> (*)(const KernelRequest&);

struct OpSchema {
  std::string_view op_type;
  int min_inputs = 0;
  int max_inputs = 0;  // -1: variadic
  int min_outputs = 1;
  int max_outputs = 1;
  InferFn infer = nullptr;
  KernelFn reference = nullptr;  // the AI CPU engine's kernel (every dtype ONNX defines)
  // Output 0 is input 0's data under a new shape (Reshape, Squeeze, Identity …): the executor
  // shares the buffer instead of running the kernel.
  bool output_aliases_input = false;
  // Draws random numbers: constant folding would freeze one draw into the model, so the node is
  // folded only when its `seed` attribute makes every run draw the same values.
  bool fold_only_when_seeded = false;
  // Inputs may be sequences or optionals (the sequence and optional ops, Identity, If / Loop);
  // every other op is refused such an input before its infer runs.
  bool takes_any_value = false;
  // "" for the default ONNX domain; else the only domain the loader accepts the op from
  // ("ai.onnx.preview.training" for the optimizers).
  std::string_view domain = "";
  // Optional: the kernel's prepared form for static shapes (PrepareFn); set by the op family's
  // register function after its rows (positional rows above stay as they are).
  PrepareFn prepare = nullptr;
  // Optional: the op's gradient rule (ops/gradient.h), set by register_gradient_rules() from the
  // rule tables of src/ops/grad/; null: the op is not differentiable (autodiff names it).
  GradientFn gradient = nullptr;
};

// nullptr when the op is unknown.
const OpSchema* find_op_schema(std::string_view op_type);
const std::vector<OpSchema>& all_op_schemas();

// Each ops/*.cpp file contributes its rows through one of these.
void register_elementwise_ops(std::vector<OpSchema>& table);
void register_shape_ops(std::vector<OpSchema>& table);
void register_nn_ops(std::vector<OpSchema>& table);
void register_reduce_ops(std::vector<OpSchema>& table);
void register_math_ops(std::vector<OpSchema>& table);
void register_fused_ops(std::vector<OpSchema>& table);          // internal ops made by fusion passes (domain "openge")
void register_index_ops(std::vector<OpSchema>& table);          // GatherND ScatterElements Scatter ReverseSequence
void register_select_ops(std::vector<OpSchema>& table);         // NonZero Compress Unique (data-dependent sizes)
void register_layout_ops(std::vector<OpSchema>& table);         // DepthToSpace SpaceToDepth
void register_normalization_ops(std::vector<OpSchema>& table);  // LRN MeanVarianceNormalization LpNormalization
void register_pooling_ops(std::vector<OpSchema>& table);        // LpPool GlobalLpPool MaxUnpool MaxRoiPool
void register_detection_ops(std::vector<OpSchema>& table);      // RoiAlign NonMaxSuppression
void register_grid_sample_ops(std::vector<OpSchema>& table);    // GridSample
void register_loss_ops(std::vector<OpSchema>& table);           // NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss
void register_extended_activation_ops(std::vector<OpSchema>& table);  // Celu ThresholdedRelu Shrink Softsign
void register_numeric_ops(std::vector<OpSchema>& table);              // IsInf IsNaN Mod BitShift
void register_hardmax_ops(std::vector<OpSchema>& table);              // Hardmax
void register_construct_ops(std::vector<OpSchema>& table);            // Trilu EyeLike OneHot
void register_random_ops(std::vector<OpSchema>& table);     // RandomUniform/Normal(Like) Bernoulli Multinomial (seeded)
void register_signal_ops(std::vector<OpSchema>& table);     // Hann/Hamming/BlackmanWindow MelWeightMatrix DFT STFT
void register_linalg_ops(std::vector<OpSchema>& table);     // Det
void register_recurrent_ops(std::vector<OpSchema>& table);  // RNN GRU LSTM
void register_quantize_ops(std::vector<OpSchema>& table);
void register_sequence_ops(std::vector<OpSchema>& table);  // Sequence* SplitToSequence ConcatFromSequence Optional*
void register_string_ops(std::vector<OpSchema>& table);    // StringNormalizer
void register_tfidf_ops(std::vector<OpSchema>& table);     // TfIdfVectorizer
void register_training_ops(std::vector<OpSchema>& table);  // Adagrad Adam Momentum (ai.onnx.preview.training)
void register_grad_ops(std::vector<OpSchema>& table);      // the backward ops of src/ops/grad/ (domain "openge")
// Not rows: sets the `gradient` field of the rows that have a rule (src/ops/grad/gradient_rules.cpp).
void register_gradient_rules(std::vector<OpSchema>& table);
void register_control_flow_ops(
    std::vector<OpSchema>& table);  // If Loop Scan (subgraphs run by runtime/control_flow.cpp)  // QuantizeLinear
                                    // DequantizeLinear DynamicQuantizeLinear MatMulInteger QLinearMatMul

}  // namespace openge
