// ShuffleChannel: output channel i * g + j is input channel j * (C / g) + i. The expected values
// are written out by hand from that rule; the NHWC form must give the NCHW result's elements in
// NHWC order.
#include <gtest/gtest.h>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

Node shuffle(int64_t group, int64_t channels_last = 0) {
  Node n = make_node("ShuffleChannel", 1);
  n.domain = "openge";
  set_int(n, "group", group);
  set_int(n, "channels_last", channels_last);
  return n;
}

TEST(OpShuffleChannel, Nchw_SixChannelsInTwoGroupsInterleaveTheHalves) {
  // N=1, C=6, H=1, W=2; channel c holds 10c and 10c+1. Halves (0,1,2) and (3,4,5) interleave:
  // output channels are input channels 0,3,1,4,2,5.
  const Tensor x = f32({1, 6, 1, 2}, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51});
  const Tensor y = run_ok(shuffle(2), {&x});
  EXPECT_EQ(y.shape(), (Shape{1, 6, 1, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 1, 30, 31, 10, 11, 40, 41, 20, 21, 50, 51}));
}

TEST(OpShuffleChannel, Nchw_ThreeGroupsOfTwo) {
  // C=6, g=3: groups (0,1) (2,3) (4,5); output channels 0,2,4,1,3,5.
  const Tensor x = f32({1, 6, 1, 1}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(values(run_ok(shuffle(3), {&x})), (std::vector<double>{0, 2, 4, 1, 3, 5}));
}

TEST(OpShuffleChannel, Nhwc_FourGroupsOfTwo) {
  // C=8, g=4 (the unrolled four-stream path): groups (0,1) (2,3) (4,5) (6,7) -> 0,2,4,6,1,3,5,7.
  const Tensor x = f32({1, 1, 1, 8}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(values(run_ok(shuffle(4, 1), {&x})), (std::vector<double>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(OpShuffleChannel, Nhwc_ShufflesTheLastAxisOfEveryPixel) {
  // Two pixels (H=1, W=2), C=4, g=2: output channels 0,2,1,3 at each pixel.
  const Tensor x = f32({1, 1, 2, 4}, {0, 1, 2, 3, 10, 11, 12, 13});
  EXPECT_EQ(values(run_ok(shuffle(2, 1), {&x})), (std::vector<double>{0, 2, 1, 3, 10, 12, 11, 13}));
}

TEST(OpShuffleChannel, TwoByteElementsAndWideRunsTakeTheSameRule) {
  const Tensor h = f16({1, 4, 1, 1}, {0, 1, 2, 3});  // 2-byte units
  EXPECT_EQ(values(run_ok(shuffle(2), {&h})), (std::vector<double>{0, 2, 1, 3}));
  const Tensor w = f32({1, 4, 1, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});  // 12-byte runs
  EXPECT_EQ(values(run_ok(shuffle(2), {&w})), (std::vector<double>{0, 1, 2, 20, 21, 22, 10, 11, 12, 30, 31, 32}));
}

TEST(OpShuffleChannel, AGroupThatDoesNotDivideTheChannelsIsAnErrorNamingBoth) {
  const Tensor x = f32({1, 6, 1, 1}, {0, 1, 2, 3, 4, 5});
  auto r = run_node(shuffle(4), {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("group 4"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("6 channels"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace openge::testing
