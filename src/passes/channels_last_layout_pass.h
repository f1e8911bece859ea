// What ChannelsLastLayoutPass shares with the rest of the engine: the small-channel stem bound,
// AOE's name for its NC1HWC0 choice, and the formats of the values it rewrote. Its settings (may
// regions take NC1HWC0, does the stem join, what dtype each node will compute in) come with each
// run in the PassContext (passes/pass_context.h); the choice between NHWC and NC1HWC0 reads them
// with the ISA and cost table of kernels/conv_format_costs.h it also carries.
#pragma once
#include <vector>

#include "ir/graph.h"
#include "ops/layout/activation_format.h"

namespace openge::passes {

// enable_small_channel (PassContext::small_channel_stem): whether a convolution over at most
// kSmallChannels input channels that reads an activation from outside every region (a network's
// RGB stem) joins the region after it (on: it reads its N x C x H x W input as it is in NC1HWC0, or
// through a transpose of those few channels in NHWC) or stays out of it (off: it runs in NCHW and
// its wide output is converted into the region's format).
inline constexpr int64_t kSmallChannels = 4;

// AOE subgraph tuning (aoe_mode 1) measures the graph without each pass that rewrote it, and
// without NC1HWC0 regions (NHWC in their place) under this name in its list of passes off.
inline constexpr const char* kNc1hwc0Choice = "Nc1hwc0Regions";

// The format each value of a graph the pass rewrote is stored in, indexed by value: read back
// from the ops that declare one (FusedConv's attributes, the pools' prefixes, the conversions
// into a format) and carried through the ops that compute in their operands' format. Dumps use it
// to write the model's N x C x H x W view; profiles to name the format.
std::vector<ActivationFormat> stored_formats(const Graph& g);

}  // namespace openge::passes
