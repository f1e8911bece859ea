#include "kernels/default_variant.h"

#include <dnnl.hpp>

#include "ops/op_context.h"

namespace openge {

bool winograd_available() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::avx512_core:
    case isa::avx512_core_vnni:
    case isa::avx512_core_bf16:
    case isa::avx512_core_amx: return true;
    default: return false;
  }
}

namespace {

// The smallest convolution Winograd is the default for (default_variant.h).
constexpr int64_t kMinChannels = 32;
constexpr int64_t kChannelMultiple = 16;   // oneDNN's Winograd kernel works on 16-channel blocks
constexpr int64_t kMinOutputPixels = 14 * 14;

bool all_ones(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != 1) return false;
  return true;
}

bool winograd_pays(const KernelRequest& r) {
  const Node& node = r.node;
  if ((node.op_type != "Conv" && node.op_type != "FusedConv") || high_precision_impl(node)) return false;
  if (r.inputs.size() < 2 || r.outputs.empty() || r.inputs[0].dtype != DType::kFloat32) return false;
  const ValueInfo& w = r.inputs[1];
  const ValueInfo& y = r.outputs[0];
  if (!w.shape_known || !y.shape_known || w.shape.size() != 4 || y.shape.size() != 4) return false;
  if (w.shape[2] != 3 || w.shape[3] != 3 || node.attrs.get_int("group", 1) != 1) return false;
  if (!all_ones(node.attrs.get_ints("strides")) || !all_ones(node.attrs.get_ints("dilations"))) return false;
  const int64_t oc = w.shape[0], ic = w.shape[1];
  if (oc < kMinChannels || ic < kMinChannels || oc % kChannelMultiple || ic % kChannelMultiple) return false;
  const bool channels_last = node.attrs.get_int("channels_last", 0) != 0;
  const int64_t pixels = channels_last ? y.shape[1] * y.shape[2] : y.shape[2] * y.shape[3];
  return pixels >= kMinOutputPixels;
}

}  // namespace

KernelVariant default_variant(const KernelRequest& request) {
  KernelVariant v;
  if (winograd_pays(request) && winograd_available()) {
    v.conv_algorithm = ConvAlgorithm::kWinograd;
    v.activations = ActivationLayout::kBlocked;
  }
  return v;
}

}  // namespace openge
