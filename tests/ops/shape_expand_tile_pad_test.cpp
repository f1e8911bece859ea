#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

TEST(OpExpand, BroadcastsColumnAndAddsLeadingDims) {
  Node n = make_node("Expand", 2);
  Tensor x = floats({3, 1}, {1, 2, 3});
  Tensor shape = ints({2, 1, 2});
  Tensor y = run1(n, {&x, &shape});
  EXPECT_EQ(y.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values(y), (V{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(OpExpand, ShapeSmallerThanInputKeepsInput) {
  Node n = make_node("Expand", 2);
  Tensor x = iota(DType::kInt8, {2, 3});
  Tensor shape = ints({1});  // bidirectional broadcast: the result is [2, 3]
  Tensor y = run1(n, {&x, &shape});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(y), values(x));
}

TEST(OpExpand, RejectsIncompatibleAndNegativeShapes) {
  Node n = make_node("Expand", 2);
  Tensor x = iota(DType::kFloat32, {3});
  Tensor bad = ints({2});
  EXPECT_NE(run_error(n, {&x, &bad}).find("cannot expand"), std::string::npos);
  Tensor negative = ints({-1, 3});
  run_error(n, {&x, &negative});
  Tensor huge = ints({int64_t{1} << 30, int64_t{1} << 30, 3});
  EXPECT_NE(run_error(n, {&x, &huge}).find("too large"), std::string::npos);
}

TEST(OpTile, RepeatsEachDim) {
  Node n = make_node("Tile", 2);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor reps = ints({2, 3});
  Tensor y = run1(n, {&x, &reps});
  EXPECT_EQ(y.shape(), (Shape{4, 9}));
  EXPECT_EQ(values(y), (V{0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5,
                          0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5}));
}

TEST(OpTile, ZeroRepeatsAndBf16) {
  Node n = make_node("Tile", 2);
  Tensor x = iota(DType::kBFloat16, {2});
  Tensor zero = ints({0});
  EXPECT_EQ(run1(n, {&x, &zero}).shape(), (Shape{0}));
  Tensor two = ints({2});
  EXPECT_EQ(values(run1(n, {&x, &two})), (V{0, 1, 0, 1}));
}

TEST(OpTile, RejectsWrongLengthNegativeAndOverflow) {
  Node n = make_node("Tile", 2);
  Tensor x = iota(DType::kFloat32, {2, 2});
  Tensor short_reps = ints({2});
  run_error(n, {&x, &short_reps});
  Tensor negative = ints({1, -1});
  run_error(n, {&x, &negative});
  Tensor overflow = ints({int64_t{1} << 62, int64_t{1} << 62});
  run_error(n, {&x, &overflow});
}

TEST(OpPad, ConstantInputsForm) {
  Node n = make_node("Pad", 3);
  Tensor x = iota(DType::kFloat32, {2, 2});
  Tensor pads = ints({1, 0, 0, 1});  // begin rows 1, end cols 1
  Tensor value = floats({}, {9});
  Tensor y = run1(n, {&x, &pads, &value}, 11);
  EXPECT_EQ(y.shape(), (Shape{3, 3}));
  EXPECT_EQ(values(y), (V{9, 9, 9, 0, 1, 9, 2, 3, 9}));
}

TEST(OpPad, AttributesBeforeOpset11) {
  Node n = make_node("Pad", 1);
  set_ints(n, "pads", {0, 1, 0, 2});
  set_float(n, "value", 1.5f);
  Tensor x = iota(DType::kFloat16, {1, 2});
  Tensor y = run1(n, {&x}, 2 + 8);
  EXPECT_EQ(y.shape(), (Shape{1, 5}));
  EXPECT_EQ(values(y), (V{1.5, 0, 1, 1.5, 1.5}));
}

TEST(OpPad, ReflectEdgeWrapMatchNumPy) {
  Tensor x = iota(DType::kInt32, {2, 3});
  Tensor pads = ints({1, 2, 0, 1});
  // Expected values from numpy.pad(x, ((1, 0), (2, 1)), mode=...).
  const std::vector<std::pair<const char*, V>> cases = {
      {"reflect", {5, 4, 3, 4, 5, 4, 2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4}},
      {"edge", {0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5}},
      {"wrap", {4, 5, 3, 4, 5, 3, 1, 2, 0, 1, 2, 0, 4, 5, 3, 4, 5, 3}},
  };
  for (const auto& [mode, expected] : cases) {
    Node n = make_node("Pad", 2);
    set_string(n, "mode", mode);
    Tensor y = run1(n, {&x, &pads}, 13);
    EXPECT_EQ(y.shape(), (Shape{3, 6}));
    EXPECT_EQ(values(y), expected) << mode;
  }
}

TEST(OpPad, ReflectWiderThanTheDimRepeats) {
  Node n = make_node("Pad", 2);
  set_string(n, "mode", "reflect");
  Tensor x = iota(DType::kInt64, {2, 3});
  Tensor pads = ints({0, 4, 0, 0});
  EXPECT_EQ(values(run1(n, {&x, &pads})), (V{0, 1, 2, 1, 0, 1, 2, 3, 4, 5, 4, 3, 4, 5}));
}

TEST(OpPad, NegativePadsCrop) {
  Node n = make_node("Pad", 2);
  Tensor x = iota(DType::kFloat32, {3, 3});
  Tensor pads = ints({-1, 1, 0, -2});
  Tensor y = run1(n, {&x, &pads});
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (V{0, 3, 0, 6}));
}

TEST(OpPad, AxesInputOfOpset18) {
  Node n = make_node("Pad", 4);
  Tensor x = iota(DType::kFloat32, {2, 2});
  Tensor pads = ints({1, 1});
  Tensor value = floats({}, {7});
  Tensor axes = ints({-1});
  Tensor y = run1(n, {&x, &pads, &value, &axes}, 18);
  EXPECT_EQ(y.shape(), (Shape{2, 4}));
  EXPECT_EQ(values(y), (V{7, 0, 1, 7, 7, 2, 3, 7}));
}

TEST(OpPad, RejectsBadPads) {
  Tensor x = iota(DType::kFloat32, {2, 2});
  Node n = make_node("Pad", 2);
  Tensor wrong_len = ints({1, 1});
  EXPECT_NE(run_error(n, {&x, &wrong_len}).find("expected 4"), std::string::npos);
  Tensor over_crop = ints({-2, 0, -1, 0});
  run_error(n, {&x, &over_crop});
  Tensor huge = ints({int64_t{1} << 50, 0, 0, 0});
  run_error(n, {&x, &huge});
  Node bad_mode = make_node("Pad", 2);
  set_string(bad_mode, "mode", "mirror");
  Tensor ok = ints({0, 0, 0, 0});
  run_error(bad_mode, {&x, &ok});
  Node edge = make_node("Pad", 2);
  set_string(edge, "mode", "edge");
  Tensor empty(DType::kFloat32, {0, 2});
  Tensor grow = ints({1, 0, 0, 0});
  run_error(edge, {&empty, &grow});
}

}  // namespace
}  // namespace openge::testing
