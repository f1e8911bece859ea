// Keys' cubic convolution weights, shared by GridSample's bicubic mode (a = -0.75) and
// Resize's cubic mode (cubic_coeff_a, default -0.75).
#pragma once
#include <cmath>

namespace openge {

// Weights of the four taps at offsets -1, 0, 1, 2 from floor(x), for t = x - floor(x) in [0, 1).
inline void cubic_weights(double t, double a, double w[4]) {
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // |d| <= 1
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

}  // namespace openge
