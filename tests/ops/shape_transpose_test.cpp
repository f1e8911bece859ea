#include <gtest/gtest.h>

#include <algorithm>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

// Element-by-element transpose through multi-indices: the definition, not the fast path.
std::vector<double> naive_transpose(const std::vector<double>& x, const Shape& in, const std::vector<int64_t>& perm) {
  const size_t r = in.size();
  Shape out(r);
  for (size_t i = 0; i < r; ++i) out[i] = in[static_cast<size_t>(perm[i])];
  std::vector<double> y(x.size());
  std::vector<int64_t> oidx(r, 0);
  for (size_t flat = 0; flat < y.size(); ++flat) {
    size_t rest = flat;
    for (size_t k = r; k-- > 0;) {
      oidx[k] = static_cast<int64_t>(rest % static_cast<size_t>(out[k]));
      rest /= static_cast<size_t>(out[k]);
    }
    std::vector<int64_t> iidx(r);
    for (size_t k = 0; k < r; ++k) iidx[static_cast<size_t>(perm[k])] = oidx[k];
    size_t src = 0;
    for (size_t k = 0; k < r; ++k) src = src * static_cast<size_t>(in[k]) + static_cast<size_t>(iidx[k]);
    y[flat] = x[src];
  }
  return y;
}

TEST(OpTranspose, DefaultReversesDims) {
  Node n = make_node("Transpose", 1);
  Tensor x = iota(DType::kFloat32, {2, 3});
  Tensor y = run1(n, {&x});
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(OpTranspose, EveryPermutationOfRank4) {
  const Shape in{2, 3, 5, 7};
  Tensor x = iota(DType::kFloat32, in);
  std::vector<int64_t> perm{0, 1, 2, 3};
  do {
    Node n = make_node("Transpose", 1);
    set_ints(n, "perm", perm);
    Tensor y = run1(n, {&x});
    EXPECT_EQ(values(y), naive_transpose(values(x), in, perm)) << shape_to_string(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(OpTranspose, TiledPathMatchesForEveryElementSize) {
  // Dims not multiples of the tile so that edges are exercised; big enough to run in parallel.
  const Shape in{3, 67, 129};
  for (DType dt : {DType::kUInt8, DType::kFloat16, DType::kFloat32, DType::kInt64}) {
    Tensor x = iota(dt, in);
    for (std::vector<int64_t> perm : {std::vector<int64_t>{0, 2, 1}, {2, 1, 0}, {1, 2, 0}}) {
      Node n = make_node("Transpose", 1);
      set_ints(n, "perm", perm);
      Tensor y = run1(n, {&x});
      EXPECT_EQ(values(y), naive_transpose(values(x), in, perm)) << dtype_name(dt) << shape_to_string(perm);
    }
  }
}

TEST(OpTranspose, NchwToNhwcAndBertHeads) {
  for (auto [in, perm] : {std::pair<Shape, std::vector<int64_t>>{{2, 16, 9, 9}, {0, 2, 3, 1}},
                          {{2, 16, 9, 9}, {0, 3, 1, 2}},
                          {{2, 7, 4, 8}, {0, 2, 1, 3}},
                          {{2, 7, 4, 8}, {0, 2, 3, 1}}}) {
    Tensor x = iota(DType::kFloat32, in);
    Node n = make_node("Transpose", 1);
    set_ints(n, "perm", perm);
    EXPECT_EQ(values(run1(n, {&x})), naive_transpose(values(x), in, perm)) << shape_to_string(perm);
  }
}

TEST(OpTranspose, UnitDimsAndEmptyTensors) {
  Node n = make_node("Transpose", 1);
  set_ints(n, "perm", {2, 0, 1});
  Tensor x = iota(DType::kBool, {1, 4, 1});
  Tensor y = run1(n, {&x});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 4}));
  EXPECT_EQ(values(y), values(x));
  Tensor empty(DType::kFloat32, {0, 3, 2});
  EXPECT_EQ(run1(n, {&empty}).shape(), (Shape{2, 0, 3}));
}

TEST(OpTranspose, RejectsInvalidPerm) {
  Tensor x = iota(DType::kFloat32, {2, 3});
  Node repeated = make_node("Transpose", 1);
  set_ints(repeated, "perm", {0, 0});
  EXPECT_NE(run_error(repeated, {&x}).find("not a permutation"), std::string::npos);
  Node wrong_length = make_node("Transpose", 1);
  set_ints(wrong_length, "perm", {0, 1, 2});
  run_error(wrong_length, {&x});
  Node out_of_range = make_node("Transpose", 1);
  set_ints(out_of_range, "perm", {0, 5});
  run_error(out_of_range, {&x});
}

}  // namespace
}  // namespace openge::testing
