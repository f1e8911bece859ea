// The implementation a kernel is built with when nothing was tuned: KernelVariant{} except
// where the engine has a faster one for the node's shapes. AOE operator tuning measures the
// others against it (aoe/tuning_space.h), and a knowledge-base entry overrides it.
#pragma once
#include "ops/kernel.h"

namespace openge {

// - A float32 3x3 convolution of stride 1, no dilation, no groups, at least 32 input and 32
//   output channels (multiples of 16) and an output of at least 14x14 runs oneDNN's Winograd
//   algorithm on blocked activations, on CPUs with AVX-512 (where oneDNN has that kernel), unless
//   the node's impl mode is high_precision: AOE measured it 1.1-1.9x faster than the direct
//   algorithm on every such convolution of ResNet-18/50, DenseNet-121 and SqueezeNet at 1 and 2
//   threads, with outputs as close to ONNX Runtime's (bench/RESULTS.md, "Winograd by default").
//   Winograd's transformed weights are larger than the kernels: ResNet-50's peak memory grows
//   from 140 to 160 MiB. Its last stage (7x7 outputs at 512 channels) was 8-12% faster with
//   Winograd at 2 threads and no faster at 1, for another 25 MiB: left direct.
// - Everything else: KernelVariant{}.
KernelVariant default_variant(const KernelRequest& request);

// True on CPUs where oneDNN has its float32 Winograd convolution (AVX-512).
bool winograd_available();

}  // namespace openge
