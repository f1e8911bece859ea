#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_test_util.h"
#include "ops/shape/shape_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

TEST(OpAdd, EqualShapes) {
  const Tensor a = f32({2, 2}, {1, 2, 3, 4}), b = f32({2, 2}, {10, 20, 30, 40});
  const Tensor y = run_binary("Add", a, b);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (V{11, 22, 33, 44}));
}

TEST(OpAdd, BroadcastsRowVector) {
  const Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({3}, {10, 20, 30});
  EXPECT_EQ(values(run_binary("Add", a, b)), (V{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values(run_binary("Add", b, a)), (V{11, 22, 33, 14, 25, 36}));
}

TEST(OpAdd, BroadcastsColumnVector) {
  const Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({2, 1}, {10, 20});
  EXPECT_EQ(values(run_binary("Add", a, b)), (V{11, 12, 13, 24, 25, 26}));
  EXPECT_EQ(values(run_binary("Add", b, a)), (V{11, 12, 13, 24, 25, 26}));
}

TEST(OpAdd, BroadcastsScalarOnEitherSide) {
  const Tensor a = f32({3}, {1, 2, 3}), s = f32({}, {100});
  EXPECT_EQ(values(run_binary("Add", a, s)), (V{101, 102, 103}));
  EXPECT_EQ(values(run_binary("Add", s, a)), (V{101, 102, 103}));
  const Tensor y = run_binary("Add", s, s);
  EXPECT_EQ(y.shape(), Shape{});
  EXPECT_EQ(values(y), V{200});
}

TEST(OpAdd, BroadcastsOuterSum) {
  const Tensor a = f32({3, 1}, {1, 2, 3}), b = f32({1, 4}, {10, 20, 30, 40});
  const Tensor y = run_binary("Add", a, b);
  EXPECT_EQ(y.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(y), (V{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
}

// Reference: the broadcast sum computed from multi-indices, independent of the kernel's plan.
V naive_broadcast_add(const Tensor& a, const Tensor& b, const Shape& out) {
  V r;
  const int64_t rank = static_cast<int64_t>(out.size());
  std::vector<int64_t> idx(out.size(), 0);
  for (int64_t n = 0; n < shape_numel(out); ++n) {
    int64_t rem = n;
    for (int64_t d = rank - 1; d >= 0; --d) {
      idx[d] = rem % out[d];
      rem /= out[d];
    }
    auto offset = [&](const Tensor& t) {
      int64_t off = 0;
      const int64_t lead = rank - t.rank();
      for (int64_t d = 0; d < t.rank(); ++d) off = off * t.dim(d) + (t.dim(d) == 1 ? 0 : idx[lead + d]);
      return off;
    };
    r.push_back(a.scalar_as_double(offset(a)) + b.scalar_as_double(offset(b)));
  }
  return r;
}

Tensor iota(Shape shape, float scale) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i) * scale;
  return t;
}

TEST(OpAdd, GeneralBroadcastsMatchNaiveIndexing) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3, 4, 5}, {3, 1, 1}},     // per-channel bias
      {{2, 1, 3, 4}, {5, 1, 4}},     // mixed
      {{4, 1, 3}, {1, 5, 1}},        // inner dim broadcast on one side, outer on other
      {{1, 3, 1, 5}, {2, 1, 4, 1}},  // alternating
      {{2, 3, 4}, {2, 3, 4}},       {{7, 1}, {1}},
  };
  for (const auto& [sa, sb] : cases) {
    const Tensor a = iota(sa, 1.0f), b = iota(sb, 1000.0f);
    const Shape out = *broadcast_shapes(sa, sb);
    EXPECT_EQ(values(run_binary("Add", a, b)), naive_broadcast_add(a, b, out))
        << shape_to_string(sa) << " + " << shape_to_string(sb);
  }
}

TEST(OpAdd, LargeTensorsSplitAcrossThreadsCorrectly) {
  const Tensor a = iota({2, 129, 301}, 1.0f), b = iota({129, 1}, 0.5f), c = iota({2, 129, 301}, 2.0f);
  EXPECT_EQ(values(run_binary("Add", a, b)), naive_broadcast_add(a, b, a.shape()));
  const V sum = values(run_binary("Add", a, c));
  for (size_t i = 0; i < sum.size(); i += 997) EXPECT_EQ(sum[i], 3.0 * static_cast<double>(i));
}

TEST(OpAdd, Float16RoundsOnceToNearestEven) {
  const float tiny = std::ldexp(1.0f, -11);
  const Tensor a = f16({2}, {1.0f, 1.0f}), b = f16({2}, {tiny, 3 * tiny});
  const Tensor y = run_binary("Add", a, b);
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(y.data<Float16>()[0].bits, 0x3c00);  // 1 + 2^-11: tie, goes to even (1.0)
  EXPECT_EQ(y.data<Float16>()[1].bits, 0x3c02);  // 1 + 3*2^-11: tie, goes to even (1 + 2^-9)
}

