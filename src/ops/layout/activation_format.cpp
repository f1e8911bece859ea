#include "ops/layout/activation_format.h"

#include <array>
#include <string>

#include "ops/shape/shape_strided_copy.h"

namespace openge {
namespace {

// The strides (in elements) to read an N x C x H x W tensor as `f`'s stored dims, and to read a
// stored one as [N, C1, C0, H, W] (NC1HWC0) or N x C x H x W (NHWC).
std::vector<int64_t> nchw_read_as_stored(const Shape& s, ActivationFormat f) {
  const int64_t c = s[1], h = s[2], w = s[3];
  if (f == ActivationFormat::kNhwc) return {c * h * w, w, 1, h * w};
  return {c * h * w, kC0 * h * w, w, 1, h * w};
}
std::vector<int64_t> stored_read_as_nchw(const Shape& s, ActivationFormat f) {
  if (f == ActivationFormat::kNhwc) {
    const int64_t h = s[1], w = s[2], c = s[3];
    return {h * w * c, 1, w * c, c};
  }
  const int64_t c1 = s[1], h = s[2], w = s[3];
  return {c1 * h * w * kC0, h * w * kC0, 1, w * kC0, kC0};
}

}  // namespace

std::string_view format_name(ActivationFormat f) {
  switch (f) {
    case ActivationFormat::kNhwc:
      return "NHWC";
    case ActivationFormat::kNc1hwc0:
      return "NC1HWC0";
    case ActivationFormat::kNchw:
      break;
  }
  return "NCHW";
}

Shape stored_shape(const Shape& s, ActivationFormat f) {
  switch (f) {
    case ActivationFormat::kNhwc:
      return {s[0], s[2], s[3], s[1]};
    case ActivationFormat::kNc1hwc0:
      return {s[0], s[1] / kC0, s[2], s[3], kC0};
    case ActivationFormat::kNchw:
      break;
  }
  return s;
}

std::optional<Shape> nchw_shape(const Shape& s, ActivationFormat f) {
  switch (f) {
    case ActivationFormat::kNhwc:
      if (s.size() != 4) return std::nullopt;
      return Shape{s[0], s[3], s[1], s[2]};
    case ActivationFormat::kNc1hwc0:
      if (s.size() != 5 || s[4] != kC0) return std::nullopt;
      return Shape{s[0], s[1] * kC0, s[2], s[3]};
    case ActivationFormat::kNchw:
      break;
  }
  if (s.size() != 4) return std::nullopt;
  return s;
}

void copy_from_nchw(const Tensor& src, Tensor& dst, ActivationFormat f) {
  strided_copy(src.raw(), dst.raw(), dtype_size(src.dtype()), dst.shape(), nchw_read_as_stored(src.shape(), f));
}

void copy_to_nchw(const Tensor& src, Tensor& dst, ActivationFormat f) {
  const Shape& s = src.shape();
  // NC1HWC0 is read as [N, C1, C0, H, W], which is N x C x H x W in memory order.
  const Shape view = f == ActivationFormat::kNc1hwc0 ? Shape{s[0], s[1], kC0, s[2], s[3]} : dst.shape();
  strided_copy(src.raw(), dst.raw(), dtype_size(src.dtype()), view, stored_read_as_nchw(s, f));
}

ConvFormats conv_formats(const Attributes& attrs) {
  if (attrs.get_int("channels_last", 0) != 0) return {ActivationFormat::kNhwc, ActivationFormat::kNhwc};
  switch (attrs.get_int("nc1hwc0", 0)) {
    case 1:
      return {ActivationFormat::kNc1hwc0, ActivationFormat::kNc1hwc0};
    case 2:
      return {ActivationFormat::kNchw, ActivationFormat::kNc1hwc0};
    default:
      return {};
  }
}

std::string_view unprefixed_op_type(std::string_view op_type) {
  constexpr std::string_view kFused = "Fused";
  if (op_type.substr(0, kFused.size()) == kFused) op_type.remove_prefix(kFused.size());
  return op_type;
}

}  // namespace openge
