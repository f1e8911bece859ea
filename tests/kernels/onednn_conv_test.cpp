// AI Core Conv / FusedConv against the reference Conv (AI CPU engine) on random data.
#include <thread>

#include "base/float_convert.h"
#include "kernel_test_util.h"
#include "ops/fused/fused_ops.h"
#include "ops/op_registry.h"
#include "../ops/op_test_util.h"

namespace openge::testing {
namespace {

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, stride, dil, group;
  std::vector<int64_t> pads;  // empty: auto_pad below
  std::string auto_pad;
  bool bias;
};
// ctest shows the parameter: print the case, not its bytes.
void PrintTo(const ConvCase& k, std::ostream* os) {
  *os << "x" << k.n << "x" << k.c << "x" << k.h << "x" << k.w << " m" << k.m << " k" << k.kh << "x" << k.kw << " s"
      << k.stride << " d" << k.dil << " g" << k.group << (k.auto_pad.empty() ? "" : " " + k.auto_pad)
      << (k.bias ? " bias" : "");
}

Node conv_node(const ConvCase& k, const std::string& op = "Conv", size_t inputs = 0) {
  Node node = make_node(op, inputs ? inputs : (k.bias ? 3 : 2));
  set_ints(node, "strides", {k.stride, k.stride});
  set_ints(node, "dilations", {k.dil, k.dil});
  set_int(node, "group", k.group);
  if (!k.pads.empty()) set_ints(node, "pads", k.pads);
  if (!k.auto_pad.empty()) set_string(node, "auto_pad", k.auto_pad);
  return node;
}

class OneDnnConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(OneDnnConvTest, MatchesReferenceConv) {
  if (!find_op_schema("Conv")) GTEST_SKIP() << "reference Conv not registered";
  const ConvCase k = GetParam();
  Tensor x = random_tensor({k.n, k.c, k.h, k.w}, 1);
  Tensor w = random_tensor({k.m, k.c / k.group, k.kh, k.kw}, 2);
  Tensor b = random_tensor({k.m}, 3);
  Node node = conv_node(k);
  std::vector<const Tensor*> in{&x, &w};
  if (k.bias) in.push_back(&b);
  auto ref = run_node(node, in);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const Tensor& expected = (*ref)[0];
  auto kernel = make_kernel(node, in, {false, true, true}, DType::kFloat32, expected.shape());
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->engine(), Engine::kAiCore);
  Tensor got = run_kernel(*kernel, node, in, DType::kFloat32, expected.shape());
  EXPECT_LT(max_rel_diff(got, expected), 1e-4);
  // Same bits on a second run.
  Tensor again = run_kernel(*kernel, node, in, DType::kFloat32, expected.shape());
  EXPECT_TRUE(bitwise_equal(got, again));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, OneDnnConvTest,
    ::testing::Values(ConvCase{1, 8, 10, 10, 16, 3, 3, 1, 1, 1, {1, 1, 1, 1}, "", true},    // 3x3 same
                      ConvCase{2, 16, 9, 11, 8, 3, 3, 2, 1, 1, {1, 1, 1, 1}, "", true},     // strided, odd size
                      ConvCase{1, 32, 7, 7, 64, 1, 1, 1, 1, 1, {}, "", false},              // 1x1, no bias
                      ConvCase{1, 3, 20, 20, 8, 7, 7, 2, 1, 1, {3, 3, 3, 3}, "", true},     // stem
                      ConvCase{1, 24, 12, 12, 24, 3, 3, 1, 1, 24, {1, 1, 1, 1}, "", true},  // depthwise
                      ConvCase{1, 24, 12, 12, 24, 3, 3, 2, 1, 24, {1, 1, 1, 1}, "", true},  // depthwise s2
                      ConvCase{1, 8, 10, 10, 12, 3, 3, 1, 1, 2, {0, 1, 2, 0}, "", true},    // groups, asym pads
                      ConvCase{1, 4, 13, 13, 6, 3, 3, 1, 2, 1, {2, 2, 2, 2}, "", true},     // dilation
                      ConvCase{1, 4, 9, 8, 6, 4, 3, 2, 1, 1, {}, "SAME_UPPER", true},       // auto_pad
                      ConvCase{1, 4, 9, 8, 6, 4, 3, 2, 1, 1, {}, "SAME_LOWER", false},
                      ConvCase{1, 4, 9, 8, 6, 3, 3, 2, 1, 1, {}, "VALID", true}));

Node fused_conv_node(const ConvCase& k, const FusedActivation& act, bool channels_last, size_t inputs) {
  Node node = conv_node(k, kFusedConv, inputs);
  node.domain = kFusedDomain;
  write_fused_activation(node, act);
  set_int(node, "channels_last", channels_last ? 1 : 0);
  return node;
}

