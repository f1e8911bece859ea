// ChannelsLastLayoutPass's one setting: whether regions whose channels are whole 16-channel
// blocks take NC1HWC0 instead of NHWC (channels_last_layout_pass.cpp). By default they do on
// CPUs where oneDNN runs AVX-512 kernels; tests fix it to cover both forms on any CPU.
#pragma once

namespace openge::passes {

enum class Nc1hwc0Regions { kByCpu, kAlways, kNever };

// Process-wide; the pass reads it each time it runs.
void set_nc1hwc0_regions(Nc1hwc0Regions setting);

}  // namespace openge::passes
