// ChannelsLastLayoutPass's settings, and the formats of the values it rewrote. The settings:
// whether regions whose channels are whole 16-channel blocks may take NC1HWC0 instead of NHWC
// (channels_last_layout_pass.cpp); the dtype each node will compute in, which the choice between
// the two reads with the ISA and cost table of kernels/conv_format_costs.h (isa_costs()) and
// which the precision pass decides after this pass. Tests fix each of them.
#pragma once
#include <functional>
#include <vector>

#include "ir/graph.h"
#include "kernels/conv_format_costs.h"
#include "ops/layout/activation_format.h"

namespace openge::passes {

enum class Nc1hwc0Regions { kByCpu, kAlways, kNever };

// For the compiles of the calling thread (a compile runs its passes on the thread that asked
// for it); the pass reads it each time it runs.
void set_nc1hwc0_regions(Nc1hwc0Regions setting);
Nc1hwc0Regions nc1hwc0_regions();

// The setting for the lifetime of this object, then the one before it again.
class ScopedNc1hwc0Regions {
 public:
  explicit ScopedNc1hwc0Regions(Nc1hwc0Regions setting) : before_(nc1hwc0_regions()) { set_nc1hwc0_regions(setting); }
  ~ScopedNc1hwc0Regions() { set_nc1hwc0_regions(before_); }
  ScopedNc1hwc0Regions(const ScopedNc1hwc0Regions&) = delete;
  ScopedNc1hwc0Regions& operator=(const ScopedNc1hwc0Regions&) = delete;

 private:
  Nc1hwc0Regions before_;
};

// enable_small_channel: whether a convolution over at most kSmallChannels input channels that reads
// an activation from outside every region (a network's RGB stem) joins the region after it (on:
// it reads its N x C x H x W input as it is in NC1HWC0, or through a transpose of those few
// channels in NHWC) or stays out of it (off: it runs in NCHW and its wide output is converted into
// the region's format). On by default here; the compiler fixes it from the option per compile.
inline constexpr int64_t kSmallChannels = 4;
void set_small_channel_stem(bool on);
bool small_channel_stem();

class ScopedSmallChannelStem {
 public:
  explicit ScopedSmallChannelStem(bool on) : before_(small_channel_stem()) { set_small_channel_stem(on); }
  ~ScopedSmallChannelStem() { set_small_channel_stem(before_); }
  ScopedSmallChannelStem(const ScopedSmallChannelStem&) = delete;
  ScopedSmallChannelStem& operator=(const ScopedSmallChannelStem&) = delete;

 private:
  bool before_;
};

// The dtype each node of a graph will compute in, indexed by node (kUndefined: its own). The
// compiler hands in the precision pass's decision; without one, each node computes in its
// outputs' dtype.
using ComputeDtypes = std::function<std::vector<DType>(const Graph&)>;

// For the compiles of the calling thread, for the lifetime of this object.
class ScopedComputeDtypes {
 public:
  explicit ScopedComputeDtypes(ComputeDtypes predict);
  ~ScopedComputeDtypes();
  ScopedComputeDtypes(const ScopedComputeDtypes&) = delete;
  ScopedComputeDtypes& operator=(const ScopedComputeDtypes&) = delete;

 private:
  ComputeDtypes before_;
};

// AOE subgraph tuning (aoe_mode 1) measures the graph without each pass that rewrote it, and
// without NC1HWC0 regions (NHWC in their place) under this name in its list of passes off.
inline constexpr const char* kNc1hwc0Choice = "Nc1hwc0Regions";

// The format each value of a graph the pass rewrote is stored in, indexed by value: read back
// from the ops that declare one (FusedConv's attributes, the pools' prefixes, the conversions
// into a format) and carried through the ops that compute in their operands' format. Dumps use it
// to write the model's N x C x H x W view; profiles to name the format.
std::vector<ActivationFormat> stored_formats(const Graph& g);

}  // namespace openge::passes