TEST(OpAdd, BFloat16AndFloat64) {
  const Tensor y = run_binary("Add", bf16({2}, {1.5f, -2.0f}), bf16({1}, {0.25f}));
  EXPECT_EQ(y.dtype(), DType::kBFloat16);
  EXPECT_EQ(values(y), (V{1.75, -1.75}));
  const Tensor d =
      run_binary("Add", tensor_of<double>(DType::kFloat64, {1}, {0.1}), tensor_of<double>(DType::kFloat64, {1}, {0.2}));
  EXPECT_EQ(d.data<double>()[0], 0.1 + 0.2);
}

TEST(OpAdd, IntegersWrapAround) {
  const Tensor y = run_binary("Add", i32({2}, {std::numeric_limits<int32_t>::max(), 5}), i32({1}, {1}));
  EXPECT_EQ(y.data<int32_t>()[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(y.data<int32_t>()[1], 6);
  const Tensor u =
      run_binary("Add", tensor_of<uint8_t>(DType::kUInt8, {1}, {250}), tensor_of<uint8_t>(DType::kUInt8, {1}, {10}));
  EXPECT_EQ(u.data<uint8_t>()[0], 4);
}

TEST(OpAdd, RejectsIncompatibleShapes) {
  const Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({4}, {1, 2, 3, 4});
  auto r = run_node(make_node("Add", 2), {&a, &b});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[2,3] and [4]"), std::string::npos) << r.status().message();
}

TEST(OpAdd, RejectsMixedAndBoolDtypes) {
  const Tensor a = f32({1}, {1}), b = i32({1}, {1}), c = boolean({1}, {true});
  EXPECT_FALSE(run_node(make_node("Add", 2), {&a, &b}).ok());
  EXPECT_FALSE(run_node(make_node("Add", 2), {&c, &c}).ok());
}

TEST(OpAdd, InfersWithUnknownDims) {
  const OpSchema* schema = find_op_schema("Add");
  ASSERT_NE(schema, nullptr);
  const Node node = make_node("Add", 2);
  auto infer = [&](ValueInfo a, ValueInfo b) {
    InferContext ctx(node, 17, {&a, &b}, 1);
    EXPECT_TRUE(schema->infer(ctx).ok());
    return ctx.output(0);
  };
  const ValueInfo unknown_rows{DType::kFloat32, true, {-1, 3}, nullptr};
  ValueInfo o = infer(unknown_rows, ValueInfo{DType::kFloat32, true, {4, 1}, nullptr});
  EXPECT_TRUE(o.shape_known);
  EXPECT_EQ(o.shape, (Shape{4, 3}));
  o = infer(unknown_rows, ValueInfo{DType::kFloat32, true, {3}, nullptr});
  EXPECT_EQ(o.shape, (Shape{-1, 3}));
  o = infer(unknown_rows, ValueInfo{DType::kFloat32, false, {}, nullptr});
  EXPECT_FALSE(o.shape_known);
  EXPECT_EQ(o.dtype, DType::kFloat32);
}

TEST(OpSub, BroadcastsAndKeepsOperandOrder) {
  EXPECT_EQ(values(run_binary("Sub", f32({2}, {10, 20}), f32({}, {1}))), (V{9, 19}));
  EXPECT_EQ(values(run_binary("Sub", f32({}, {1}), f32({2}, {10, 20}))), (V{-9, -19}));
}

TEST(OpMul, FloatAndInt64) {
  EXPECT_EQ(values(run_binary("Mul", f32({2, 2}, {1, 2, 3, 4}), f32({2, 1}, {2, -1}))), (V{2, 4, -3, -4}));
  EXPECT_EQ(values(run_binary("Mul", i64({2}, {3, -4}), i64({2}, {5, 6}))), (V{15, -24}));
}

TEST(OpDiv, FloatDivisionAndDivisionByZero) {
  const V y = values(run_binary("Div", f32({3}, {1, 1, -1}), f32({3}, {4, 0, 0})));
  EXPECT_EQ(y[0], 0.25);
  EXPECT_TRUE(std::isinf(y[1]) && y[1] > 0);
  EXPECT_TRUE(std::isinf(y[2]) && y[2] < 0);
}

TEST(OpDiv, IntegersTruncateTowardZero) {
  EXPECT_EQ(values(run_binary("Div", i32({4}, {7, -7, 7, -7}), i32({4}, {2, 2, -2, -2}))), (V{3, -3, -3, 3}));
  const Tensor y = run_binary("Div", i64({1}, {std::numeric_limits<int64_t>::min()}), i64({1}, {-1}));
  EXPECT_EQ(y.data<int64_t>()[0], std::numeric_limits<int64_t>::min());  // wraps, no trap
}

TEST(OpDiv, IntegerDivisionByZeroIsAnError) {
  const Tensor a = i32({2}, {1, 2}), b = i32({2}, {1, 0});
  auto r = run_node(make_node("Div", 2), {&a, &b});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("division by zero"), std::string::npos);
}

TEST(OpPow, ScalarExponentsAndBroadcast) {
  EXPECT_EQ(values(run_binary("Pow", f32({3}, {1, 2, -3}), f32({}, {2}))), (V{1, 4, 9}));
  EXPECT_EQ(values(run_binary("Pow", f32({3}, {1, 2, -3}), f32({1}, {3}))), (V{1, 8, -27}));
  const V y = values(run_binary("Pow", f32({2, 1}, {4, 9}), f32({2}, {0.5f, -1})));
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], 0.25);
  EXPECT_EQ(y[2], 3);
  EXPECT_FLOAT_EQ(static_cast<float>(y[3]), 1.0f / 9.0f);
}

