// The SiLU pass convolutions ending in Swish run after their primitive (kernels/silu_in_place.h):
// every length's vector blocks and tail, the range ends and special values, against x / (1 + e^-x)
// in double.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/silu_in_place.h"

namespace openge {
namespace {

double silu_exact(double x) { return x / (1.0 + std::exp(-x)); }

TEST(SiluInPlace, EveryLengthMatchesTheDefinition) {
  for (int64_t n : {0, 1, 7, 15, 16, 17, 63, 64, 65, 1000, 100003}) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>((i * 7919) % 4001 - 2000) / 100.0f;
    const std::vector<float> x = v;
    silu_in_place(v.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const double want = silu_exact(x[static_cast<size_t>(i)]);
      ASSERT_NEAR(v[static_cast<size_t>(i)], want, 3e-7 * std::fabs(want) + 1e-30)
          << "n " << n << " x " << x[static_cast<size_t>(i)];
    }
  }
}

TEST(SiluInPlace, RangeEndsAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f,   -0.0f,  1e-30f,  -1e-30f, 88.0f, 89.0f,         100.0f, -80.0f,
                          -87.0f, -88.0f, -104.0f, 1e30f,   inf,   std::nanf(""), 3.0f,   -3.0f};
  x.resize(48, 0.5f);  // the special values in the vector path, then a tail of 0.5
  x.push_back(std::nanf(""));
  x.push_back(inf);
  x.push_back(-80.0f);
  std::vector<float> v = x;
  silu_in_place(v.data(), static_cast<int64_t>(v.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(v[i])) << i;
      continue;
    }
    if (std::isinf(x[i])) {
      EXPECT_EQ(v[i], inf) << i;
      continue;
    }
    const double want = silu_exact(x[i]);
    // Below -87 the exponential is clamped: the result is a tiny negative number or zero.
    if (x[i] < -87.0f) {
      EXPECT_LE(std::fabs(v[i]), 1e-30) << x[i];
    } else {
      EXPECT_NEAR(v[i], want, 3e-7 * std::fabs(want) + 1e-37) << x[i];
    }
  }
}

}  // namespace
}  // namespace openge
