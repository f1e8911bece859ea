// The ops' own size checks follow the one size-limit policy (base/size_limit.h): lower the
// calling thread's limit and they refuse what they used to let through under a fixed local
// constant (4 GiB in generated_size.h, 2^36 elements in math_common.h, 2^30 in nn_window.h).
#include <gtest/gtest.h>

#include "base/size_limit.h"
#include "ops/generated_size.h"
#include "ops/math/math_common.h"
#include "ops/nn/nn_window.h"

namespace openge {
namespace {

bool mentions_the_option(const std::string& message) { return message.find("max_tensor_bytes") != std::string::npos; }

TEST(SizeLimitOps, GeneratedSizesMeetTheSessionsLimit) {
  ScopedMaxTensorBytes limit(1000);
  EXPECT_EQ(generated_size_error({250}, DType::kFloat32), std::nullopt);  // 1000 bytes: at the limit
  const auto err = generated_size_error({251}, DType::kFloat32);          // 1004 bytes
  ASSERT_TRUE(err.has_value());
  EXPECT_TRUE(mentions_the_option(*err)) << *err;
  EXPECT_NE(err->find("1000 bytes"), std::string::npos) << *err;
  EXPECT_TRUE(generated_size_error({126}, DType::kInt64).has_value());  // 1008 bytes
  EXPECT_TRUE(generated_size_error({-1, 4}, DType::kFloat32).has_value());
}

TEST(SizeLimitOps, PlannedShapesMeetTheSessionsLimit) {
  ScopedMaxTensorBytes limit(4096);
  EXPECT_TRUE(shape_size_ok({64, 64}));
  EXPECT_FALSE(shape_size_ok({64, 65}));
  EXPECT_TRUE(shape_size_ok({-1, 4096})) << "unknown dims are checked at run time";
  EXPECT_FALSE(shape_size_ok({-2, 4}));
  EXPECT_TRUE(check_output_elements({1, 4096}).ok());
  const Status st = check_output_elements({2, 4096});
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(mentions_the_option(st.message())) << st.message();
}

TEST(SizeLimitOps, TheDefaultLimitStillAdmitsWhatTheOldLocalLimitsDid) {
  // 2^30 fp32 elements (4 GiB) is the default limit exactly: planned shapes up to 2^32 elements
  // pass the element pre-check, and the dtype-aware check refuses one float more.
  EXPECT_TRUE(shape_size_ok({int64_t{1} << 16, int64_t{1} << 16}));
  EXPECT_EQ(generated_size_error({int64_t{1} << 30}, DType::kFloat32), std::nullopt);
  EXPECT_TRUE(generated_size_error({(int64_t{1} << 30) + 1}, DType::kFloat32).has_value());
}

}  // namespace
}  // namespace openge
