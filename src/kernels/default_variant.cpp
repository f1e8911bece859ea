#include "kernels/default_variant.h"

#include <dnnl.hpp>

#include "ops/layout/activation_format.h"
#include "ops/op_context.h"

namespace openge {

bool winograd_available() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::avx512_core:
    case isa::avx512_core_vnni:
    case isa::avx512_core_bf16:
    case isa::avx512_core_amx:
      return true;
    default:
      return false;
  }
}

namespace {

// The smallest convolution Winograd is the default for (default_variant.h).
constexpr int64_t kMinChannels = 32;
constexpr int64_t kChannelMultiple = 16;  // oneDNN's Winograd kernel works on 16-channel blocks
constexpr int64_t kMinOutputPixels = 14 * 14;

bool all_ones(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != 1) return false;
  return true;
}

// A float32 convolution's output pixels (H x W, whatever its stored format); -1 for anything else.
int64_t conv_output_pixels(const KernelRequest& r) {
  const Node& node = r.node;
  if ((node.op_type != "Conv" && node.op_type != "FusedConv") || r.outputs.empty() || !r.outputs[0].shape_known ||
      r.inputs.empty() || r.inputs[0].dtype != DType::kFloat32)
    return -1;
  const auto y = nchw_shape(r.outputs[0].shape, conv_formats(node.attrs).y);
  return y ? (*y)[2] * (*y)[3] : -1;
}

bool winograd_pays(const KernelRequest& r) {
  const Node& node = r.node;
  if ((node.op_type != "Conv" && node.op_type != "FusedConv") || high_precision_impl(node)) return false;
  if (r.inputs.size() < 2 || r.outputs.empty() || r.inputs[0].dtype != DType::kFloat32) return false;
  const ValueInfo& w = r.inputs[1];
  if (!w.shape_known || w.shape.size() != 4) return false;
  if (w.shape[2] != 3 || w.shape[3] != 3 || node.attrs.get_int("group", 1) != 1) return false;
  if (!all_ones(node.attrs.get_ints("strides")) || !all_ones(node.attrs.get_ints("dilations"))) return false;
  const int64_t oc = w.shape[0], ic = w.shape[1];
  if (oc < kMinChannels || ic < kMinChannels || oc % kChannelMultiple || ic % kChannelMultiple) return false;
  return conv_output_pixels(r) >= kMinOutputPixels;
}

// A direct convolution with a window larger than 1x1 on NC1HWC0 activations, with an output
// smaller than Winograd's smallest.
bool nhwc_staging_pays(const KernelRequest& r) {
  if (conv_formats(r.node.attrs).y != ActivationFormat::kNc1hwc0 || r.inputs.size() < 2 || !r.inputs[1].shape_known ||
      r.inputs[1].shape.size() != 4 || (r.inputs[1].shape[2] == 1 && r.inputs[1].shape[3] == 1))
    return false;
  const int64_t pixels = conv_output_pixels(r);
  return pixels > 0 && pixels < kMinOutputPixels;
}

}  // namespace

KernelVariant default_variant(const KernelRequest& request) {
  KernelVariant v;
  if (winograd_pays(request) && winograd_available()) {
    v.conv_algorithm = ConvAlgorithm::kWinograd;
    v.activations = ActivationLayout::kBlocked;
  } else if (nhwc_staging_pays(request)) {
    v.activations = ActivationLayout::kChannelsLast;
  }
  return v;
}

}  // namespace openge
