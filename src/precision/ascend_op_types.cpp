// The ONNX -> Ascend IR op type mapping (AMB-14): the names CANN's ONNX parser gives each ONNX
// op, so that ops-info entries, modify_mixlist and customize_dtypes (which take Ascend IR types)
// find OpenGE's ONNX nodes. Where CANN lowers an ONNX op through a subgraph, the row names the
// op of that subgraph that does the arithmetic (docs/DECISIONS.md lists each such choice).
#include <algorithm>
#include <array>
#include <string_view>

#include "precision/soc_profile.h"

namespace openge::precision {
namespace {

struct OpTypeRow {
  std::string_view onnx;
  std::string_view ascend;
};

// Sorted by ONNX name (checked once at first use). Rows whose names agree are listed too: a row
// means "CANN has this op under this name", the fallback means "nobody checked".
constexpr std::array kOpTypes = std::to_array<OpTypeRow>({
    {"Abs", "Abs"},
    {"Acos", "Acos"},
    {"Acosh", "Acosh"},
    {"ActivationGrad", "ReluGrad"},  // OpenGE backward ops (src/ops/grad/): the CANN op of the same work; AI CPU here
    {"Adagrad", "ApplyAdagrad"},     // ai.onnx.preview.training optimizers: CANN's Apply* ops (no ONNX plugin)
    {"Adam", "ApplyAdam"},
    {"Add", "Add"},
    {"And", "LogicalAnd"},
    {"ArgMax", "ArgMaxV2"},
    {"ArgMin", "ArgMin"},
    {"Asin", "Asin"},
    {"Asinh", "Asinh"},
    {"Atan", "Atan"},
    {"Atanh", "Atanh"},
    {"AveragePool", "AvgPoolV2"},
    {"AveragePoolGrad", "AvgPoolGrad"},
    {"BatchNormalization", "BatchNorm"},
    {"BatchNormalizationGrad", "BNTrainingUpdateGrad"},
    {"Bernoulli", "Bernoulli"},
    {"BitShift", "RightShift"},
    {"BlackmanWindow", "BlackmanWindow"},
    {"Cast", "Cast"},
    {"CastLike", "Cast"},
    {"Ceil", "Ceil"},
    {"Celu", "Celu"},
    {"Clip", "ClipByValue"},
    {"Compress", "Compress"},
    {"Concat", "ConcatD"},
    {"ConcatFromSequence", "ConcatFromSequence"},  // sequences, optionals: no Ascend name known
    {"ConstantOfShape", "Fill"},
    {"Conv", "Conv2D"},
    {"ConvGrad", "Conv2DBackpropFilter"},  // OpenGE's one backward op of Conv: CANN's cube backward op
    {"ConvInteger", "ConvInteger"},
    {"ConvTranspose", "Conv2DTranspose"},
    {"Cos", "Cos"},
    {"Cosh", "Cosh"},
    {"CumSum", "Cumsum"},
    {"DFT", "DFT"},
    {"DepthToSpace", "DepthToSpace"},
    {"DequantizeLinear", "AscendDequant"},
    {"Det", "MatrixDeterminant"},
    {"Div", "RealDiv"},
    {"Dropout", "Dropout"},
    {"DynamicQuantizeLinear", "DynamicQuant"},
    {"Einsum", "Einsum"},
    {"Elu", "Elu"},
    {"Equal", "Equal"},
    {"Erf", "Erf"},
    {"Exp", "Exp"},
    {"Expand", "Expand"},
    {"EyeLike", "Eye"},
    {"FileConstant", "FileConstant"},  // external_weight's weights: GE's op of that name, folded before precision
    {"Flatten", "Flatten"},
    {"Floor", "Floor"},
    {"FusedAttention", "MatMulV2"},   // OpenGE's MatMul-Softmax-MatMul: its first product, the cube op
    {"FusedConv", "Conv2D"},          // OpenGE's Conv + bias/activation/residual: the cube op
    {"FusedElementwise", "Eltwise"},  // OpenGE's UB-fused vector ops, made after the precision pass
    {"FusedMatMul", "MatMulV2"},      // OpenGE's MatMul + bias/activation/residual: the cube op
    {"GRU", "DynamicGRUV2"},
    {"GRUGrad", "DynamicGRUV2Grad"},  // backpropagation through time of GRU
    {"Gather", "GatherV2"},
    {"GatherElements", "GatherElements"},
    {"GatherGrad", "UnsortedSegmentSum"},
    // Training-mode Dropout: CANN draws the mask (DropOutGenMask) and applies it (DropOutDoMask),
    // forward and backward.
    {"TrainingDropout", "DropOutDoMask"},
    {"DropoutGrad", "DropOutDoMask"},
    {"GatherND", "GatherNd"},
    {"Gelu", "Gelu"},
    {"Gemm", "MatMulV2"},
    {"GlobalAveragePool", "AvgPoolV2"},  // global_pooling=true
    {"GlobalLpPool", "GlobalLpPool"},
    {"GlobalMaxPool", "MaxPoolV3"},  // global_pooling=true
    {"Gradient", "Gradient"},  // ai.onnx.preview.training: expanded into backward nodes before any profile is read
    {"Greater", "Greater"},
    {"GreaterOrEqual", "GreaterEqual"},
    {"GridSample", "GridSampler2D"},
    {"HammingWindow", "HammingWindow"},
    {"HannWindow", "HannWindow"},
    {"HardSigmoid", "HardSigmoid"},
    {"HardSwish", "HardSwish"},
    {"Hardmax", "HardMax"},
    {"Identity", "Identity"},
    {"If", "If"},  // control flow: the graph engine runs the branches, no ops-info entry
    {"InstanceNormalization", "InstanceNorm"},
    {"IsInf", "IsInf"},
    {"IsNaN", "IsNan"},
    {"LRN", "LRN"},
    {"LSTM", "DynamicRNN"},
    {"LSTMGrad", "DynamicRNNGrad"},  // backpropagation through time of LSTM
    {"LayerNormalization", "LayerNorm"},
    {"LayerNormalizationGrad", "LayerNormGrad"},
    {"LeakyRelu", "LeakyRelu"},
    {"LegacyAxisAlign", "Reshape"},  // OpenGE's opset < 7 broadcast axis: B reshaped with trailing 1-dims
    {"Less", "Less"},
    {"LessOrEqual", "LessEqual"},
    {"Log", "Log"},
    {"LogSoftmax", "LogSoftmaxV2"},
    {"Loop", "Loop"},  // CANN's ONNX parser keeps Loop (TF's while_loop arrives as While); graph engine
    {"LpNormalization", "LpNormV2"},
    {"LpPool", "LpPool"},
    {"MatMul", "MatMulV2"},  // BatchMatMulV2 above rank 2: same profile entry data
    {"MatMulInteger", "MatMulV2"},
    {"Max", "Maximum"},
    {"MaxPool", "MaxPoolV3"},
    {"MaxPoolGrad", "MaxPoolGrad"},
    {"MaxRoiPool", "ROIPooling"},
    {"MaxUnpool", "MaxUnpool"},
    {"Mean", "AccumulateNV2"},  // a sum, then a scale
    {"MeanVarianceNormalization", "MVNV2"},
    {"MelWeightMatrix", "MelWeightMatrix"},
    {"Min", "Minimum"},
    {"Mod", "Mod"},
    {"Momentum", "ApplyMomentum"},
    {"Mul", "Mul"},
    {"Multinomial", "Multinomial"},
    {"Neg", "Neg"},
    {"NegativeLogLikelihoodLoss", "NLLLoss"},
    {"NegativeLogLikelihoodLossGrad", "NLLLossGrad"},
    {"NonMaxSuppression", "NonMaxSuppressionV7"},
    {"NonZero", "NonZero"},
    {"Not", "LogicalNot"},
    {"OneHot", "OneHot"},
    {"OptimizerUpdate", "ApplyMomentum"},  // the Trainer's in-graph update: CANN's Apply* op of its rule; AI CPU here
    {"Optional", "Optional"},              // sequences, optionals: no Ascend name known
    {"OptionalGetElement", "OptionalGetElement"},  // sequences, optionals: no Ascend name known
    {"OptionalHasElement", "OptionalHasElement"},  // sequences, optionals: no Ascend name known
    {"Or", "LogicalOr"},
    {"PRelu", "PRelu"},
    {"Pad", "PadV3"},
    {"Pow", "Pow"},
    {"QLinearConv", "Conv2D"},
    {"QLinearConvAdd", "Conv2D"},
    {"QLinearMatMul", "MatMulV2"},
    {"QuantizeLinear", "AscendQuant"},
    {"RNN", "DynamicRNNV3"},
    {"RNNGrad", "DynamicRNNGrad"},  // backpropagation through time of RNN
    {"RandomNormal", "RandomStandardNormal"},
    {"RandomNormalLike", "RandomStandardNormal"},
    {"RandomUniform", "RandomUniform"},
    {"RandomUniformLike", "RandomUniform"},
    {"Range", "Range"},
    {"Reciprocal", "Reciprocal"},
    {"ReduceL1", "LpNorm"},
    {"ReduceL2", "LpNorm"},
    {"ReduceLogSum", "ReduceSum"},  // a sum, then a log: the sum is where precision goes
    {"ReduceLogSumExp", "ReduceLogSumExp"},
    {"ReduceMax", "ReduceMax"},
    {"ReduceMean", "ReduceMean"},
    {"ReduceMin", "ReduceMin"},
    {"ReduceProd", "ReduceProd"},
    {"ReduceSum", "ReduceSum"},
    {"ReduceSumSquare", "SquareSumV1"},
    {"Relu", "Relu"},
    {"Reshape", "Reshape"},
    {"Resize", "Resize"},  // ResizeBilinearV2 / ResizeNearestNeighborV2 by mode: same data
    {"ReverseSequence", "ReverseSequence"},
    {"RoiAlign", "ROIAlign"},
    {"Round", "Round"},
    {"STFT", "STFT"},
    {"Scan", "Scan"},  // control flow: graph engine
    {"Scatter", "ScatterElements"},
    {"ScatterElements", "ScatterElements"},
    {"ScatterND", "TensorScatterUpdate"},
    {"Selu", "Selu"},
    {"SequenceAt", "SequenceAt"},                // sequences, optionals: no Ascend name known
    {"SequenceConstruct", "SequenceConstruct"},  // sequences, optionals: no Ascend name known
    {"SequenceEmpty", "SequenceEmpty"},          // sequences, optionals: no Ascend name known
    {"SequenceErase", "SequenceErase"},          // sequences, optionals: no Ascend name known
    {"SequenceInsert", "SequenceInsert"},        // sequences, optionals: no Ascend name known
    {"SequenceLength", "SequenceLength"},        // sequences, optionals: no Ascend name known
    {"SequenceMap", "SequenceMap"},              // control flow: graph engine
    {"Shape", "Shape"},
    {"Shrink", "Shrink"},
    {"ShuffleChannel", "ShuffleChannel"},  // made by ShuffleChannelFusionPass; CANN has the op (Caffe's)
    {"Sigmoid", "Sigmoid"},
    {"Sign", "Sign"},
    {"Sin", "Sin"},
    {"Sinh", "Sinh"},
    {"Size", "Size"},
    {"Slice", "StridedSliceV2"},
    {"Softmax", "SoftmaxV2"},
    {"SoftmaxCrossEntropyLoss", "SoftmaxCrossEntropyLoss"},
    {"SoftmaxCrossEntropyLossGrad", "SoftmaxCrossEntropyWithLogits"},
    {"SoftmaxGrad", "SoftmaxGrad"},
    {"Softplus", "Softplus"},
    {"Softsign", "Softsign"},
    {"SpaceToDepth", "SpaceToDepth"},
    {"Split", "SplitV"},
    {"SplitToSequence", "SplitToSequence"},  // sequences, optionals: no Ascend name known
    {"Sqrt", "Sqrt"},
    {"Squeeze", "Squeeze"},
    {"StringNormalizer", "StringNormalizer"},  // no Ascend name known
    {"Sub", "Sub"},
    {"Sum", "AccumulateNV2"},
    {"SumToShape", "ReduceSumD"},
    {"Tan", "Tan"},
    {"Tanh", "Tanh"},
    {"TfIdfVectorizer", "TfIdfVectorizer"},  // no Ascend name known
    {"ThresholdedRelu", "ThresholdedRelu"},
    {"Tile", "Tile"},
    {"TopK", "TopKV2"},
    {"Transpose", "Transpose"},
    {"Trilu", "Triu"},
    {"Unique", "UniqueWithCountsAndSorting"},
    {"Unsqueeze", "Unsqueeze"},
    {"Upsample", "Resize"},
    {"Where", "SelectV2"},
    {"Xor", "LogicalXor"},
});

const OpTypeRow* find_row(std::string_view onnx) {
  static const bool sorted = std::is_sorted(kOpTypes.begin(), kOpTypes.end(),
                                            [](const OpTypeRow& a, const OpTypeRow& b) { return a.onnx < b.onnx; });
  if (!sorted) {  // a row added out of order: still correct, just slower
    for (const auto& r : kOpTypes)
      if (r.onnx == onnx) return &r;
    return nullptr;
  }
  auto it = std::lower_bound(kOpTypes.begin(), kOpTypes.end(), onnx,
                             [](const OpTypeRow& r, std::string_view n) { return r.onnx < n; });
  return it != kOpTypes.end() && it->onnx == onnx ? &*it : nullptr;
}

}  // namespace

std::string ascend_op_type(std::string_view onnx_op_type) {
  const OpTypeRow* row = find_row(onnx_op_type);
  return std::string(row ? row->ascend : onnx_op_type);
}

bool ascend_op_type_known(std::string_view onnx_op_type) { return find_row(onnx_op_type) != nullptr; }

}  // namespace openge::precision
