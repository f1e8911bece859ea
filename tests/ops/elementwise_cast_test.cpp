#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise_test_util.h"

namespace openge::testing {
namespace {

using V = std::vector<double>;

Tensor cast(const Tensor& x, DType to) {
  Node n = make_node("Cast", 1);
  set_int(n, "to", static_cast<int64_t>(to));
  return run_ok(n, {&x});
}

TEST(OpCast, FloatToFloat16RoundsToNearestEven) {
  const float tiny = std::ldexp(1.0f, -11);
  const Tensor y = cast(f32({4}, {1 + tiny, 1 + 3 * tiny, 65520, -0.0f}), DType::kFloat16);
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(y.data<Float16>()[0].bits, 0x3c00);
  EXPECT_EQ(y.data<Float16>()[1].bits, 0x3c02);
  EXPECT_EQ(y.data<Float16>()[2].bits, 0x7c00);  // overflow to infinity
  EXPECT_EQ(y.data<Float16>()[3].bits, 0x8000);
}

TEST(OpCast, FloatToBFloat16RoundsToNearestEven) {
  // 1 + 2^-8 ties between 1 and 1 + 2^-7: even is 1. 1 + 3*2^-8 ties: even is 1 + 2^-6.
  const Tensor y = cast(f32({2}, {1 + std::ldexp(1.0f, -8), 1 + 3 * std::ldexp(1.0f, -8)}), DType::kBFloat16);
  EXPECT_EQ(y.data<BFloat16>()[0].bits, 0x3f80);
  EXPECT_EQ(y.data<BFloat16>()[1].bits, 0x3f82);
}

TEST(OpCast, FloatToIntTruncatesTowardZero) {
  const Tensor x = f32({5}, {-2.7f, -0.5f, 0.5f, 2.7f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(values(cast(x, DType::kInt32)), (V{-2, 0, 0, 2, 0}));
  EXPECT_EQ(values(cast(f32({2}, {3.9f, 255.5f}), DType::kUInt8)), (V{3, 255}));
  EXPECT_EQ(values(cast(tensor_of<double>(DType::kFloat64, {1}, {-1e10}), DType::kInt64)), V{-1e10});
}

TEST(OpCast, BoolConversions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(values(cast(f32({4}, {0, -0.0f, 0.5f, nan}), DType::kBool)), (V{0, 0, 1, 1}));
  EXPECT_EQ(values(cast(i64({3}, {0, -3, 2}), DType::kBool)), (V{0, 1, 1}));
  const Tensor y = cast(boolean({2}, {true, false}), DType::kFloat32);
  EXPECT_EQ(values(y), (V{1, 0}));
  EXPECT_EQ(values(cast(boolean({1}, {true}), DType::kFloat16)), V{1});
}

TEST(OpCast, IntegerNarrowingWraps) {
  EXPECT_EQ(values(cast(i64({3}, {300, -1, 127}), DType::kInt8)), (V{44, -1, 127}));
  EXPECT_EQ(values(cast(i32({1}, {-1}), DType::kUInt16)), V{65535});
}

TEST(OpCast, HalfTypesAndDoubles) {
  EXPECT_EQ(values(cast(f16({2}, {0.333251953125f, -2}), DType::kFloat32)), (V{0.333251953125, -2}));
  const Tensor b = cast(f16({1}, {1.0f + std::ldexp(1.0f, -10)}), DType::kBFloat16);  // 1+2^-10 -> 1 in bf16
  EXPECT_EQ(b.data<BFloat16>()[0].bits, 0x3f80);
  const Tensor d = cast(tensor_of<double>(DType::kFloat64, {1}, {0.1}), DType::kFloat32);
  EXPECT_EQ(d.data<float>()[0], 0.1f);
  EXPECT_EQ(values(cast(i64({1}, {1LL << 40}), DType::kFloat64)), V{static_cast<double>(1LL << 40)});
}

TEST(OpCast, EveryDtypePairConvertsSmallValues) {
  const std::vector<DType> all = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
                                  DType::kInt16,   DType::kInt32,   DType::kInt64,   DType::kUInt8,    DType::kUInt16,
                                  DType::kUInt32,  DType::kUInt64,  DType::kBool};
  for (DType from : all) {
    const Tensor src = cast(f32({3}, {0, 1, 2}), from);
    for (DType to : all) {
      const Tensor y = cast(src, to);
      EXPECT_EQ(y.dtype(), to);
      const bool any_bool = from == DType::kBool || to == DType::kBool;
      EXPECT_EQ(values(y), (any_bool ? V{0, 1, 1} : V{0, 1, 2})) << dtype_name(from) << " -> " << dtype_name(to);
    }
  }
}

TEST(OpCast, RejectsUnsupportedTargetAndMissingAttribute) {
  const Tensor x = f32({1}, {1});
  Node to_complex = make_node("Cast", 1);
  set_int(to_complex, "to", 14);  // COMPLEX64: OpenGE holds no complex tensors
  EXPECT_FALSE(run_node(to_complex, {&x}).ok());
  EXPECT_FALSE(run_node(make_node("Cast", 1), {&x}).ok());
}

// CastLike takes the target type from input 1; that input's shape and values do not matter.
TEST(OpCastLike, CastsToTheTypeOfItsSecondInput) {
  const Tensor x = f32({3}, {1.5f, -2.7f, 65520});
  const Tensor like_half = f16({1}, {0});
  const Tensor y = run_binary("CastLike", x, like_half);
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  ASSERT_EQ(y.shape(), (Shape{3}));
  EXPECT_EQ(y.data<Float16>()[0].bits, 0x3e00);  // 1.5
  EXPECT_EQ(y.data<Float16>()[2].bits, 0x7c00);  // overflow to infinity, as Cast
  const Tensor like_int = i64({2, 2}, {0, 0, 0, 0});
  const Tensor z = run_binary("CastLike", x, like_int);
  ASSERT_EQ(z.dtype(), DType::kInt64);
  EXPECT_EQ(values(z), (V{1, -2, 65520}));  // truncated toward zero
  Tensor like_text(DType::kString, {1});
  const Tensor t = run_binary("CastLike", f32({2}, {0.5f, 1e-5f}), like_text);
  ASSERT_EQ(t.dtype(), DType::kString);
  EXPECT_EQ(t.data<std::string>()[0], "0.5");
  EXPECT_EQ(t.data<std::string>()[1], "1e-05");  // NumPy's str() of float32 1e-5
}

TEST(OpIdentity, AliasesItsInput) {
  const OpSchema* schema = find_op_schema("Identity");
  ASSERT_NE(schema, nullptr);
  EXPECT_TRUE(schema->output_aliases_input);
  const Tensor x = i64({2}, {4, 5});
  const Tensor y = run_unary("Identity", x);
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(values(y), (V{4, 5}));
}

TEST(OpDropout, InferenceCopiesInputAndFillsMask) {
  EXPECT_FALSE(find_op_schema("Dropout")->output_aliases_input);  // the mask needs the kernel
  const Tensor x = f32({3}, {1, -2, 3});
  const Node n = make_node("Dropout", 1, 2);
  auto r = run_node(n, {&x}, 13);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values((*r)[0]), (V{1, -2, 3}));
  EXPECT_EQ((*r)[1].dtype(), DType::kBool);
  EXPECT_EQ(values((*r)[1]), (V{1, 1, 1}));
  // Opset 7's mask has the data's type.
  auto old = run_node(n, {&x}, 7);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ((*old)[1].dtype(), DType::kFloat32);
  EXPECT_EQ(values((*old)[1]), (V{1, 1, 1}));
  EXPECT_EQ(values(run_unary("Dropout", x, 12)), (V{1, -2, 3}));
}

TEST(OpDropout, TrainingModeNeedsZeroRatio) {
  const Tensor x = f32({2}, {1, 2}), ratio = f32({}, {0.5f}), zero = f32({}, {0}), train = boolean({}, {true});
  EXPECT_FALSE(run_node(make_node("Dropout", 3), {&x, &ratio, &train}, 13).ok());
  auto r = run_node(make_node("Dropout", 3), {&x, &zero, &train}, 13);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values((*r)[0]), (V{1, 2}));
}

}  // namespace
}  // namespace openge::testing