struct FusedCase {
  FusedActivation act;
  bool residual;
};
void PrintTo(const FusedCase& f, std::ostream* os) {
  *os << "activation " << static_cast<int>(f.act.kind) << (f.residual ? " + residual" : "");
}

class OneDnnFusedConvTest : public ::testing::TestWithParam<FusedCase> {};

TEST_P(OneDnnFusedConvTest, MatchesReferenceAndChannelsLast) {
  if (!find_op_schema("Conv")) GTEST_SKIP() << "reference Conv not registered";
  const FusedCase f = GetParam();
  const ConvCase k{1, 8, 9, 9, 16, 3, 3, 1, 1, 1, {1, 1, 1, 1}, "", true};
  Tensor x = random_tensor({1, 8, 9, 9}, 4);
  Tensor w = random_tensor({16, 8, 3, 3}, 5);
  Tensor b = random_tensor({16}, 6);
  Tensor z = random_tensor({1, 16, 9, 9}, 7);
  const size_t n_in = f.residual ? 4 : 3;
  Node node = fused_conv_node(k, f.act, false, n_in);
  std::vector<const Tensor*> in{&x, &w, &b};
  if (f.residual) in.push_back(&z);
  auto ref = run_node(node, in);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const Tensor& expected = (*ref)[0];
  // Independent check of the reference epilogue: act(conv + z).
  Node plain = conv_node(k);
  auto conv_only = run_node(plain, {&x, &w, &b});
  ASSERT_TRUE(conv_only.ok());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    float v = (*conv_only)[0].data<float>()[i] + (f.residual ? z.data<float>()[i] : 0.0f);
    ASSERT_NEAR(expected.data<float>()[i], apply_activation(f.act, v), 1e-5);
  }
  auto kernel = make_kernel(node, in, {false, true, true, false}, DType::kFloat32, expected.shape());
  ASSERT_NE(kernel, nullptr);
  Tensor got = run_kernel(*kernel, node, in, DType::kFloat32, expected.shape());
  EXPECT_LT(max_rel_diff(got, expected), 1e-4);

  // channels_last: same numbers, NHWC activations.
  Node cl = fused_conv_node(k, f.act, true, n_in);
  Tensor x_nhwc = to_nhwc(x), z_nhwc = to_nhwc(z);
  std::vector<const Tensor*> in_cl{&x_nhwc, &w, &b};
  if (f.residual) in_cl.push_back(&z_nhwc);
  const Shape y_nhwc{1, 9, 9, 16};
  auto kcl = make_kernel(cl, in_cl, {false, true, true, false}, DType::kFloat32, y_nhwc);
  ASSERT_NE(kcl, nullptr);
  Tensor got_cl = run_kernel(*kcl, cl, in_cl, DType::kFloat32, y_nhwc);
  EXPECT_LT(max_rel_diff(to_nchw(got_cl), expected), 1e-4);
  // And the reference engine's channels_last form.
  auto ref_cl = run_node(cl, in_cl);
  ASSERT_TRUE(ref_cl.ok()) << ref_cl.status().message();
  EXPECT_LT(max_rel_diff(to_nchw((*ref_cl)[0]), expected), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    Epilogues, OneDnnFusedConvTest,
    ::testing::Values(FusedCase{{Activation::kRelu, 0, 0}, false}, FusedCase{{Activation::kRelu, 0, 0}, true},
                      FusedCase{{Activation::kNone, 0, 0}, true}, FusedCase{{Activation::kClip, 0.0f, 6.0f}, false},
                      FusedCase{{Activation::kClip, -0.5f, 0.5f}, true},
                      FusedCase{{Activation::kLeakyRelu, 0.1f, 0}, false},
                      FusedCase{{Activation::kSigmoid, 0, 0}, false}, FusedCase{{Activation::kTanh, 0, 0}, true},
                      FusedCase{{Activation::kGelu, 0, 0}, false}, FusedCase{{Activation::kSwish, 0, 0}, false},
                      FusedCase{{Activation::kSwish, 0, 0}, true}));