TEST(OpPow, MixedDtypesKeepBaseDtype) {
  const Tensor y = run_binary("Pow", f32({2}, {2, 3}), i64({1}, {3}));
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_EQ(values(y), (V{8, 27}));
  const Tensor z = run_binary("Pow", i32({4}, {2, -3, 2, 1}), i64({4}, {10, 3, -1, -5}));
  EXPECT_EQ(z.dtype(), DType::kInt32);
  EXPECT_EQ(values(z), (V{1024, -27, 0, 1}));
  EXPECT_EQ(values(run_binary("Pow", i64({1}, {4}), f32({1}, {0.5f}))), V{2});
}

TEST(OpPow, Float16) {
  const Tensor y = run_binary("Pow", f16({2}, {3, 0.5f}), f16({2}, {2, 3}));
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(values(y), (V{9, 0.125}));
}

TEST(OpPRelu, PerChannelSlope) {
  const Tensor x = f32({1, 2, 2}, {-1, 2, -3, 4}), slope = f32({2, 1}, {0.5f, 0.25f});
  EXPECT_EQ(values(run_binary("PRelu", x, slope)), (V{-0.5, 2, -0.75, 4}));
}

TEST(OpPRelu, SlopeMustBroadcastToInput) {
  const Tensor x = f32({3}, {1, 2, 3}), slope = f32({2, 3}, {1, 1, 1, 1, 1, 1});
  EXPECT_FALSE(run_node(make_node("PRelu", 2), {&x, &slope}).ok());
}

TEST(OpCompare, FloatsWithBroadcastAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = f32({4}, {1, 2, 3, nan}), b = f32({}, {2});
  const std::vector<std::pair<std::string, V>> cases = {{"Equal", {0, 1, 0, 0}},
                                                        {"Less", {1, 0, 0, 0}},
                                                        {"Greater", {0, 0, 1, 0}},
                                                        {"LessOrEqual", {1, 1, 0, 0}},
                                                        {"GreaterOrEqual", {0, 1, 1, 0}}};
  for (const auto& [op, expected] : cases) {
    const Tensor y = run_binary(op, a, b);
    EXPECT_EQ(y.dtype(), DType::kBool) << op;
    EXPECT_EQ(values(y), expected) << op;
  }
}

TEST(OpCompare, IntegersAndBool) {
  EXPECT_EQ(values(run_binary("Less", i64({3}, {-5, 0, 5}), i64({3, 1}, {0, 5, -10}))), (V{1, 0, 0, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(values(run_binary("Equal", boolean({2}, {true, false}), boolean({1}, {false}))), (V{0, 1}));
  const Tensor x = boolean({1}, {true});
  EXPECT_FALSE(run_node(make_node("Less", 2), {&x, &x}).ok());
}

TEST(OpLogical, TruthTablesWithBroadcast) {
  const Tensor a = boolean({2, 1}, {false, true}), b = boolean({2}, {false, true});
  EXPECT_EQ(values(run_binary("And", a, b)), (V{0, 0, 0, 1}));
  EXPECT_EQ(values(run_binary("Or", a, b)), (V{0, 1, 1, 1}));
  EXPECT_EQ(values(run_binary("Xor", a, b)), (V{0, 1, 1, 0}));
  const Tensor f = f32({1}, {1});
  EXPECT_FALSE(run_node(make_node("And", 2), {&f, &f}).ok());
}

TEST(OpWhere, BroadcastsAllThreeInputs) {
  const Tensor c = boolean({2, 1}, {true, false}), x = f32({1, 3}, {1, 2, 3}), y = f32({}, {-1});
  const Tensor out = run_ok(make_node("Where", 3), {&c, &x, &y});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(out), (V{1, 2, 3, -1, -1, -1}));
}

TEST(OpWhere, EqualShapesInt64AndFloat16) {
  const Tensor c = boolean({3}, {true, false, true});
  const Tensor x = i64({3}, {1, 2, 3}), y = i64({3}, {10, 20, 30});
  EXPECT_EQ(values(run_ok(make_node("Where", 3), {&c, &x, &y})), (V{1, 20, 3}));
  const Tensor hx = f16({3}, {0.5f, 1, 2}), hy = f16({1}, {7});
  const Tensor h = run_ok(make_node("Where", 3), {&c, &hx, &hy});
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(values(h), (V{0.5, 7, 2}));
}

TEST(OpWhere, RejectsMismatchedBranchesAndNonBoolCondition) {
  const Tensor c = boolean({1}, {true}), x = f32({1}, {1}), y = i32({1}, {1});
  EXPECT_FALSE(run_node(make_node("Where", 3), {&c, &x, &y}).ok());
  EXPECT_FALSE(run_node(make_node("Where", 3), {&x, &x, &x}).ok());
}

}  // namespace
}  // namespace openge::testing
