// GatherND, ScatterElements/Scatter, ReverseSequence. Expected values were worked out by hand
// (and checked with NumPy indexing), not taken from the kernels.
#include <gtest/gtest.h>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

TEST(OpGatherND, FullTuplesAndSlices) {
  Node n = make_node("GatherND", 2);
  Tensor x = iota(DType::kFloat32, {2, 2});
  Tensor idx = ints({0, 0, 1, 1}).reshaped({2, 2});  // two full coordinates
  Tensor y = run1(n, {&x, &idx});
  EXPECT_EQ(y.shape(), (Shape{2}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 3}));
  Tensor rows = ints({1, -2}).reshaped({2, 1});  // row slices; negative counts from the end
  Tensor z = run1(n, {&x, &rows});
  EXPECT_EQ(z.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(z), (std::vector<double>{2, 3, 0, 1}));
}

TEST(OpGatherND, BatchDims) {
  Node n = make_node("GatherND", 2);
  set_int(n, "batch_dims", 1);
  Tensor x = iota(DType::kInt64, {2, 3, 4});
  Tensor idx = ints({2, 0, 1, 1}).reshaped({2, 2, 1});
  Tensor y = run1(n, {&x, &idx});
  EXPECT_EQ(y.shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{8, 9, 10, 11, 0, 1, 2, 3, 16, 17, 18, 19, 16, 17, 18, 19}));
}

TEST(OpGatherND, OutOfRangeIndexIsAnErrorNamingTheIndex) {
  Node n = make_node("GatherND", 2);
  Tensor x = iota(DType::kFloat32, {2, 2});
  Tensor idx = ints({0, 7}).reshaped({1, 2});
  const std::string msg = run_error(n, {&x, &idx});
  EXPECT_NE(msg.find("GatherND_test"), std::string::npos) << msg;
  EXPECT_NE(msg.find("7"), std::string::npos) << msg;
  Tensor too_long = ints({0, 0, 0}).reshaped({1, 3});
  run_error(n, {&x, &too_long});
}

TEST(OpScatterElements, AddReductionWithDuplicatesAndNegativeIndex) {
  Node n = make_node("ScatterElements", 3);
  set_int(n, "axis", 1);
  set_string(n, "reduction", "add");
  Tensor data = floats({2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor idx = ints({1, 1, 2, -1}).reshaped({2, 2});
  Tensor upd = floats({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values(run1(n, {&data, &idx, &upd}, 16)), (std::vector<double>{0, 3, 0, 0, 0, 7}));
}

TEST(OpScatterElements, NoneReplacesAndScatterIsTheSameOp) {
  // ONNX spec example (axis 0).
  Tensor data = floats({3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0});
  Tensor idx = ints({1, 0, 2, 0, 2, 1}).reshaped({2, 3});
  Tensor upd = floats({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f});
  const std::vector<double> want{2.0, 1.1f, 0, 1.0, 0, 2.2f, 0, 2.1f, 1.2f};
  Node se = make_node("ScatterElements", 3);
  EXPECT_EQ(values(run1(se, {&data, &idx, &upd})), want);
  Node sc = make_node("Scatter", 3);
  EXPECT_EQ(values(run1(sc, {&data, &idx, &upd}, 9)), want);
}

TEST(OpScatterElements, HalfComputesInFloatAndBadIndexFails) {
  Node n = make_node("ScatterElements", 3);
  set_string(n, "reduction", "mul");
  Tensor data(DType::kFloat16, {2});
  data.data<Float16>()[0] = Float16(1.5f);
  data.data<Float16>()[1] = Float16(2.0f);
  Tensor idx = ints({1});
  Tensor upd(DType::kFloat16, {1});
  upd.data<Float16>()[0] = Float16(3.0f);
  EXPECT_EQ(values(run1(n, {&data, &idx, &upd})), (std::vector<double>{1.5, 6.0}));
  Tensor bad = ints({2});
  EXPECT_NE(run_error(n, {&data, &bad, &upd}).find("index 2 is out of range"), std::string::npos);
}

TEST(OpReverseSequence, TimeMajorAndBatchMajor) {
  Node n = make_node("ReverseSequence", 2);  // time_axis 0, batch_axis 1 (defaults)
  Tensor x = iota(DType::kInt32, {4, 3});
  Tensor lens = ints({4, 1, 2});
  EXPECT_EQ(int_values(run1(n, {&x, &lens})), (std::vector<int64_t>{9, 1, 5, 6, 4, 2, 3, 7, 8, 0, 10, 11}));
  Node m = make_node("ReverseSequence", 2);
  set_int(m, "time_axis", 1);
  set_int(m, "batch_axis", 0);
  Tensor xb = iota(DType::kFloat32, {2, 3});
  Tensor lb = ints({3, 2});
  EXPECT_EQ(values(run1(m, {&xb, &lb})), (std::vector<double>{2, 1, 0, 4, 3, 5}));
  Tensor too_long = ints({4, 2});
  EXPECT_NE(run_error(m, {&xb, &too_long}).find("sequence_lens[0] = 4"), std::string::npos);
}

}  // namespace
}  // namespace openge::testing
