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
  EXPECT_NE(run_error(n, {&data, &bad, &upd}).find("indices[0] = 2 is out of range [-2, 1]"), std::string::npos);
}

// OPT-op_precision_mode-6 (support_out_of_bound_index: indices of gather and scatter ops are
// bounds-checked; always on here): the error names the bad element's position and value.
TEST(OpIndexChecks, OPT_op_precision_mode_6_ErrorNamesTheBadIndexPosition) {
  Tensor data = floats({3, 4}, std::vector<float>(12, 1.0f));
  // Gather along axis 1 (size 4): element [1, 2] of the indices is 4.
  Node gather = make_node("Gather", 2);
  set_int(gather, "axis", 1);
  Tensor gi = ints({0, 1, 2, 3, 0, 1, 4, 3}).reshaped({2, 4});
  EXPECT_NE(run_error(gather, {&data, &gi}).find("indices[1, 2] = 4 is out of range [-4, 3]"), std::string::npos);
  // GatherND: the second tuple's second coordinate (-5) is out of data dim 1.
  Node gnd = make_node("GatherND", 2);
  Tensor ti = ints({0, 0, 2, -5}).reshaped({2, 2});
  const std::string nd = run_error(gnd, {&data, &ti});
  EXPECT_NE(nd.find("indices[1, 1] = -5 is out of range [-4, 3] (data dim 1)"), std::string::npos) << nd;
  // ScatterElements along axis 0 (size 3): element [0, 1] is 3.
  Node scatter = make_node("ScatterElements", 3);
  Tensor si = ints({0, 3}).reshaped({1, 2});
  Tensor upd = floats({1, 2}, {5, 6});
  const std::string se = run_error(scatter, {&data, &si, &upd});
  EXPECT_NE(se.find("indices[0, 1] = 3 is out of range [-3, 2] (data dim 0)"), std::string::npos) << se;
  // ScatterND: the single tuple [1, 9].
  Node snd = make_node("ScatterND", 3);
  Tensor ni = ints({1, 9}).reshaped({1, 2});
  Tensor nu = floats({1}, {7});
  const std::string sn = run_error(snd, {&data, &ni, &nu});
  EXPECT_NE(sn.find("indices[0, 1] = 9 is out of range [-4, 3] (data dim 1)"), std::string::npos) << sn;
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
