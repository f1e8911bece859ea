// AI Core pooling (NCHW, and NHWC as data_format says) and the NCHW<->NHWC Transpose against the
// reference engine.
#include "kernel_test_util.h"
#include "ops/layout/in_formats.h"
#include "ops/op_registry.h"
#include "../ops/op_test_util.h"

namespace openge::testing {
namespace {

struct PoolCase {
  std::string op;
  std::vector<int64_t> kernel, strides, pads;
  int64_t ceil_mode, count_include_pad;
};
// ctest shows the parameter: print the case, not its bytes.
void PrintTo(const PoolCase& p, std::ostream* os) {
  *os << p.op << " k" << p.kernel.size() << "d ceil " << p.ceil_mode << " count_pad " << p.count_include_pad;
}

class OneDnnPoolTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(OneDnnPoolTest, MatchesReferenceInBothLayouts) {
  const PoolCase c = GetParam();
  if (!find_op_schema(c.op)) GTEST_SKIP() << c.op << " not registered";
  Node node = make_node(c.op, 1);
  if (!c.kernel.empty()) {
    set_ints(node, "kernel_shape", c.kernel);
    set_ints(node, "strides", c.strides);
    set_ints(node, "pads", c.pads);
    set_int(node, "ceil_mode", c.ceil_mode);
    if (c.op == "AveragePool") set_int(node, "count_include_pad", c.count_include_pad);
  }
  Tensor x = random_tensor({2, 5, 11, 10}, 1);
  auto ref = run_node(node, {&x});
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const Tensor& expected = (*ref)[0];
  auto k = make_kernel(node, {&x}, {false}, DType::kFloat32, expected.shape());
  ASSERT_NE(k, nullptr);
  EXPECT_LT(max_rel_diff(run_kernel(*k, node, {&x}, DType::kFloat32, expected.shape()), expected), 1e-5);

  Node nhwc = node;
  set_node_data_format(nhwc, ActivationFormat::kNhwc);
  Tensor xt = to_nhwc(x);
  const Shape& e = expected.shape();
  const Shape yt{e[0], e[2], e[3], e[1]};
  auto kt = make_kernel(nhwc, {&xt}, {false}, DType::kFloat32, yt);
  ASSERT_NE(kt, nullptr);
  EXPECT_LT(max_rel_diff(to_nchw(run_kernel(*kt, nhwc, {&xt}, DType::kFloat32, yt)), expected), 1e-5);
  auto ref_t = run_node(nhwc, {&xt});
  ASSERT_TRUE(ref_t.ok()) << ref_t.status().message();
  EXPECT_LT(max_rel_diff(to_nchw((*ref_t)[0]), expected), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Pools, OneDnnPoolTest,
                         ::testing::Values(PoolCase{"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
                                           PoolCase{"MaxPool", {3, 3}, {2, 2}, {0, 0, 0, 0}, 1, 0},
                                           PoolCase{"MaxPool", {2, 2}, {2, 2}, {0, 0, 0, 0}, 0, 0},
                                           PoolCase{"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0},
                                           PoolCase{"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 1},
                                           PoolCase{"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, 1, 0},
                                           PoolCase{"GlobalAveragePool", {}, {}, {}, 0, 0},
                                           PoolCase{"GlobalMaxPool", {}, {}, {}, 0, 0}));

TEST(OneDnnTranspose, LayoutPermutationsMatchReference) {
  if (!find_op_schema("Transpose")) GTEST_SKIP();
  Tensor x = random_tensor({2, 7, 5, 3}, 1);
  for (std::vector<int64_t> perm : {std::vector<int64_t>{0, 2, 3, 1}, std::vector<int64_t>{0, 3, 1, 2}}) {
    Node node = make_node("Transpose", 1);
    set_ints(node, "perm", perm);
    auto ref = run_node(node, {&x});
    ASSERT_TRUE(ref.ok());
    auto k = make_kernel(node, {&x}, {false}, DType::kFloat32, (*ref)[0].shape());
    ASSERT_NE(k, nullptr);
    EXPECT_TRUE(bitwise_equal(run_kernel(*k, node, {&x}, DType::kFloat32, (*ref)[0].shape()), (*ref)[0]));
  }
  Node other = make_node("Transpose", 1);
  set_ints(other, "perm", {0, 2, 1, 3});
  EXPECT_EQ(make_kernel(other, {&x}, {false}, DType::kFloat32, {2, 5, 7, 3}), nullptr);
}

}  // namespace
}  // namespace openge::testing
