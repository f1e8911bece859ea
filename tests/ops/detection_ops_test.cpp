// RoiAlign and NonMaxSuppression (detection_ops.cpp). On X = 4y + x (a linear image) bilinear
// sampling is exact, so RoiAlign's averages are the sample-grid means of 4y + x; the NMS case
// is the ONNX spec's suppress-by-IoU example.
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "shape_test_util.h"

namespace openge::testing {
namespace {

using nn_util::expect_values;
using nn_util::float_tensor;
using nn_util::run_ok;

TEST(OpRoiAlign, CoordinateModesAndMaxMode) {
  Tensor x = iota(DType::kFloat32, {1, 1, 4, 4});  // value 4y + x
  Tensor rois = float_tensor({1, 4}, {0, 0, 3, 3});
  Tensor batch = ints({0});
  Node n = make_node("RoiAlign", 3);
  set_int(n, "sampling_ratio", 2);
  // opset 10 (output_half_pixel): samples at 0.75 and 2.25 on each axis -> mean 1.5 -> 7.5.
  expect_values(run1(n, {&x, &rois, &batch}, 10), {1, 1, 1, 1}, {7.5});
  // opset 16 default half_pixel: the region shifts by -0.5 -> samples at 0.25, 1.75 -> 5.
  expect_values(run1(n, {&x, &rois, &batch}, 16), {1, 1, 1, 1}, {5.0});
  // max: the largest weighted corner of the one sample at (1.5, 1.5): 0.25 * 10.
  Node m = make_node("RoiAlign", 3);
  set_int(m, "sampling_ratio", 1);
  set_string(m, "mode", "max");
  expect_values(run1(m, {&x, &rois, &batch}, 10), {1, 1, 1, 1}, {2.5});
  Tensor bad = ints({3});
  EXPECT_NE(run_error(n, {&x, &rois, &bad}).find("batch index"), std::string::npos);
}

TEST(OpNonMaxSuppression, SpecExampleSuppressByIou) {
  Node n = make_node("NonMaxSuppression", 5);
  Tensor boxes = float_tensor(
      {1, 6, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101});
  Tensor scores = float_tensor({1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  Tensor max_out = ints({3});
  Tensor iou = float_tensor({1}, {0.5});
  Tensor score = float_tensor({1}, {0.0});
  Tensor y = run1(n, {&boxes, &scores, &max_out, &iou, &score});
  EXPECT_EQ(y.shape(), (Shape{3, 3}));
  EXPECT_EQ(int_values(y), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  Tensor none = ints({0});
  EXPECT_EQ(run1(n, {&boxes, &scores, &none, &iou, &score}).shape(), (Shape{0, 3}));
}

}  // namespace
}  // namespace openge::testing
