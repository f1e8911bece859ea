// The plan of a Resize / Upsample node, shared by the reference kernel (nn_resize.cpp) and the
// AI Core bilinear kernel (kernels/bilinear_resize_kernel.cpp), so that both map every output
// coordinate to the same input neighbours and weights: the modes read from the attributes, the
// output shape and per-dim scales from X's shape and the scales / sizes / roi values, and one
// table per dim of the neighbours each output coordinate reads.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class CoordMode { kHalfPixel, kAsymmetric, kAlignCorners, kPytorchHalfPixel, kTfHalfPixelForNn, kTfCropAndResize };
// kSimple is the pre-opset-11 rule (Upsample, Resize-10): floor when upsampling, ceil when downsampling.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizePlan {
  ResizeMode mode = ResizeMode::kNearest;
  CoordMode coord = CoordMode::kAsymmetric;
  NearestMode nearest = NearestMode::kSimple;
  std::vector<double> scales;              // per dim, as the coordinate transform uses them
  std::vector<double> roi_start, roi_end;  // tf_crop_and_resize only
  float extrapolation_value = 0.0f;
  double cubic_coeff_a = -0.75;  // cubic mode: Keys' a
  bool exclude_outside = false;  // cubic mode: taps outside the input get weight 0 (renormalised)
  Shape output;
};

// Which inputs hold what, by op and opset (-1: none).
struct ResizeInputs {
  int roi = -1, scales = -1, sizes = -1;
};
ResizeInputs resize_inputs(std::string_view op, int64_t opset);

// Reads the mode attributes (no inputs needed).
Status read_resize_modes(const Attributes& attrs, std::string_view op, int64_t opset, ResizePlan* plan);

// Completes the plan from X's shape and the scales/sizes/roi values (nullptr = input absent);
// `scale_attr`: Upsample-7's scales attribute, else nullptr.
Status plan_resize_shape(const Shape& x, const Tensor* scales, const Tensor* sizes, const Tensor* roi,
                         const std::vector<float>* scale_attr, ResizePlan* plan);

// The whole plan of a node: its modes, then the output shape from X's shape and its inputs'
// values (`value(i)`: the tensor of input i, nullptr when the input is absent).
Status make_resize_plan(const Node& node, int64_t opset, const Shape& x, const std::function<const Tensor*(int)>& value,
                        ResizePlan* plan);

// Per dim and output index: the neighbours i0/i1 (i1 == i0 for nearest), the weight of i1, and
// whether the coordinate is outside the input (tf_crop_and_resize extrapolation). Cubic mode
// uses the four taps floor(x)-1 .. floor(x)+2 (clamped: ONNX pads the input with its edge) and
// their weights instead, with i0 the tap at floor(x).
struct AxisTable {
  std::vector<int64_t> i0, i1;
  std::vector<double> w1;
  std::vector<std::array<int64_t, 4>> cubic_taps;
  std::vector<std::array<double, 4>> cubic_w;
  std::vector<uint8_t> outside;
  bool interpolates = false;  // some w1 != 0: this dim needs two neighbours
};
// The table of dim `d` (input size `in`, output size `out`).
AxisTable axis_table(const ResizePlan& p, size_t d, int64_t in, int64_t out);

}  // namespace openge
