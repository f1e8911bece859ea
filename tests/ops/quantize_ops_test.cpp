// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against hand-computed values
// (round half to even, saturation, per-axis parameters), MatMulInteger / QLinearMatMul and
// ConvInteger / QLinearConv.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "op_test_util.h"

namespace openge {
namespace {

using testing::make_node;
using testing::make_tensor;
using testing::run_node;
using testing::set_int;

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.scalar_as_double(i));
  return v;
}

TEST(OpQuantize, QuantizeRoundsHalfToEvenAndSaturates) {
  // x / 2 = 0.5, 1.5, 2.5, -0.5, 300, -300 -> rint 0, 2, 2, -0 ; + zp 10; uint8 clamps.
  Tensor x = make_tensor<float>(DType::kFloat32, {6}, {1, 3, 5, -1, 600, -600});
  Tensor s = make_tensor<float>(DType::kFloat32, {}, {2});
  Tensor zp = make_tensor<uint8_t>(DType::kUInt8, {}, {10});
  auto out = run_node(make_node("QuantizeLinear", 3), {&x, &s, &zp});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kUInt8);
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{10, 12, 12, 10, 255, 0}));
}

TEST(OpQuantize, QuantizeWithoutZeroPointIsUint8AndInt8FollowsZeroPoint) {
  Tensor x = make_tensor<float>(DType::kFloat32, {3}, {-1, 0.4f, 1000});
  Tensor s = make_tensor<float>(DType::kFloat32, {}, {1});
  auto out = run_node(make_node("QuantizeLinear", 2), {&x, &s});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kUInt8);
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{0, 0, 255}));
  Tensor zp = make_tensor<int8_t>(DType::kInt8, {}, {-1});
  auto out8 = run_node(make_node("QuantizeLinear", 3), {&x, &s, &zp});
  ASSERT_TRUE(out8.ok()) << out8.status().message();
  EXPECT_EQ((*out8)[0].dtype(), DType::kInt8);
  EXPECT_EQ(values_of((*out8)[0]), (std::vector<double>{-2, -1, 127}));
}

TEST(OpQuantize, PerAxisQuantizeAndDequantize) {
  // x [2, 3], axis 1: column j uses scale[j], zero_point[j].
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor s = make_tensor<float>(DType::kFloat32, {3}, {1, 2, 4});
  Tensor zp = make_tensor<uint8_t>(DType::kUInt8, {3}, {0, 1, 2});
  Node q = make_node("QuantizeLinear", 3);
  set_int(q, "axis", 1);
  auto out = run_node(q, {&x, &s, &zp}, 13);
  ASSERT_TRUE(out.ok()) << out.status().message();
  // 1/1+0, 2/2+1, 3/4=0.75->1 +2, 4, 5/2=2.5->2 +1, 6/4=1.5->2 +2
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{1, 2, 3, 4, 3, 4}));
  Node dq = make_node("DequantizeLinear", 3);
  set_int(dq, "axis", 1);
  auto back = run_node(dq, {&(*out)[0], &s, &zp}, 13);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ((*back)[0].dtype(), DType::kFloat32);
  EXPECT_EQ(values_of((*back)[0]), (std::vector<double>{1, 2, 4, 4, 4, 8}));
  // Per-axis parameters at opset 10 are an error.
  EXPECT_FALSE(run_node(q, {&x, &s, &zp}, 10).ok());
}

TEST(OpQuantize, DequantizeInt8AndInt32) {
  Tensor x = make_tensor<int8_t>(DType::kInt8, {3}, {-128, 0, 127});
  Tensor s = make_tensor<float>(DType::kFloat32, {}, {0.5f});
  Tensor zp = make_tensor<int8_t>(DType::kInt8, {}, {-28});
  auto out = run_node(make_node("DequantizeLinear", 3), {&x, &s, &zp});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{-50, 14, 77.5}));
  Tensor xi = make_tensor<int32_t>(DType::kInt32, {2}, {-1000, 3});
  auto outi = run_node(make_node("DequantizeLinear", 2), {&xi, &s});
  ASSERT_TRUE(outi.ok()) << outi.status().message();
  EXPECT_EQ(values_of((*outi)[0]), (std::vector<double>{-500, 1.5}));
}

