// The backward ops (domain "openge"): what gradient rules (ops/gradient.h) emit where no ONNX op
// computes a gradient directly. Each takes the forward node's attributes, so its geometry is the
// forward op's geometry (ops/nn/nn_window.h), and runs on the AI CPU engine in the compute type of
// the reference kernels (float, or double for float64).
//   SumToShape(x)                  sums x over the dims that broadcasting expanded to reach it;
//                                  attribute `shape`: the shape to reduce to
//   ActivationGrad(dY, Z)          attribute `activation`: relu (Z = Y), sigmoid (Z = Y), tanh (Z = Y),
//                                  leaky_relu (Z = X, `alpha`), erf (Z = X), gelu and gelu_tanh (Z = X)
//   SoftmaxGrad(dY, Y)             attributes axis, `log` (LogSoftmax), `flatten` (opset < 13 axis)
//   SoftmaxCrossEntropyLossGrad(dL, scores, labels[, weights])     -> dScores
//   NegativeLogLikelihoodLossGrad(dL, input, labels[, weights])    -> dInput
//   ConvGrad(dY, X, W)             -> dX, dW, dB (each output optional)
//   MaxPoolGrad(dY, X), AveragePoolGrad(dY, X) -> dX
//   BatchNormalizationGrad(dY, X, scale)       -> dX, dScale, dB (batch statistics: training mode)
//   LayerNormalizationGrad(dY, X, scale)       -> dX, dScale, dB
//   GatherGrad(dY, indices)        attribute `shape` (the data's): scatter-add of dY into zeros
//   LSTMGrad(X, W, R, B, initial_h, initial_c, dY, dY_h, dY_c) -> dX, dW, dR, dB, dInitial_h, dInitial_c
//   GRUGrad, RNNGrad(X, W, R, B, initial_h, dY, dY_h) -> dX, dW, dR, dB, dInitial_h (recurrent_grad.cpp:
//                                  backpropagation through time, the forward recomputed)
// and the training form of Dropout (dropout_train.cpp):
//   TrainingDropout(X, step_seed)  -> Y, mask (attributes ratio, salt: a seeded mask per step)
//   DropoutGrad(dY, mask)          -> dX
#pragma once
#include <vector>

#include "ops/op_registry.h"

namespace openge {

constexpr std::string_view kGradDomain = "openge";

void register_sum_to_shape_op(std::vector<OpSchema>& table);
void register_activation_grad_ops(std::vector<OpSchema>& table);
void register_loss_grad_ops(std::vector<OpSchema>& table);
void register_conv_grad_op(std::vector<OpSchema>& table);
void register_pool_grad_ops(std::vector<OpSchema>& table);
void register_norm_grad_ops(std::vector<OpSchema>& table);
void register_gather_grad_op(std::vector<OpSchema>& table);
void register_dropout_train_ops(std::vector<OpSchema>& table);
void register_recurrent_grad_ops(std::vector<OpSchema>& table);

}  // namespace openge
