// A small CNN for the tests of NC1HWC0 regions (ChannelsLastLayoutPass, ops/layout/activation_format.h)
// and of what dumps and profiles say about them, and the pass's settings fixed for a test.
#pragma once
#include "../kernels/kernel_test_util.h"
#include "pass_test_util.h"
#include "passes/channels_last_layout_pass.h"

namespace openge::testing {

// The passes' settings with the layout pass's NC1HWC0 choice and small-channel stem fixed.
inline PassContext layout(passes::Nc1hwc0Regions regions, bool small_channel_stem = true) {
  PassContext context;
  context.nc1hwc0_regions = regions;
  context.small_channel_stem = small_channel_stem;
  return context;
}

inline Attributes same_pads(int64_t k) { return ints_attr("pads", {k / 2, k / 2, k / 2, k / 2}); }

inline int conv(GraphBuilder& b, int x, int64_t in, int64_t out, int64_t k, uint32_t seed) {
  return b.node("Conv",
                {x, b.constant("w" + std::to_string(seed), random_tensor({out, in, k, k}, seed)),
                 b.constant("b" + std::to_string(seed), random_tensor({out}, seed + 100))},
                same_pads(k));
}

// RGB stem -> MaxPool -> residual block -> two branches joined by a Concat along C -> global
// pool. `width`: the channels everywhere after the stem (the branches take half each).
inline Graph cnn(int64_t width, bool squeeze_excite = false) {
  GraphBuilder b;
  const int x = b.input("x", {1, 3, 20, 20});
  int y = b.node("Relu", {conv(b, x, 3, width, 3, 1)});
  y = b.node("MaxPool", {y}, ints_attr("kernel_shape", {3, 3}, ints_attr("strides", {2, 2}, same_pads(3))));
  const int skip = y;
  y = b.node("Add", {conv(b, y, width, width, 3, 2), skip});
  y = b.node("Relu", {y});
  if (squeeze_excite) {
    int gate = b.node("GlobalAveragePool", {y});
    gate = b.node("Sigmoid", {conv(b, gate, width, width, 1, 3)});
    y = b.node("Mul", {y, gate});
  }
  const int left = conv(b, y, width, width / 2, 1, 4), right = conv(b, y, width, width / 2, 3, 5);
  Attributes axis = int_attr("axis", 1);
  y = b.node("Concat", {b.node("Relu", {left}), b.node("Relu", {right})}, axis);
  y = b.node("GlobalAveragePool", {y});
  b.g.outputs = {b.node("Flatten", {y})};
  return std::move(b.g);
}

inline const std::vector<Tensor>& cnn_input() {
  static const std::vector<Tensor> in{random_tensor({1, 3, 20, 20}, 7)};
  return in;
}

}  // namespace openge::testing
