// Internal ops that fusion passes create (domain "openge"). They are ordinary rows of the op
// table, so the AI CPU engine can always run them, and the AI Core engine maps each to one
// oneDNN primitive with post-ops.
//
//   FusedConv(X, W, [B], [Z]) = act(Conv(X, W, B) + Z)   attributes: Conv's + the ones below
//   FusedMatMul(A, B, [bias], [Z]) = act(MatMul(A, B) + bias + Z)
//       bias has shape [N] (added along the last axis); Z has the output's shape.
//
//   Gelu(X) = X/2 * (1 + erf(X / sqrt 2)), elementwise (GeluONNXFusionPass makes it)
//
// The pools of a layout region keep their ONNX op type in this domain, with a data_format
// attribute (NHWC, NC1HWC0) that says how input 0 and output 0 are stored
// (ops/layout/in_formats.h).
//
// Extra attributes:
//   activation        string: "" (none) or a name from kActivations (ONNX op names, "Gelu"
//                     for the erf form x/2 * (1 + erf(x / sqrt 2)), "Swish" for x * Sigmoid(x))
//   activation_alpha  float:  LeakyRelu's alpha, Clip's min, HardSigmoid's alpha
//   activation_beta   float:  Clip's max, HardSigmoid's beta
//   channels_last     int:    FusedConv only; 1 = X, Z and Y are N x H x W x C (their values'
//                             shapes say so too), W and B stay in ONNX layout. Made by
//                             ChannelsLastLayoutPass, because oneDNN's direct and depthwise
//                             convolutions are several times faster on NHWC than on NCHW.
//   nc1hwc0           int:    FusedConv only; 1 = X, Z and Y are N x C1 x H x W x C0 (C0 = 16,
//                             ops/layout/activation_format.h); 2 = X stays N x C x H x W, Z and Y are
//                             NC1HWC0. Made by ChannelsLastLayoutPass for regions whose channels
//                             are whole 16-channel blocks, on CPUs with 16-float vectors.
// The residual Z is added before the activation (Conv -> Add -> Relu, as in ResNet).
#pragma once
#include <cmath>
#include <string>
#include <string_view>

#include "ir/graph.h"

namespace openge {

inline constexpr const char* kFusedDomain = "openge";
inline constexpr const char* kFusedConv = "FusedConv";
inline constexpr const char* kFusedMatMul = "FusedMatMul";
// Gelu(X) = X/2 * (1 + erf(X / sqrt 2)), elementwise, any float dtype (GeluONNXFusionPass).
inline constexpr const char* kFusedGelu = "Gelu";

enum class Activation { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh, kGelu, kHardSigmoid, kSwish, kHardSwish };

struct FusedActivation {
  Activation kind = Activation::kNone;
  float alpha = 0;  // LeakyRelu alpha; Clip min; HardSigmoid alpha
  float beta = 0;   // Clip max; HardSigmoid beta
};

// Name <-> kind, one row per activation the fused ops know.
struct ActivationRow {
  std::string_view name;
  Activation kind;
};
inline constexpr ActivationRow kActivations[] = {
    {"Relu", Activation::kRelu},
    {"LeakyRelu", Activation::kLeakyRelu},
    {"Clip", Activation::kClip},
    {"Sigmoid", Activation::kSigmoid},
    {"Tanh", Activation::kTanh},
    {"Gelu", Activation::kGelu},
    {"HardSigmoid", Activation::kHardSigmoid},
    {"Swish", Activation::kSwish},
    {"HardSwish", Activation::kHardSwish},
};

// Reads the activation attributes; an error for an unknown name.
Result<FusedActivation> read_fused_activation(const Attributes& attrs);
// Writes them onto a fused node.
void write_fused_activation(Node& node, const FusedActivation& act);

inline float clamp_unit(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

// The activation on one value (the reference engine's definition).
inline float apply_activation(const FusedActivation& a, float x) {
  switch (a.kind) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0 ? x : 0.0f;
    case Activation::kLeakyRelu:
      return x >= 0 ? x : a.alpha * x;
    case Activation::kClip:
      return x < a.alpha ? a.alpha : (x > a.beta ? a.beta : x);
    case Activation::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kGelu:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Activation::kHardSigmoid:
      return clamp_unit(a.alpha * x + a.beta);
    // x * Sigmoid(x) (SiLU), as the Sigmoid -> Mul pair it replaces computes it.
    case Activation::kSwish:
      return x * (1.0f / (1.0f + std::exp(-x)));
    case Activation::kHardSwish:
      return x * clamp_unit(x * (1.0f / 6.0f) + 0.5f);
  }
  return x;
}

}  // namespace openge