TEST(OpQuantize, DynamicQuantizeRangeIncludesZero) {
  // min 0 (all positive), max 2.55 -> scale 0.01, zero point 0.
  Tensor x = make_tensor<float>(DType::kFloat32, {3}, {0.5f, 2.55f, 1.005f});
  auto out = run_node(make_node("DynamicQuantizeLinear", 1, 3), {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_NEAR((*out)[1].data<float>()[0], 0.01f, 1e-7);
  EXPECT_EQ((*out)[2].data<uint8_t>()[0], 0);
  EXPECT_EQ(values_of((*out)[0])[0], 50);
  EXPECT_EQ(values_of((*out)[0])[1], 255);
  // min -1, max 1.55: scale 0.01, zero point round(100) = 100; -1 -> 0, 0 -> 100.
  Tensor y = make_tensor<float>(DType::kFloat32, {3}, {-1, 0, 1.55f});
  auto out2 = run_node(make_node("DynamicQuantizeLinear", 1, 3), {&y});
  ASSERT_TRUE(out2.ok()) << out2.status().message();
  EXPECT_EQ((*out2)[2].data<uint8_t>()[0], 100);
  EXPECT_EQ(values_of((*out2)[0]), (std::vector<double>{0, 100, 255}));
}

TEST(OpQuantize, MatMulIntegerWithZeroPointsByHand) {
  // (A - 10) = [[0, 2], [4, 6]], (B - 1) = [[0, 1], [2, 3]] -> [[4, 6], [12, 22]].
  Tensor a = make_tensor<uint8_t>(DType::kUInt8, {2, 2}, {10, 12, 14, 16});
  Tensor b = make_tensor<uint8_t>(DType::kUInt8, {2, 2}, {1, 2, 3, 4});
  Tensor azp = make_tensor<uint8_t>(DType::kUInt8, {}, {10});
  Tensor bzp = make_tensor<uint8_t>(DType::kUInt8, {}, {1});
  auto out = run_node(make_node("MatMulInteger", 4), {&a, &b, &azp, &bzp});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt32);
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{4, 6, 12, 22}));
  // Per-row a_zero_point [10, 14]: both rows become [0, 2].
  Tensor azp_rows = make_tensor<uint8_t>(DType::kUInt8, {2}, {10, 14});
  auto rows = run_node(make_node("MatMulInteger", 4), {&a, &b, &azp_rows, &bzp});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(values_of((*rows)[0]), (std::vector<double>{4, 6, 4, 6}));
  // int8 extremes without zero points: (-128)(-128) + 127·127.
  Tensor a8 = make_tensor<int8_t>(DType::kInt8, {1, 2}, {-128, 127});
  Tensor b8 = make_tensor<int8_t>(DType::kInt8, {2, 1}, {-128, 127});
  auto ext = run_node(make_node("MatMulInteger", 2), {&a8, &b8});
  ASSERT_TRUE(ext.ok()) << ext.status().message();
  EXPECT_EQ(values_of((*ext)[0]), (std::vector<double>{32513}));
  // Inner dimensions that differ are an error.
  EXPECT_FALSE(run_node(make_node("MatMulInteger", 2), {&a8, &a8}).ok());
}

