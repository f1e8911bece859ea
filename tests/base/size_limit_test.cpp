// The size-limit policy (src/base/size_limit.h): checked shape arithmetic, the limit and its
// override, and the Tensor constructor as the last line of defence. Expected numbers are
// worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <thread>

#include "base/size_limit.h"
#include "openge/tensor.h"

namespace openge {
namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SizeLimit, NumelOfOrdinaryShapes) {
  EXPECT_EQ(checked_numel({}).value(), 1);          // a scalar
  EXPECT_EQ(checked_numel({2, 3, 4}).value(), 24);  // 2*3*4
  EXPECT_EQ(checked_numel({0, 5}).value(), 0);
  EXPECT_EQ(checked_numel({kI64Max}).value(), kI64Max);
}

TEST(SizeLimit, NumelRefusesNegativeDims) {
  auto r = checked_numel({3, -1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidModel);
  EXPECT_TRUE(contains(r.status().message(), "[3,-1]")) << r.status().message();
}

TEST(SizeLimit, NumelRefusesOverflowEvenBehindAZero) {
  // 2^32 * 2^32 = 2^64 > int64 max.
  EXPECT_FALSE(checked_numel({int64_t{1} << 32, int64_t{1} << 32}).ok());
  // Empty, but strides of these dims would overflow: refused too.
  EXPECT_FALSE(checked_numel({int64_t{1} << 62, int64_t{1} << 62, 0}).ok());
  // 2^31 * 2^31 = 2^62 fits.
  EXPECT_EQ(checked_numel({int64_t{1} << 31, int64_t{1} << 31}).value(), int64_t{1} << 62);
}

TEST(SizeLimit, BytesMultiplyByTheElementSizeWithOverflowCheck) {
  EXPECT_EQ(checked_nbytes({3, 5}, 4).value(), 60u);  // 15 floats
  // 2^61 elements of 8 bytes = 2^64 bytes: the numel fits, the bytes do not.
  EXPECT_TRUE(checked_numel({int64_t{1} << 61}).ok());
  EXPECT_FALSE(checked_nbytes({int64_t{1} << 61}, 8).ok());
}

TEST(SizeLimit, DefaultIsFourGiBAndRealModelsPass) {
  EXPECT_EQ(kDefaultMaxTensorBytes, uint64_t{4294967296});
  EXPECT_EQ(max_tensor_bytes(), kDefaultMaxTensorBytes);
  // A 340 MB initializer (85,000,000 floats) and BERT-large's 30522x1024 fp32 embedding.
  EXPECT_TRUE(check_tensor_size({85000000}, 4, "initializer").ok());
  EXPECT_TRUE(check_tensor_size({30522, 1024}, 4, "embedding").ok());
  // Exactly 4 GiB (2^30 floats) is allowed, one element more is not.
  EXPECT_TRUE(check_tensor_size({int64_t{1} << 30}, 4, "t").ok());
  EXPECT_FALSE(check_tensor_size({(int64_t{1} << 30) + 1}, 4, "t").ok());
}

TEST(SizeLimit, ErrorNamesTheTensorTheShapeTheBytesAndTheLimit) {
  Status s = check_tensor_size({100000, 100000}, 4, "ConstantOfShape 'cos1': output 0");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  const std::string& m = s.message();
  EXPECT_TRUE(contains(m, "ConstantOfShape 'cos1': output 0")) << m;
  EXPECT_TRUE(contains(m, "[100000,100000]")) << m;
  EXPECT_TRUE(contains(m, "40000000000 bytes")) << m;  // 1e10 floats * 4
  EXPECT_TRUE(contains(m, "4294967296 bytes")) << m;
  EXPECT_TRUE(contains(m, "max_tensor_bytes")) << m;
}

TEST(SizeLimit, OverflowingAndNegativeShapesAreErrorsNotWraparounds) {
  Status over = check_tensor_size({int64_t{1} << 40, int64_t{1} << 40}, 4, "t");
  ASSERT_FALSE(over.ok());
  EXPECT_TRUE(contains(over.message(), "overflows")) << over.message();
  Status neg = check_tensor_size({-2, -3}, 4, "t");  // product 6 if signs were ignored
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.code(), StatusCode::kInvalidModel);
  // Empty tensors are fine, absurd empty ones are not.
  EXPECT_TRUE(check_tensor_size({0, 1000}, 4, "t").ok());
  EXPECT_FALSE(check_tensor_size({0, int64_t{1} << 40}, 4, "t").ok());
}

TEST(SizeLimit, ScopedLimitOverridesOnThisThreadOnlyAndNests) {
  {
    ScopedMaxTensorBytes limit(1000);
    EXPECT_EQ(max_tensor_bytes(), 1000u);
    EXPECT_TRUE(check_tensor_size({250}, 4, "t").ok());   // 1000 bytes
    EXPECT_FALSE(check_tensor_size({251}, 4, "t").ok());  // 1004 bytes
    uint64_t other_thread = 0;
    std::thread([&] { other_thread = max_tensor_bytes(); }).join();
    EXPECT_EQ(other_thread, kDefaultMaxTensorBytes);
    {
      ScopedMaxTensorBytes inner(10);
      EXPECT_EQ(max_tensor_bytes(), 10u);
      ScopedMaxTensorBytes keep(0);  // 0 keeps the current limit
      EXPECT_EQ(max_tensor_bytes(), 10u);
    }
    EXPECT_EQ(max_tensor_bytes(), 1000u);
  }
  EXPECT_EQ(max_tensor_bytes(), kDefaultMaxTensorBytes);
}

TEST(SizeLimit, TensorConstructorRefusesWithTensorSizeErrorBeforeAllocating) {
  // 2^40 floats = 4 TiB: refused by the policy, not by the allocator (no std::bad_alloc).
  try {
    Tensor t(DType::kFloat32, {int64_t{1} << 40});
    FAIL() << "a 4 TiB tensor was allocated";
  } catch (const TensorSizeError& e) {
    EXPECT_TRUE(contains(e.what(), "[1099511627776]")) << e.what();
    EXPECT_EQ(e.status().code(), StatusCode::kResourceExhausted);
  }
  EXPECT_THROW(Tensor(DType::kFloat32, {-1, 4}), TensorSizeError);
  EXPECT_THROW(Tensor(DType::kInt64, {int64_t{1} << 62, 4}), TensorSizeError);  // overflow
  {
    ScopedMaxTensorBytes limit(64);
    EXPECT_NO_THROW(Tensor(DType::kFloat32, {16}));
    EXPECT_THROW(Tensor(DType::kFloat32, {17}), TensorSizeError);
  }
  Tensor ok(DType::kFloat32, {2, 3});
  EXPECT_EQ(ok.numel(), 6);
}

}  // namespace
}  // namespace openge
