// AI Core bilinear Resize (kernels/bilinear_resize_kernel.cpp): ONNX's worked example by hand, then
// against the reference kernel in both layouts and every coordinate mode it takes, and the forms
// it leaves to the reference kernel.
#include "kernel_test_util.h"
#include "ops/op_registry.h"
#include "../ops/op_test_util.h"

namespace openge::testing {
namespace {

Tensor floats(Shape shape, std::vector<float> v) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

Tensor int64s(std::vector<int64_t> v) {
  Tensor t(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

Node resize_node(const std::string& coord, const std::string& mode = "linear") {
  Node n = make_node("Resize", 4);
  set_string(n, "mode", mode);
  set_string(n, "coordinate_transformation_mode", coord);
  return n;
}

// ONNX's operator documentation, resize_upsample_scales_linear: [[1, 2], [3, 4]] scaled by 2
// with half_pixel coordinates.
TEST(BilinearResizeKernel, UpsamplesOnnxsWorkedExample) {
  const Node node = resize_node("half_pixel");
  const Tensor x = floats({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor scales = floats({4}, {1, 1, 2, 2});
  const Shape out{1, 1, 4, 4};
  auto k = make_kernel(node, {&x, nullptr, &scales}, {false, true, true}, DType::kFloat32, out);
  ASSERT_NE(k, nullptr);
  const Tensor y = run_kernel(*k, node, {&x, nullptr, &scales}, DType::kFloat32, out);
  const std::vector<float> want{1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], want[i]) << "element " << i;
}

struct ResizeCase {
  std::string coord;
  Shape x;
  std::vector<int64_t> sizes;
};
void PrintTo(const ResizeCase& c, std::ostream* os) {
  *os << c.coord << " " << shape_to_string(c.x) << " -> " << shape_to_string(c.sizes);
}

class BilinearResizeTest : public ::testing::TestWithParam<ResizeCase> {};

// The kernel is built (it covers the form) and gives the reference kernel's values.
TEST_P(BilinearResizeTest, MatchesReferenceKernel) {
  const ResizeCase c = GetParam();
  const Node node = resize_node(c.coord);
  const Tensor x = random_tensor(c.x, 7);
  const Tensor sizes = int64s(c.sizes);
  const std::vector<const Tensor*> inputs{&x, nullptr, nullptr, &sizes};
  auto ref = run_node(node, inputs);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const Tensor& expected = (*ref)[0];
  ASSERT_EQ(expected.shape(), Shape(c.sizes.begin(), c.sizes.end()));
  auto k = make_kernel(node, inputs, {false, true, true, true}, DType::kFloat32, expected.shape());
  ASSERT_NE(k, nullptr);
  EXPECT_LT(max_rel_diff(run_kernel(*k, node, inputs, DType::kFloat32, expected.shape()), expected), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, BilinearResizeTest,
    ::testing::Values(ResizeCase{"pytorch_half_pixel", {1, 21, 28, 28}, {1, 21, 224, 224}},  // LR-ASPP's last
                      ResizeCase{"half_pixel", {2, 3, 14, 14}, {2, 3, 28, 28}},
                      ResizeCase{"half_pixel", {1, 14, 14, 128}, {1, 28, 28, 128}},  // NHWC: inner dim C
                      ResizeCase{"align_corners", {1, 2, 5, 7}, {1, 2, 13, 29}},
                      ResizeCase{"asymmetric", {1, 3, 9, 10}, {1, 3, 4, 5}},  // downsampling
                      ResizeCase{"half_pixel", {2, 4, 6, 9}, {2, 4, 6, 20}},  // W only
                      ResizeCase{"half_pixel", {2, 8, 5, 3}, {2, 16, 5, 3}},  // H only, with an inner dim
                      ResizeCase{"pytorch_half_pixel", {1, 1, 1, 6}, {1, 1, 1, 1}}));

// Upsample (opset 9: X, scales; asymmetric coordinates) takes the same kernel.
TEST(BilinearResizeKernel, UpsampleOpset9MatchesReferenceKernel) {
  Node node = make_node("Upsample", 2);
  set_string(node, "mode", "linear");
  const Tensor x = random_tensor({1, 3, 5, 6}, 5);
  const Tensor scales = floats({4}, {1, 1, 2, 2.5});
  const std::vector<const Tensor*> inputs{&x, &scales};
  auto ref = run_node(node, inputs, 9);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const Tensor& expected = (*ref)[0];
  ASSERT_EQ(expected.shape(), Shape({1, 3, 10, 15}));
  KernelRequest req{node, 9, {info_of(&x, false), info_of(&scales, true)}, {}};
  req.outputs.push_back(ValueInfo{DType::kFloat32, true, expected.shape(), nullptr});
  auto k = make_aicore_kernel(req);
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_NE(*k, nullptr);
  Tensor got(DType::kFloat32, expected.shape());
  KernelContext ctx(node, 9, inputs, {&got});
  ASSERT_TRUE((*k)->run(ctx).ok());
  EXPECT_LT(max_rel_diff(got, expected), 1e-6);
}

// Forms the kernel does not cover: the reference kernel runs them.
TEST(BilinearResizeKernel, LeavesOtherFormsToTheReferenceKernel) {
  const Tensor x = random_tensor({1, 2, 4, 4}, 3);
  const Tensor sizes = int64s({1, 2, 8, 8});
  const Shape out{1, 2, 8, 8};
  const std::vector<const Tensor*> in{&x, nullptr, nullptr, &sizes};
  EXPECT_EQ(make_kernel(resize_node("half_pixel", "nearest"), in, {false, true, true, true}, DType::kFloat32, out),
            nullptr);
  EXPECT_EQ(make_kernel(resize_node("half_pixel", "cubic"), in, {false, true, true, true}, DType::kFloat32, out),
            nullptr);
  // sizes known only at run time
  EXPECT_EQ(make_kernel(resize_node("half_pixel"), in, {false, true, true, false}, DType::kFloat32, out), nullptr);
  // three dims resized
  const Tensor sizes3 = int64s({1, 4, 8, 8});
  const std::vector<const Tensor*> in3{&x, nullptr, nullptr, &sizes3};
  EXPECT_EQ(make_kernel(resize_node("half_pixel"), in3, {false, true, true, true}, DType::kFloat32, {1, 4, 8, 8}),
            nullptr);
}

}  // namespace
}  // namespace openge::testing
