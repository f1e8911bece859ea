// variable_format_optimize on a Trainer (OPT-variable_format_optimize-2): with it on, the
// convolution weights stay in oneDNN's preferred layout between steps, so the reorders of W
// before each forward convolution and of dW after each backward-weights one are gone; the
// training itself (losses, weights read out, checkpoints) is the same bits as with it off.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "frontend/model_proto_builder.h"
#include "kernels/onednn_conv_train.h"
#include "openge/trainer.h"
#include "options/option_builder.h"

namespace openge {
namespace {

namespace fs = std::filesystem;

constexpr int kConvolutions = 2;

// x [N, 16, 8, 8] -> Conv 32x16x3x3 -> BatchNormalization -> Relu -> Conv 32x32x3x3 ->
// BatchNormalization -> Relu -> GlobalAveragePool -> Flatten -> MatMul 32x10: channels in whole
// blocks of 16, so the blocked weights need no padding.
std::string write_cnn(const fs::path& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("cnn");
  test::add_float_input(g, "x", {-1, 16, 8, 8});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.2f, 0.2f);
  auto random = [&](int64_t) { return u(rng); };
  test::add_float_initializer(g, "w1", {32, 16, 3, 3}, random);
  test::add_float_initializer(g, "w2", {32, 32, 3, 3}, random);
  test::add_float_initializer(g, "fc", {32, 10}, random);
  // Conv -> BatchNormalization -> Relu as in a ResNet (a Relu right after a convolution would be
  // fused into it, and a fused convolution with run-time weights runs on the reference kernel).
  for (auto [in, w, out] : {std::array<const char*, 3>{"x", "w1", "r1"}, {"r1", "w2", "r2"}}) {
    const std::string name = w;
    auto* conv = test::add_node(g, "Conv", {in, w}, {name + "_c"});
    auto* pads = conv->add_attribute();
    pads->set_name("pads");
    pads->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; ++i) pads->add_ints(1);
    test::add_float_initializer(g, name + "_scale", {32}, [](int64_t) { return 1.0f; });
    test::add_float_initializer(g, name + "_bias", {32}, [](int64_t) { return 0.0f; });
    test::add_float_initializer(g, name + "_mean", {32}, [](int64_t) { return 0.0f; });
    test::add_float_initializer(g, name + "_var", {32}, [](int64_t) { return 1.0f; });
    test::add_node(g, "BatchNormalization",
                   {name + "_c", name + "_scale", name + "_bias", name + "_mean", name + "_var"}, {name + "_n"});
    test::add_node(g, "Relu", {name + "_n"}, {out});
  }
  test::add_node(g, "GlobalAveragePool", {"r2"}, {"p"});
  test::add_node(g, "Flatten", {"p"}, {"f"});
  test::add_node(g, "MatMul", {"f", "fc"}, {"logits"});
  g->add_output()->set_name("logits");
  fs::create_directories(dir);
  const std::string path = (dir / "cnn.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

std::vector<Tensor> batch(uint32_t seed) {
  Tensor x(DType::kFloat32, {4, 16, 8, 8});
  Tensor y(DType::kInt64, {4});
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = noise(rng);
  for (int64_t i = 0; i < 4; ++i) y.data<int64_t>()[i] = (seed + i) % 10;
  return {x, y};
}

TrainerOptions options_with(const char* variable_format_optimize) {
  options::OptionInputs in;
  if (variable_format_optimize) in.flags = {{"variable_format_optimize", variable_format_optimize, "test"}};
  auto set = options::build_option_set(in);
  EXPECT_TRUE(set.ok()) << set.status().message();
  TrainerOptions o;
  o.loss = "cross_entropy";
  o.optimizer = "momentum";
  o.learning_rate = 0.05f;
  o.session.num_threads = 1;
  o.session.config = std::make_shared<const options::OptionSet>(std::move(set.value()));
  return o;
}

struct TrainedRun {
  std::unique_ptr<Trainer> trainer;
  std::vector<float> losses;
  int64_t reorders_per_step = 0;  // weight reorders of the last step (the first compiles)
};

TrainedRun train(const std::string& model, const char* option, int steps) {
  TrainedRun r;
  auto opened = Trainer::open(model, options_with(option));
  EXPECT_TRUE(opened.ok()) << opened.status().message();
  if (!opened.ok()) return r;
  r.trainer = std::move(opened.value());
  for (int s = 0; s < steps; ++s) {
    const int64_t before = onednn::weight_reorders_run();
    auto loss = r.trainer->step(batch(10 + s));
    EXPECT_TRUE(loss.ok()) << loss.status().message();
    r.losses.push_back(loss.ok() ? *loss : 0);
    r.reorders_per_step = onednn::weight_reorders_run() - before;
  }
  return r;
}

void expect_same_parameters(const Trainer& a, const Trainer& b) {
  for (const std::string& name : a.trainable()) {
    auto x = a.parameter(name), y = b.parameter(name);
    ASSERT_TRUE(x.ok() && y.ok()) << name;
    ASSERT_EQ(x->nbytes(), y->nbytes()) << name;
    EXPECT_EQ(std::memcmp(x->raw(), y->raw(), x->nbytes()), 0) << name << " differs";
  }
}

class TrainerWeightFormatTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("openge_weight_format_test_" + std::to_string(::getpid()));
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(TrainerWeightFormatTest, OPT_variable_format_optimize_2_WeightsStayInTheConvolutionLayoutBetweenSteps) {
  const std::string model = write_cnn(dir);
  TrainedRun plain = train(model, nullptr, 4);
  TrainedRun held = train(model, "True", 4);
  ASSERT_TRUE(plain.trainer && held.trainer);
  if (plain.reorders_per_step == 0)
    GTEST_SKIP() << "oneDNN runs these convolutions on plain OIHW weights on this CPU: no layout to hold them in";
  // Off (the default): W before each forward convolution, W before the second's backward-data
  // primitive (the first's dX is not needed) and dW after each backward-weights one.
  EXPECT_EQ(plain.reorders_per_step, 2 * kConvolutions + 1);
  // On: the forward's W and the dW reorders are gone; at most backward-data's remains.
  EXPECT_EQ(plain.reorders_per_step - held.reorders_per_step, 2 * kConvolutions)
      << "off " << plain.reorders_per_step << ", on " << held.reorders_per_step << " weight reorders per step";
  // The same arithmetic on permuted elements: bit-identical losses and weights (read out plain).
  EXPECT_EQ(plain.losses, held.losses);
  expect_same_parameters(*plain.trainer, *held.trainer);

  // A checkpoint holds plain weights and optimizer state: a plain trainer resumes from it, and
  // both go on to the same bits.
  const std::string ckpt = (dir / "ckpt").string();
  ASSERT_TRUE(held.trainer->save_checkpoint(ckpt).ok());
  auto resumed = Trainer::open(model, options_with("False"));
  ASSERT_TRUE(resumed.ok());
  ASSERT_TRUE((*resumed)->load_checkpoint(ckpt).ok());
  expect_same_parameters(**resumed, *held.trainer);
  for (uint32_t s = 0; s < 2; ++s) {
    auto a = (*resumed)->step(batch(50 + s)), b = held.trainer->step(batch(50 + s));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
  }
  expect_same_parameters(**resumed, *held.trainer);
  // And a held trainer resumes from a plain one's checkpoint.
  ASSERT_TRUE(plain.trainer->save_checkpoint(ckpt).ok());
  TrainedRun again = train(model, "True", 1);
  ASSERT_TRUE(again.trainer->load_checkpoint(ckpt).ok());
  expect_same_parameters(*again.trainer, *plain.trainer);
  auto a = again.trainer->step(batch(90)), b = plain.trainer->step(batch(90));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  expect_same_parameters(*again.trainer, *plain.trainer);
}

}  // namespace
}  // namespace openge
