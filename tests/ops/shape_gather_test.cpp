#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

TEST(OpGather, Axis0Rows) {
  Node n = make_node("Gather", 2);
  Tensor x = iota(DType::kFloat32, {3, 2});
  Tensor idx = ints({2, 0, -1});  // negative counts from the end
  Tensor y = run1(n, {&x, &idx});
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{4, 5, 0, 1, 4, 5}));
}

TEST(OpGather, Axis1WithMatrixIndices) {
  Node n = make_node("Gather", 2);
  set_int(n, "axis", -1);
  Tensor x = iota(DType::kInt64, {2, 3});
  Tensor idx = ints32({2, 1, 0, 0});
  Tensor idx2 = idx.reshaped({2, 2});
  Tensor y = run1(n, {&x, &idx2});
  EXPECT_EQ(y.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{2, 1, 0, 0, 5, 4, 3, 3}));
}

TEST(OpGather, ScalarIndexDropsTheAxis) {
  Node n = make_node("Gather", 2);
  Tensor shape = ints({1, 128, 768});
  Tensor idx = ints({1}, true);
  Tensor y = run1(n, {&shape, &idx});
  EXPECT_EQ(y.shape(), Shape{});
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{128}));
}

TEST(OpGather, RejectsOutOfRangeIndexAndBadAxis) {
  Node n = make_node("Gather", 2);
  Tensor x = iota(DType::kFloat32, {3, 2});
  Tensor idx = ints({3});
  EXPECT_NE(run_error(n, {&x, &idx}).find("out of range"), std::string::npos);
  Tensor neg = ints({-4});
  run_error(n, {&x, &neg});
  set_int(n, "axis", 2);
  Tensor ok = ints({0});
  run_error(n, {&x, &ok});
  Node f = make_node("Gather", 2);
  Tensor float_idx = floats({1}, {0});
  run_error(f, {&x, &float_idx});
}

TEST(OpGatherElements, Axis0AndAxis1) {
  // ONNX spec examples.
  Tensor data = floats({2, 2}, {1, 2, 3, 4});
  Node n = make_node("GatherElements", 2);
  set_int(n, "axis", 1);
  Tensor idx = ints({0, 0, 1, 0}).reshaped({2, 2});
  EXPECT_EQ(values(run1(n, {&data, &idx})), (std::vector<double>{1, 1, 4, 3}));
  Tensor data3 = floats({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Node n0 = make_node("GatherElements", 2);
  Tensor idx0 = ints({1, 2, 0, 2, 0, 0}).reshaped({2, 3});
  Tensor y = run1(n0, {&data3, &idx0});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(y), (std::vector<double>{4, 8, 3, 7, 2, 3}));
}

TEST(OpGatherElements, NegativeIndicesAndErrors) {
  Tensor data = floats({2, 2}, {1, 2, 3, 4});
  Node n = make_node("GatherElements", 2);
  set_int(n, "axis", -1);
  Tensor idx = ints({-1, 0, -2, -1}).reshaped({2, 2});
  EXPECT_EQ(values(run1(n, {&data, &idx})), (std::vector<double>{2, 1, 3, 4}));
  Tensor out_of_range = ints({2, 0, 0, 0}).reshaped({2, 2});
  EXPECT_NE(run_error(n, {&data, &out_of_range}).find("out of range"), std::string::npos);
  Tensor wrong_rank = ints({0, 0});
  run_error(n, {&data, &wrong_rank});
  Tensor too_wide = ints({0, 0, 0, 0, 0, 0}).reshaped({3, 2});  // 3 rows > 2 outside axis 1
  run_error(n, {&data, &too_wide});
}

TEST(OpScatterND, SpecExampleSlices) {
  // ONNX ScatterND example 2.
  Tensor data(DType::kFloat32, {4, 4, 4});
  std::vector<float> base = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};
  for (int64_t i = 0; i < 64; ++i) data.data<float>()[i] = base[static_cast<size_t>(i % 16)];
  Tensor idx = ints({0, 2}).reshaped({2, 1});
  Tensor upd(DType::kFloat32, {2, 4, 4});
  for (int64_t i = 0; i < 16; ++i) upd.data<float>()[i] = static_cast<float>(5 + i / 4);
  for (int64_t i = 16; i < 32; ++i) upd.data<float>()[i] = static_cast<float>(1 + (i - 16) / 4);
  Node n = make_node("ScatterND", 3);
  Tensor y = run1(n, {&data, &idx, &upd});
  const std::vector<double> v = values(y);
  EXPECT_EQ(v[0], 5);
  EXPECT_EQ(v[15], 8);
  EXPECT_EQ(v[16], 1);  // slice 1 untouched
  EXPECT_EQ(v[32], 1);  // slice 2 from updates[1]
  EXPECT_EQ(v[47], 4);
  EXPECT_EQ(v[63], 1);
}

TEST(OpScatterND, ElementIndicesAndReductions) {
  Tensor data = floats({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor idx = ints({4, 3, -7, 7}).reshaped({4, 1});
  Tensor upd = floats({4}, {9, 10, 11, 12});
  Node n = make_node("ScatterND", 3);
  EXPECT_EQ(values(run1(n, {&data, &idx, &upd})), (std::vector<double>{1, 11, 3, 10, 9, 6, 7, 12}));
  set_string(n, "reduction", "add");
  EXPECT_EQ(values(run1(n, {&data, &idx, &upd}, 16)), (std::vector<double>{1, 13, 3, 14, 14, 6, 7, 20}));
  set_string(n, "reduction", "max");
  Tensor small = floats({4}, {0, 0, 0, 100});
  EXPECT_EQ(values(run1(n, {&data, &idx, &small}, 16)), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 100}));
}

TEST(OpScatterND, RejectsBadIndicesAndShapes) {
  Tensor data = floats({4}, {1, 2, 3, 4});
  Node n = make_node("ScatterND", 3);
  Tensor idx = ints({4}).reshaped({1, 1});
  Tensor upd = floats({1}, {0});
  EXPECT_NE(run_error(n, {&data, &idx, &upd}).find("out of range"), std::string::npos);
  Tensor idx_ok = ints({1}).reshaped({1, 1});
  Tensor upd_bad = floats({2}, {0, 0});
  run_error(n, {&data, &idx_ok, &upd_bad});
  Tensor idx_deep = ints({0, 0}).reshaped({1, 2});  // k = 2 > rank 1
  run_error(n, {&data, &idx_deep, &upd});
  set_string(n, "reduction", "median");
  run_error(n, {&data, &idx_ok, &upd});
}

}  // namespace
}  // namespace openge::testing
