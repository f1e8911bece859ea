// The memory formats a 4-D activation can take inside the engine, and the conversions between
// them. ONNX defines NCHW; ChannelsLastLayoutPass moves regions of convolutions into
//   NHWC     N x H x W x C, or
//   NC1HWC0  N x C1 x H x W x C0 with C0 = 16 and C1 = C / 16: CANN's 5-D format, oneDNN's
//            nChw16c. One 16-channel block of a pixel is one AVX-512 register, and a
//            concatenation of whole blocks along C is a concatenation of contiguous slices.
// The stored value's shape always says which (its rank and dim order), so every op reading it
// knows the layout from the shape and the node's own declaration: FusedConv's channels_last /
// nc1hwc0 attributes, and the pools' data_format attribute (ops/layout/in_formats.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ir/graph.h"

namespace openge {

enum class ActivationFormat : uint8_t { kNchw, kNhwc, kNc1hwc0 };

// NC1HWC0's block of channels.
inline constexpr int64_t kC0 = 16;

// "NCHW", "NHWC", "NC1HWC0" (as CANN names them).
std::string_view format_name(ActivationFormat f);

// The stored shape of an N x C x H x W activation in `f` (C a multiple of kC0 for NC1HWC0).
Shape stored_shape(const Shape& nchw, ActivationFormat f);
// The N x C x H x W shape of a stored one; nullopt when `stored` cannot be in `f`.
std::optional<Shape> nchw_shape(const Shape& stored, ActivationFormat f);

// Copies the N x C x H x W tensor `src` into `dst` (shaped stored_shape(src, f)), and back.
void copy_from_nchw(const Tensor& src, Tensor& dst, ActivationFormat f);
void copy_to_nchw(const Tensor& src, Tensor& dst, ActivationFormat f);

// FusedConv's formats, from its attributes: channels_last = 1 (X, Z, Y in NHWC), nc1hwc0 = 1
// (X, Z, Y in NC1HWC0) or 2 (X stays NCHW, Z and Y in NC1HWC0: a region's first convolution
// whose input channels are not whole blocks, such as an RGB stem).
struct ConvFormats {
  ActivationFormat x = ActivationFormat::kNchw;
  ActivationFormat y = ActivationFormat::kNchw;
};
ConvFormats conv_formats(const Attributes& attrs);

// The ONNX op an internal form grew from: "Fused" dropped ("FusedConv" -> "Conv").
std::string_view unprefixed_op_type(std::string_view op_type);

}  // namespace openge
