// Which of an AI Core kernel's implementations to build. Kernel selection builds the default
// variant; AOE operator tuning (src/aoe/) measures the others the engine has for a node and the
// knowledge base stores the winner, which selection then builds instead. A factory reads only
// the fields that concern its op; a variant it cannot build (no Winograd for these shapes on
// this CPU) gives no kernel, and the tuner drops that candidate.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openge {

// oneDNN's convolution algorithms (Winograd exists in oneDNN 2.x for 3x3 stride-1 float32
// convolutions on AVX-512 CPUs only, on blocked activations).
enum class ConvAlgorithm : uint8_t { kDirect, kWinograd };
// A convolution's activations: in the graph's layout (NCHW, or NHWC / NC1HWC0 after the
// channels-last pass), or reordered around the primitive into the blocked layout oneDNN picks
// (nChw16c …), or into NHWC (oneDNN's brgemm convolutions, faster than its nChw16c ones on
// small images with many channels).
enum class ActivationLayout : uint8_t { kGraph, kBlocked, kChannelsLast };
// Constant matmul weights: reordered into the layout oneDNN's primitive prefers (blocked), or
// kept plain (row-major), which some gemm paths read faster.
enum class WeightLayout : uint8_t { kPacked, kPlain };
// Threads of the node: as the grain table decides (compiler/op_grain.h), the whole team, or the
// calling thread alone.
enum class ThreadPlan : uint8_t { kByGrain, kTeam, kSingle };

struct KernelVariant {
  ConvAlgorithm conv_algorithm = ConvAlgorithm::kDirect;
  ActivationLayout activations = ActivationLayout::kGraph;
  WeightLayout weights = WeightLayout::kPacked;
  ThreadPlan threads = ThreadPlan::kByGrain;
  bool operator==(const KernelVariant&) const = default;
};

// "conv_algorithm=winograd,activations=blocked,weights=packed,threads=single": how records and the knowledge base
// spell a variant; parse_kernel_variant reads it back (nullopt for anything else).
std::string to_string(const KernelVariant& v);
std::optional<KernelVariant> parse_kernel_variant(std::string_view text);

}  // namespace openge