TEST(OpQuantize, QLinearMatMulRequantizesByHand) {
  // real A = 0.5·[2, 4] = [1, 2]; B - 1 = [2, 4]; int product 2·2 + 4·4 = 20.
  Tensor a = make_tensor<uint8_t>(DType::kUInt8, {1, 2}, {2, 4});
  Tensor as = make_tensor<float>(DType::kFloat32, {}, {0.5f});
  Tensor azp = make_tensor<uint8_t>(DType::kUInt8, {}, {0});
  Tensor b = make_tensor<uint8_t>(DType::kUInt8, {2, 1}, {3, 5});
  Tensor bs = make_tensor<float>(DType::kFloat32, {}, {1});
  Tensor bzp = make_tensor<uint8_t>(DType::kUInt8, {}, {1});
  Tensor yzp = make_tensor<uint8_t>(DType::kUInt8, {}, {3});
  // y_scale 2: 20·0.25 = 5, +3; y_scale 8: 1.25 -> 1, +3; y_scale 0.01: 1000 saturates to 255.
  for (auto [ys, want] : {std::pair<float, double>{2, 8}, {8, 4}, {0.01f, 255}}) {
    Tensor y_scale = make_tensor<float>(DType::kFloat32, {}, {ys});
    auto out = run_node(make_node("QLinearMatMul", 8), {&a, &as, &azp, &b, &bs, &bzp, &y_scale, &yzp});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[0].dtype(), DType::kUInt8);
    EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{want})) << "y_scale " << ys;
  }
}

TEST(OpQuantize, ConvIntegerPaddingGroupsAndPerChannelZeroPointByHand) {
  // x - 1 = [[0,1,2],[3,4,5],[6,7,8]], 2x2 kernel of ones: the four window sums.
  Tensor x = make_tensor<uint8_t>(DType::kUInt8, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = make_tensor<uint8_t>(DType::kUInt8, {1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor xzp = make_tensor<uint8_t>(DType::kUInt8, {}, {1});
  auto out = run_node(make_node("ConvInteger", 3), {&x, &w, &xzp});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt32);
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{8, 12, 20, 24}));
  // Pads of 1: 4x4 output; padding contributes nothing (it reads the zero point).
  Node padded = make_node("ConvInteger", 3);
  testing::set_ints(padded, "pads", {1, 1, 1, 1});
  auto pout = run_node(padded, {&x, &w, &xzp});
  ASSERT_TRUE(pout.ok()) << pout.status().message();
  ASSERT_EQ((*pout)[0].shape(), (Shape{1, 1, 4, 4}));
  const std::vector<double> pv = values_of((*pout)[0]);
  EXPECT_EQ(pv[0], 0);   // x[0,0] only
  EXPECT_EQ(pv[3], 2);   // x[0,2] only
  EXPECT_EQ(pv[5], 8);   // the first full window
  EXPECT_EQ(pv[15], 8);  // x[2,2] only
  // group 2, per-output-channel w_zero_point [1, 0]: 5·(2-1), 7·3.
  Tensor xg = make_tensor<uint8_t>(DType::kUInt8, {1, 2, 1, 1}, {5, 7});
  Tensor wg = make_tensor<uint8_t>(DType::kUInt8, {2, 1, 1, 1}, {2, 3});
  Tensor wzp = make_tensor<uint8_t>(DType::kUInt8, {2}, {1, 0});
  Node grouped = make_node("ConvInteger", 4);
  set_int(grouped, "group", 2);
  auto gout = run_node(grouped, {&xg, &wg, nullptr, &wzp});
  ASSERT_TRUE(gout.ok()) << gout.status().message();
  EXPECT_EQ(values_of((*gout)[0]), (std::vector<double>{5, 21}));
  set_int(grouped, "group", 3);  // 2 channels do not split into 3 groups
  EXPECT_FALSE(run_node(grouped, {&xg, &wg, nullptr, &wzp}).ok());
}

