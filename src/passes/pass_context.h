// What a compile tells the graph passes beyond the graph itself. The compiler fills it from the
// session's options, AOE's candidate and the precision setup (compiler/graph_rewrite.cpp) and
// hands it to every pass it runs: a pass reads its settings here and nowhere else, so two compiles
// on one thread, or one compile's subgraphs, never see each other's settings.
#pragma once
#include <functional>
#include <vector>

#include "kernels/conv_format_costs.h"
#include "openge/dtype.h"

namespace openge {

struct Graph;

namespace passes {

// Whether ChannelsLastLayoutPass may give a region whose channels are whole 16-channel blocks the
// NC1HWC0 format instead of NHWC: where the cost table says it pays on this CPU (kByCpu), wherever
// it can (kAlways: tests, bench/layout_ab.cpp), or never (AOE's NHWC candidate).
enum class Nc1hwc0Regions { kByCpu, kAlways, kNever };

// The dtype each node of a graph will compute in, indexed by node (kUndefined: its own). The
// layout pass runs before the precision pass and prices a region's formats by the dtype each
// convolution will compute in, so the compiler hands in the precision pass's decision, predicted.
using ComputeDtypes = std::function<std::vector<DType>(const Graph&)>;

}  // namespace passes

struct PassContext {
  passes::Nc1hwc0Regions nc1hwc0_regions = passes::Nc1hwc0Regions::kByCpu;
  // enable_small_channel: whether a small-channel stem convolution joins the layout region after
  // it (passes/channels_last_layout_pass.h).
  bool small_channel_stem = true;
  // Empty: each node computes in its outputs' dtype.
  passes::ComputeDtypes compute_dtypes;
  // The ISA and format cost table the layout pass prices a region's convolutions by.
  IsaCosts costs = isa_costs();
};

}  // namespace openge
