// MaxPool, AveragePool and the global pools against hand-computed cases.
#include <gtest/gtest.h>

#include "nn_test_util.h"

namespace openge::testing {
namespace {

using namespace nn_util;

std::vector<double> iota(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

TEST(OpMaxPool, TwoByTwoStrideTwoWithIndices) {
  Node n = make_node("MaxPool", 1, 2);
  set_ints(n, "kernel_shape", {2, 2});
  set_ints(n, "strides", {2, 2});
  Tensor x = float_tensor({1, 2, 4, 4}, [] {
    std::vector<double> v = iota(16);
    for (int i = 0; i < 16; ++i) v.push_back(-i);
    return v;
  }());
  auto out = run_ok(n, {&x});
  expect_values(out[0], {1, 2, 2, 2}, {5, 7, 13, 15, 0, -2, -8, -10});
  ASSERT_EQ(out[1].dtype(), DType::kInt64);
  // indices are flat over N x C x H x W; the second plane starts at 16
  expect_values(out[1], {1, 2, 2, 2}, {5, 7, 13, 15, 16, 18, 24, 26}, 0);
}

TEST(OpMaxPool, ColumnMajorIndicesWithStorageOrder) {
  Node n = make_node("MaxPool", 1, 2);
  set_ints(n, "kernel_shape", {2, 2});
  set_int(n, "storage_order", 1);
  Tensor x = float_tensor({1, 1, 2, 3}, {1, 9, 3, 4, 5, 6});
  auto out = run_ok(n, {&x});
  expect_values(out[0], {1, 1, 1, 2}, {9, 9});
  // 9 is at (h=0, w=1): column-major index h + w*H = 2
  expect_values(out[1], {1, 1, 1, 2}, {2, 2}, 0);
}

TEST(OpMaxPool, CeilModeKeepsPartialWindowsButNotOnesStartingInPadding) {
  Node ceil = make_node("MaxPool", 1);
  set_ints(ceil, "kernel_shape", {3, 3});
  set_ints(ceil, "strides", {2, 2});
  set_int(ceil, "ceil_mode", 1);
  Tensor x = float_tensor({1, 1, 4, 4}, iota(16));
  expect_values(run_ok(ceil, {&x})[0], {1, 1, 2, 2}, {10, 11, 14, 15});
  Node floor = make_node("MaxPool", 1);
  set_ints(floor, "kernel_shape", {3, 3});
  set_ints(floor, "strides", {2, 2});
  expect_values(run_ok(floor, {&x})[0], {1, 1, 1, 1}, {10});

  // in 4, pad end 1, kernel 2, stride 2: ceil((4+1-2)/2)+1 = 3 windows, but the third would
  // start at 4, inside the end padding, so it is dropped.
  Node drop = make_node("MaxPool", 1);
  set_ints(drop, "kernel_shape", {2});
  set_ints(drop, "strides", {2});
  set_ints(drop, "pads", {0, 1});
  set_int(drop, "ceil_mode", 1);
  Tensor x1 = float_tensor({1, 1, 4}, {1, 2, 3, 4});
  expect_values(run_ok(drop, {&x1})[0], {1, 1, 2}, {2, 4});
}

TEST(OpMaxPool, DilationsPadsAndSameUpper) {
  Node dil = make_node("MaxPool", 1);
  set_ints(dil, "kernel_shape", {2});
  set_ints(dil, "dilations", {2});
  Tensor x = float_tensor({1, 1, 5}, {1, 5, 2, 8, 3});
  expect_values(run_ok(dil, {&x})[0], {1, 1, 3}, {2, 8, 3});

  Node padded = make_node("MaxPool", 1);
  set_ints(padded, "kernel_shape", {3});
  set_ints(padded, "pads", {1, 1});
  Tensor neg = float_tensor({1, 1, 3}, {-1, -5, -2});
  // padding never wins, even against negative values
  expect_values(run_ok(padded, {&neg})[0], {1, 1, 3}, {-1, -1, -2});

  Node same = make_node("MaxPool", 1);
  set_ints(same, "kernel_shape", {2});
  set_ints(same, "strides", {2});
  set_string(same, "auto_pad", "SAME_UPPER");
  Tensor x5 = float_tensor({1, 1, 5}, {1, 5, 2, 8, 3});
  expect_values(run_ok(same, {&x5})[0], {1, 1, 3}, {5, 8, 3});
}

TEST(OpMaxPool, Int8AndUInt8AndHalf) {
  Node n = make_node("MaxPool", 1);
  set_ints(n, "kernel_shape", {2});
  Tensor x(DType::kInt8, {1, 1, 3});
  x.data<int8_t>()[0] = -100;
  x.data<int8_t>()[1] = -120;
  x.data<int8_t>()[2] = 7;
  auto out = run_ok(n, {&x});
  ASSERT_EQ(out[0].dtype(), DType::kInt8);
  expect_values(out[0], {1, 1, 2}, {-100, 7}, 0);
  Tensor u(DType::kUInt8, {1, 1, 2});
  u.data<uint8_t>()[0] = 200;
  u.data<uint8_t>()[1] = 255;
  expect_values(run_ok(n, {&u})[0], {1, 1, 1}, {255}, 0);
  Tensor h = float_tensor({1, 1, 3}, {0.5, 1.5, -2}, DType::kBFloat16);
  expect_values(run_ok(n, {&h})[0], {1, 1, 2}, {1.5, 1.5}, 0);
}

TEST(OpMaxPool, ThreeD) {
  Node n = make_node("MaxPool", 1);
  set_ints(n, "kernel_shape", {2, 2, 2});
  Tensor x = float_tensor({1, 1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 11, 10});
  expect_values(run_ok(n, {&x})[0], {1, 1, 1, 1, 2}, {12, 11});
}

TEST(OpMaxPool, RejectsBadAttributes) {
  Tensor x = float_tensor({1, 1, 4, 4}, {});
  Node missing = make_node("MaxPool", 1);
  EXPECT_NE(run_error(missing, {&x}).find("kernel_shape"), std::string::npos);
  Node too_big = make_node("MaxPool", 1);
  set_ints(too_big, "kernel_shape", {5, 5});
  EXPECT_NE(run_error(too_big, {&x}).find("larger than the padded input"), std::string::npos);
  Node rank = make_node("MaxPool", 1);
  set_ints(rank, "kernel_shape", {2});
  EXPECT_NE(run_error(rank, {&x}).find("kernel_shape"), std::string::npos);
  Node order = make_node("MaxPool", 1);
  set_ints(order, "kernel_shape", {2, 2});
  set_int(order, "storage_order", 2);
  EXPECT_NE(run_error(order, {&x}).find("storage_order"), std::string::npos);
  Node huge = make_node("MaxPool", 1);
  set_ints(huge, "kernel_shape", {int64_t{1} << 50, 1});
  EXPECT_NE(run_error(huge, {&x}).find("kernel_shape"), std::string::npos);
  Node ceil = make_node("MaxPool", 1);
  set_ints(ceil, "kernel_shape", {2, 2});
  set_int(ceil, "ceil_mode", 7);
  EXPECT_NE(run_error(ceil, {&x}).find("ceil_mode"), std::string::npos);
  Tensor x2 = float_tensor({4, 4}, {});
  Node low_rank = make_node("MaxPool", 1);
  set_ints(low_rank, "kernel_shape", {2});
  EXPECT_NE(run_error(low_rank, {&x2}).find("rank"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------

TEST(OpAveragePool, CountIncludePadChangesTheDivisor) {
  Tensor x = float_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  Node ex = make_node("AveragePool", 1);
  set_ints(ex, "kernel_shape", {2, 2});
  set_ints(ex, "pads", {1, 1, 1, 1});
  expect_values(run_ok(ex, {&x})[0], {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  Node inc = make_node("AveragePool", 1);
  set_ints(inc, "kernel_shape", {2, 2});
  set_ints(inc, "pads", {1, 1, 1, 1});
  set_int(inc, "count_include_pad", 1);
  expect_values(run_ok(inc, {&x})[0], {1, 1, 3, 3}, {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
}

TEST(OpAveragePool, SameUpperAndSameLowerPadDifferentSides) {
  Tensor x = float_tensor({1, 1, 3}, {1, 2, 3});
  Node up = make_node("AveragePool", 1);
  set_ints(up, "kernel_shape", {2});
  set_string(up, "auto_pad", "SAME_UPPER");
  expect_values(run_ok(up, {&x})[0], {1, 1, 3}, {1.5, 2.5, 3});
  Node lo = make_node("AveragePool", 1);
  set_ints(lo, "kernel_shape", {2});
  set_string(lo, "auto_pad", "SAME_LOWER");
  expect_values(run_ok(lo, {&x})[0], {1, 1, 3}, {1, 1.5, 2.5});
}

TEST(OpAveragePool, CeilModePartialWindowAveragesOnlyWhatItCovers) {
  // in 5, kernel 2, stride 2, ceil: windows [0,1], [2,3], [4]; the last covers one element.
  Node n = make_node("AveragePool", 1);
  set_ints(n, "kernel_shape", {2});
  set_ints(n, "strides", {2});
  set_int(n, "ceil_mode", 1);
  Tensor x = float_tensor({1, 1, 5}, {1, 3, 5, 7, 9});
  expect_values(run_ok(n, {&x})[0], {1, 1, 3}, {2, 6, 9});
  // count_include_pad counts taps inside input + explicit pads only, not the ceil overhang
  set_int(n, "count_include_pad", 1);
  expect_values(run_ok(n, {&x})[0], {1, 1, 3}, {2, 6, 9});
}

TEST(OpAveragePool, Float16AndDouble) {
  Node n = make_node("AveragePool", 1);
  set_ints(n, "kernel_shape", {2, 2});
  for (DType dt : {DType::kFloat16, DType::kFloat64}) {
    Tensor x = float_tensor({1, 1, 2, 3}, {1, 2, 3, 4, 5, 7}, dt);
    auto out = run_ok(n, {&x});
    ASSERT_EQ(out[0].dtype(), dt);
    expect_values(out[0], {1, 1, 1, 2}, {3, 4.25}, 0);
  }
}

TEST(OpAveragePool, RejectsIntegersAndBadFlags) {
  Tensor xi(DType::kInt8, {1, 1, 2, 2});
  Node n = make_node("AveragePool", 1);
  set_ints(n, "kernel_shape", {2, 2});
  EXPECT_NE(run_error(n, {&xi}).find("dtype"), std::string::npos);
  Tensor x = float_tensor({1, 1, 2, 2}, {});
  set_int(n, "count_include_pad", 3);
  EXPECT_NE(run_error(n, {&x}).find("count_include_pad"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------

TEST(OpGlobalAveragePool, AveragesEachPlane) {
  Node n = make_node("GlobalAveragePool", 1);
  Tensor x = float_tensor({1, 2, 2, 2}, {1, 2, 3, 4, -1, -1, 5, 9});
  expect_values(run_ok(n, {&x})[0], {1, 2, 1, 1}, {2.5, 3});
  Tensor x3 = float_tensor({2, 1, 3}, {1, 2, 3, 4, 5, 9}, DType::kBFloat16);
  expect_values(run_ok(n, {&x3})[0], {2, 1, 1}, {2, 6});
}

TEST(OpGlobalMaxPool, MaxOfEachPlane) {
  Node n = make_node("GlobalMaxPool", 1);
  Tensor x = float_tensor({1, 2, 2, 2}, {1, 2, 3, 4, -1, -1, -5, -9});
  expect_values(run_ok(n, {&x})[0], {1, 2, 1, 1}, {4, -1});
  Tensor bad = float_tensor({2, 3}, {});
  EXPECT_NE(run_error(n, {&bad}).find("rank"), std::string::npos);
}

}  // namespace
}  // namespace openge::testing
