// Trilu EyeLike OneHot (tensor_construct.cpp) and Hardmax (reduce_hardmax.cpp). Expected values
// by hand or from NumPy (np.triu / np.tril / np.eye, quoted).
#include <gtest/gtest.h>

#include <limits>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

Tensor iota_f32(Shape shape) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i + 1);
  return t;
}

TEST(OpTrilu, UpperAndLowerWithDiagonalOffsets) {
  const Tensor x = iota_f32({3, 4});  // [[1,2,3,4],[5,6,7,8],[9,10,11,12]]
  Node n = make_node("Trilu", 1);
  EXPECT_EQ(values(run_ok(n, {&x})), (V{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));  // np.triu(x)
  const Tensor k = i64({}, {-1});
  Node nk = make_node("Trilu", 2);
  EXPECT_EQ(values(run_ok(nk, {&x, &k})), (V{1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}));  // np.triu(x, -1)
  set_int(nk, "upper", 0);
  const Tensor k1 = i64({}, {1});
  EXPECT_EQ(values(run_ok(nk, {&x, &k1})), (V{1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}));  // np.tril(x, 1)
  const Tensor huge = i64({}, {std::numeric_limits<int64_t>::max()});
  EXPECT_EQ(values(run_ok(nk, {&x, &huge})), values(x));  // np.tril(x, big) keeps all
  set_int(nk, "upper", 1);
  EXPECT_EQ(values(run_ok(nk, {&x, &huge})), V(12, 0.0));
}

TEST(OpTrilu, BatchedIntegerAndBoolAndBadRank) {
  Tensor x(DType::kInt32, {2, 2, 2});
  for (int i = 0; i < 8; ++i) x.data<int32_t>()[i] = i + 1;
  Node lower = make_node("Trilu", 1);
  set_int(lower, "upper", 0);
  EXPECT_EQ(values(run_ok(lower, {&x})), (V{1, 0, 3, 4, 5, 0, 7, 8}));
  const Tensor b = boolean({2, 2}, {true, true, true, true});
  EXPECT_EQ(values(run_ok(lower, {&b})), (V{1, 0, 1, 1}));
  const Tensor v = f32({3}, {1, 2, 3});
  EXPECT_FALSE(run_node(lower, {&v}).ok());
}

TEST(OpEyeLike, DiagonalOffsetsAndDtype) {
  const Tensor x = f32({3, 4}, std::vector<float>(12, 7.0f));
  Node n = make_node("EyeLike", 1);
  EXPECT_EQ(values(run_ok(n, {&x})), (V{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));  // np.eye(3, 4)
  set_int(n, "k", 2);
  set_int(n, "dtype", static_cast<int64_t>(DType::kInt64));
  const Tensor y = run_ok(n, {&x});
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(values(y), (V{0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}));  // np.eye(3, 4, k=2)
  set_int(n, "k", -2);
  EXPECT_EQ(values(run_ok(n, {&x})), (V{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
  set_int(n, "k", 100);
  EXPECT_EQ(values(run_ok(n, {&x})), V(12, 0.0));
  set_int(n, "dtype", 8);  // string
  EXPECT_FALSE(run_node(n, {&x}).ok());
  const Tensor v = f32({3}, {1, 2, 3});
  EXPECT_FALSE(run_node(make_node("EyeLike", 1), {&v}).ok());
}

TEST(OpOneHot, AxisNegativeIndicesAndOutOfRange) {
  const Tensor idx = i64({3}, {0, -1, 5});  // -1 counts from the end; 5 >= depth gives all off
  const Tensor depth = f32({}, {3.0f});
  const Tensor vals = f32({2}, {-1.0f, 9.0f});
  Node n = make_node("OneHot", 3);
  const Tensor y = run_ok(n, {&idx, &depth, &vals});
  EXPECT_EQ(y.shape(), (Shape{3, 3}));
  EXPECT_EQ(values(y), (V{9, -1, -1, -1, -1, 9, -1, -1, -1}));
  set_int(n, "axis", 0);
  const Tensor y0 = run_ok(n, {&idx, &depth, &vals});
  EXPECT_EQ(y0.shape(), (Shape{3, 3}));
  EXPECT_EQ(values(y0), (V{9, -1, -1, -1, -1, -1, -1, 9, -1}));
}

TEST(OpOneHot, MiddleAxisWithFloatIndicesAndIntValues) {
  const Tensor idx = f32({2, 2}, {1.9f, 0.0f, 2.0f, 1.0f});  // 1.9 truncates to 1
  const Tensor depth = i32({1}, {3});
  const Tensor vals = i32({2}, {0, 1});
  Node n = make_node("OneHot", 3);
  set_int(n, "axis", 1);
  const Tensor y = run_ok(n, {&idx, &depth, &vals});
  ASSERT_EQ(y.shape(), (Shape{2, 3, 2}));
  // y[b, d, j] = (idx[b, j] == d)
  EXPECT_EQ(values(y), (V{0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0}));
}

TEST(OpOneHot, HostileDepthIsAnErrorNotAnAllocation) {
  const Tensor idx = i64({4}, {0, 1, 2, 3});
  const Tensor vals = f32({2}, {0, 1});
  Node n = make_node("OneHot", 3);
  for (float d : {0.0f, -3.0f, std::numeric_limits<float>::quiet_NaN(), 1e18f, 1e30f}) {
    const Tensor depth = f32({}, {d});
    auto r = run_node(n, {&idx, &depth, &vals});
    EXPECT_FALSE(r.ok()) << "depth " << d;
  }
  const Tensor depth = i64({}, {int64_t{1} << 40});
  auto r = run_node(n, {&idx, &depth, &vals});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("limit"), std::string::npos) << r.status().message();
  const Tensor bad_vals = f32({3}, {0, 1, 2});
  const Tensor d3 = i64({}, {3});
  EXPECT_FALSE(run_node(n, {&idx, &d3, &bad_vals}).ok());
}

TEST(OpHardmax, FirstMaximumPerRowOpset13) {
  const Tensor x = f32({2, 3}, {3, 1, 3, -1, 5, 2});
  EXPECT_EQ(values(run_unary("Hardmax", x)), (V{1, 0, 0, 0, 1, 0}));
  Node n = make_node("Hardmax", 1);
  set_int(n, "axis", 0);
  EXPECT_EQ(values(run_ok(n, {&x})), (V{1, 0, 1, 0, 1, 0}));
  const Tensor h = run_unary("Hardmax", f16({2, 2}, {1, 2, 4, 3}));
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(values(h), (V{0, 1, 1, 0}));
}

TEST(OpHardmax, BeforeOpset13TheInputIsCoercedTo2D) {
  // [2, 2, 2] with axis 1 (the default): each batch's 4 trailing values are one row.
  const Tensor x = f32({2, 2, 2}, {1, 4, 3, 2, 0, 0, 0, 7});
  EXPECT_EQ(values(run_unary("Hardmax", x, 11)), (V{0, 1, 0, 0, 0, 0, 0, 1}));
  // Same input at opset 13 (axis -1): rows of 2.
  EXPECT_EQ(values(run_unary("Hardmax", x, 13)), (V{0, 1, 1, 0, 1, 0, 0, 1}));
  Node n = make_node("Hardmax", 1);
  set_int(n, "axis", 4);
  EXPECT_FALSE(run_node(n, {&x}, 11).ok());
  EXPECT_FALSE(run_node(n, {&x}, 13).ok());
}

TEST(OpHardmax, NaNIsTheMaximumLikeNumPyArgmax) {
  const Tensor x =
      f32({1, 4}, {1, std::numeric_limits<float>::quiet_NaN(), 9, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(values(run_unary("Hardmax", x)), (V{0, 1, 0, 0}));
}

}  // namespace
}  // namespace openge::testing