TEST(OneDnnConv, ConcurrentRunsGiveTheSameResults) {
  const ConvCase k{1, 16, 14, 14, 32, 3, 3, 1, 1, 1, {1, 1, 1, 1}, "", true};
  Node node = conv_node(k);
  Tensor w = random_tensor({32, 16, 3, 3}, 2);
  Tensor b = random_tensor({32}, 3);
  std::vector<Tensor> xs;
  for (uint32_t i = 0; i < 4; ++i) xs.push_back(random_tensor({1, 16, 14, 14}, 10 + i));
  const Shape y{1, 32, 14, 14};
  auto kernel = make_kernel(node, {&xs[0], &w, &b}, {false, true, true}, DType::kFloat32, y);
  ASSERT_NE(kernel, nullptr);
  std::vector<Tensor> serial;
  for (auto& x : xs) serial.push_back(run_kernel(*kernel, node, {&x, &w, &b}, DType::kFloat32, y));
  std::vector<Tensor> parallel(xs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < xs.size(); ++i)
    threads.emplace_back([&, i] {
      for (int rep = 0; rep < 5; ++rep) parallel[i] = run_kernel(*kernel, node, {&xs[i], &w, &b}, DType::kFloat32, y);
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_TRUE(bitwise_equal(serial[i], parallel[i])) << i;
}

// float16 runs as on the NPU's cube unit: the float32 kernel on exactly widened inputs, one
// round-to-nearest-even of the output (oneDNN 2.6 has no CPU f16 kernel).
TEST(OneDnnConv, Float16IsTheFloat32KernelRoundedOnce) {
  const ConvCase k{1, 4, 6, 6, 4, 3, 3, 1, 1, 1, {1, 1, 1, 1}, "", false};
  Node node = conv_node(k);
  Tensor x16 = random_tensor({1, 4, 6, 6}, 1, DType::kFloat16);
  Tensor w16 = random_tensor({4, 4, 3, 3}, 2, DType::kFloat16);
  auto k16 = make_kernel(node, {&x16, &w16}, {false, true}, DType::kFloat16, {1, 4, 6, 6});
  ASSERT_NE(k16, nullptr);
  Tensor x32 = widened_copy(x16), w32 = widened_copy(w16);
  auto k32 = make_kernel(node, {&x32, &w32}, {false, true}, DType::kFloat32, {1, 4, 6, 6});
  ASSERT_NE(k32, nullptr);
  Tensor y16 = run_kernel(*k16, node, {&x16, &w16}, DType::kFloat16, {1, 4, 6, 6});
  Tensor y32 = run_kernel(*k32, node, {&x32, &w32}, DType::kFloat32, {1, 4, 6, 6});
  EXPECT_TRUE(bitwise_equal(y16, converted_copy(y32, DType::kFloat16)));
}

TEST(OneDnnConv, WeightsThatAreAnInputRunUnpacked) {
  const ConvCase k{1, 4, 6, 6, 4, 3, 3, 1, 1, 1, {1, 1, 1, 1}, "", false};
  Node node = conv_node(k);
  // Weights that are not constant (a training graph's): reordered at every run, not packed.
  Tensor x = random_tensor({1, 4, 6, 6}, 1), w = random_tensor({4, 4, 3, 3}, 2);
  auto kernel = make_kernel(node, {&x, &w}, {false, false}, DType::kFloat32, {1, 4, 6, 6});
  ASSERT_NE(kernel, nullptr);
  auto ref = run_node(node, {&x, &w});
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  EXPECT_LT(max_rel_diff(run_kernel(*kernel, node, {&x, &w}, DType::kFloat32, {1, 4, 6, 6}), (*ref)[0]), 1e-5);
}

TEST(OneDnnConv, DeclinesWhatItDoesNotCover) {
  // 1-D conv.
  Node c1 = make_node("Conv", 2);
  Tensor x1 = random_tensor({1, 4, 6}, 1), w1 = random_tensor({4, 4, 3}, 2);
  EXPECT_EQ(make_kernel(c1, {&x1, &w1}, {false, true}, DType::kFloat32, {1, 4, 4}), nullptr);
}

TEST(OneDnnConv, Bfloat16WhenTheCpuHasIt) {
  if (!find_op_schema("Conv")) GTEST_SKIP() << "reference Conv not registered";
  const ConvCase k{1, 16, 8, 8, 16, 3, 3, 1, 1, 1, {1, 1, 1, 1}, "", true};
  Node node = conv_node(k);
  Tensor x = random_tensor({1, 16, 8, 8}, 1, DType::kBFloat16);
  Tensor w = random_tensor({16, 16, 3, 3}, 2, DType::kBFloat16);
  Tensor b = random_tensor({16}, 3, DType::kBFloat16);
  auto kernel = make_kernel(node, {&x, &w, &b}, {false, true, true}, DType::kBFloat16, {1, 16, 8, 8});
  if (!kernel) GTEST_SKIP() << "oneDNN has no bf16 convolution on this CPU";
  auto ref = run_node(node, {&x, &w, &b});
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  Tensor got = run_kernel(*kernel, node, {&x, &w, &b}, DType::kBFloat16, {1, 16, 8, 8});
  EXPECT_LT(max_rel_diff(got, (*ref)[0]), 1e-2);  // both accumulate in fp32 and round once to bf16
}

}  // namespace
}  // namespace openge::testing
