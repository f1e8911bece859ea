// The implementation a kernel is built with when nothing was tuned: KernelVariant{} except
// where the engine has a faster one for the node's shapes. AOE operator tuning measures the
// others against it (aoe/tuning_space.h), and a knowledge-base entry overrides it.
#pragma once
#include "kernels/compiled_kernel.h"

namespace openge {

// - A float32 3x3 convolution of stride 1, no dilation, no groups, at least 32 input and 32
//   output channels (multiples of 16) and an output of at least 14x14 (7x7 with 256 channels or
//   more on both sides) runs oneDNN's Winograd
//   algorithm on blocked activations, on CPUs with AVX-512 (where oneDNN has that kernel), unless
//   the node's impl mode is high_precision: AOE measured it 1.1-1.9x faster than the direct
//   algorithm on such convolutions of ResNet-18/50, DenseNet-121 and SqueezeNet at 1 and 2
//   threads, with outputs as close to ONNX Runtime's (bench/RESULTS.md, "Winograd by default");
//   smaller ones (SqueezeNet's 13x13 at 64 channels, DenseNet's 7x7 at 128) measured no faster.
// - Everything else: KernelVariant{}.
KernelVariant default_variant(const KernelRequest& request);

// True on CPUs where oneDNN has its float32 Winograd convolution (AVX-512).
bool winograd_available();

}  // namespace openge
