// The shared window geometry (ops/nn/nn_window.h) that Conv, pools and the oneDNN kernels use.
#include <gtest/gtest.h>

#include "ops/nn/nn_window.h"
#include "op_test_util.h"

namespace openge::testing {
namespace {

Attributes attrs_of(const Node& n) { return n.attrs; }

TEST(NnWindow, ExplicitPadsStridesDilations) {
  Node n = make_node("MaxPool", 1);
  set_ints(n, "kernel_shape", {3, 2});
  set_ints(n, "strides", {2, 1});
  set_ints(n, "dilations", {1, 3});
  set_ints(n, "pads", {1, 0, 2, 1});
  auto p = read_window_params(attrs_of(n), 2, nullptr, true);
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto g = resolve_window(*p, {10, 7});
  ASSERT_TRUE(g.ok()) << g.status().message();
  // dim 0: (10 + 3 - 3) / 2 + 1 = 6; dim 1: effective kernel 4, (7 + 1 - 4) / 1 + 1 = 5
  EXPECT_EQ(g->output, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(g->pad_begin, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(g->pad_end, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(g->effective_kernel(1), 4);
  EXPECT_EQ(g->kernel_size(), 6);
  EXPECT_EQ(g->output_size(), 30);
}

TEST(NnWindow, SamePadsSplitTheOddPadAsTheSpecSays) {
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    Node n = make_node("Conv", 2);
    set_string(n, "auto_pad", mode);
    set_ints(n, "strides", {2});
    const std::vector<int64_t> kernel{4};
    auto p = read_window_params(attrs_of(n), 1, &kernel, false);
    ASSERT_TRUE(p.ok());
    auto g = resolve_window(*p, {7});
    ASSERT_TRUE(g.ok());
    // out = ceil(7 / 2) = 4, total pad = 3 * 2 + 4 - 7 = 3
    EXPECT_EQ(g->output[0], 4);
    const bool upper = std::string(mode) == "SAME_UPPER";
    EXPECT_EQ(g->pad_begin[0], upper ? 1 : 2) << mode;
    EXPECT_EQ(g->pad_end[0], upper ? 2 : 1) << mode;
  }
}

TEST(NnWindow, UnknownInputDimGivesUnknownOutput) {
  Node n = make_node("AveragePool", 1);
  set_ints(n, "kernel_shape", {2, 2});
  auto p = read_window_params(attrs_of(n), 2, nullptr, true);
  ASSERT_TRUE(p.ok());
  auto g = resolve_window(*p, {-1, 5});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->output, (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(g->output_size(), -1);
}

TEST(NnWindow, TransposedOutputShapeAndSamePads) {
  Node n = make_node("ConvTranspose", 2);
  set_ints(n, "strides", {3, 2});
  const std::vector<int64_t> kernel{3, 3};
  auto p = read_window_params(attrs_of(n), 2, &kernel, false);
  ASSERT_TRUE(p.ok());
  // full sizes: 3*(4-1)+3 = 12 and 2*(5-1)+3 = 11
  auto plain = resolve_transposed_window(*p, {4, 5}, {}, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->output, (std::vector<int64_t>{12, 11}));
  auto shaped = resolve_transposed_window(*p, {4, 5}, {1, 1}, {10, 10});
  ASSERT_TRUE(shaped.ok()) << shaped.status().message();
  // totals 13 - 10 = 3 and 12 - 10 = 2; NOTSET puts the odd one at the beginning
  EXPECT_EQ(shaped->pad_begin, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(shaped->pad_end, (std::vector<int64_t>{1, 1}));
  auto longer = resolve_transposed_window(*p, {4, 5}, {}, {13, 11});
  ASSERT_TRUE(longer.ok());
  EXPECT_EQ(longer->pad_begin, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(longer->pad_end, (std::vector<int64_t>{-1, 0}));
}

TEST(NnWindow, RejectsHostileValues) {
  Node n = make_node("MaxPool", 1);
  set_ints(n, "kernel_shape", {3});
  set_ints(n, "pads", {int64_t{1} << 62, 0});
  EXPECT_FALSE(read_window_params(attrs_of(n), 1, nullptr, true).ok());
  Node dil = make_node("MaxPool", 1);
  set_ints(dil, "kernel_shape", {3});
  set_ints(dil, "dilations", {-2});
  EXPECT_FALSE(read_window_params(attrs_of(dil), 1, nullptr, true).ok());
  Node ok = make_node("MaxPool", 1);
  set_ints(ok, "kernel_shape", {3});
  auto p = read_window_params(attrs_of(ok), 1, nullptr, true);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(resolve_window(*p, {int64_t{1} << 62}).ok());
  EXPECT_FALSE(check_output_elements({int64_t{1} << 20, int64_t{1} << 20, 8}).ok());
  EXPECT_TRUE(check_output_elements({-1, 1000, 1000}).ok());
  Node both = make_node("Conv", 2);
  set_string(both, "auto_pad", "VALID");
  set_ints(both, "pads", {1, 1});
  const std::vector<int64_t> kernel{3};
  EXPECT_FALSE(read_window_params(attrs_of(both), 1, &kernel, false).ok());
}

}  // namespace
}  // namespace openge::testing