TEST(OpQuantize, QLinearConvWithBiasByHand) {
  // int sum 2+4+6+8 = 20, + bias 4 = 24, times 0.5·1 / y_scale, + y_zero_point 1.
  Tensor x = make_tensor<uint8_t>(DType::kUInt8, {1, 1, 2, 2}, {2, 4, 6, 8});
  Tensor xs = make_tensor<float>(DType::kFloat32, {}, {0.5f});
  Tensor zp0 = make_tensor<uint8_t>(DType::kUInt8, {}, {0});
  Tensor w = make_tensor<uint8_t>(DType::kUInt8, {1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor ws = make_tensor<float>(DType::kFloat32, {}, {1});
  Tensor yzp = make_tensor<uint8_t>(DType::kUInt8, {}, {1});
  Tensor bias = make_tensor<int32_t>(DType::kInt32, {1}, {4});
  for (auto [ys, want] : {std::pair<float, double>{2, 7}, {5, 3}}) {  // 6 + 1; 2.4 -> 2, + 1
    Tensor y_scale = make_tensor<float>(DType::kFloat32, {}, {ys});
    auto out = run_node(make_node("QLinearConv", 9), {&x, &xs, &zp0, &w, &ws, &zp0, &y_scale, &yzp, &bias});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(values_of((*out)[0]), (std::vector<double>{want})) << "y_scale " << ys;
  }
}

TEST(OpQuantize, BadParametersAreErrors) {
  Tensor x = make_tensor<float>(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor s = make_tensor<float>(DType::kFloat32, {2}, {1, 2});  // axis 1 has 3
  Node q = make_node("QuantizeLinear", 2);
  set_int(q, "axis", 1);
  EXPECT_FALSE(run_node(q, {&x, &s}, 13).ok());
  set_int(q, "axis", 5);
  EXPECT_FALSE(run_node(q, {&x, &s}, 13).ok());
}

}  // namespace
}  // namespace openge

namespace openge {
namespace {

// The per-tensor float32 QuantizeLinear is a vectorised loop (clamp, then round by the 1.5 * 2^23
// shift); the per-axis form keeps the scalar definition (nearbyint, then saturate). With every
// axis entry equal they compute the same function: compare them on ties, saturation, NaN, inf.
TEST(OpQuantize, VectorisedPerTensorQuantizeEqualsScalarDefinition) {
  std::vector<float> xs;
  for (int i = -700; i <= 700; ++i) xs.push_back(static_cast<float>(i) * 0.25f);  // every .5 tie
  for (float v : {1e30f, -1e30f, 8388609.0f, -8388609.0f, 1e-30f, -0.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
    xs.push_back(v);
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<float> pairs;  // x [n, 2]: an axis of length 2, so the per-axis form stays per-axis
  for (float v : xs) pairs.insert(pairs.end(), {v, v});
  Tensor x(DType::kFloat32, {n, 2});
  std::copy(pairs.begin(), pairs.end(), x.data<float>());
  for (const auto& [dtype, zp] : {std::pair{DType::kUInt8, 0}, std::pair{DType::kUInt8, 131},
                                  std::pair{DType::kInt8, -128}, std::pair{DType::kInt8, 5}}) {
    for (float scale : {0.5f, 0.37f, 3.0f}) {
      Tensor s = make_tensor<float>(DType::kFloat32, {}, {scale});
      Tensor s_axis = make_tensor<float>(DType::kFloat32, {2}, {scale, scale});
      Tensor z(dtype, {}), z_axis(dtype, {2});
      for (int64_t i = 0; i < 2; ++i) {
        if (dtype == DType::kUInt8)
          z.data<uint8_t>()[0] = z_axis.data<uint8_t>()[i] = static_cast<uint8_t>(zp);
        else
          z.data<int8_t>()[0] = z_axis.data<int8_t>()[i] = static_cast<int8_t>(zp);
      }
      Node per_axis = make_node("QuantizeLinear", 3);
      set_int(per_axis, "axis", 1);
      auto fast = run_node(make_node("QuantizeLinear", 3), {&x, &s, &z}, 13);
      auto slow = run_node(per_axis, {&x, &s_axis, &z_axis}, 13);
      ASSERT_TRUE(fast.ok() && slow.ok());
      EXPECT_EQ(values_of((*fast)[0]), values_of((*slow)[0]))
          << dtype_name(dtype) << " zp " << zp << " scale " << scale;
    }
  }
}

}  // namespace
}  // namespace openge
