// The executor end to end on the bundled demo model: correct, repeatable, re-entrant.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "openge/session.h"

namespace openge {
namespace {

const std::string kDemo = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

Tensor random_image(uint32_t seed) {
  Tensor t(DType::kFloat32, {1, 3, 32, 32});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

std::unique_ptr<Session> open(SessionOptions options = {}) {
  auto s = Session::open(kDemo, options);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s.value());
}

TEST(Session, RunsTheDemoModelToAProbabilityVector) {
  auto session = open();
  RunInfo info;
  auto out = session->run({random_image(1)}, &info);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 1u);
  const Tensor& p = (*out)[0];
  EXPECT_EQ(p.shape(), (Shape{1, 10}));
  double sum = 0;
  for (int i = 0; i < 10; ++i) {
    EXPECT_GT(p.data<float>()[i], 0.0f);
    sum += p.data<float>()[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  EXPECT_GT(info.arena_bytes, 0u);
}

TEST(Session, RepeatedRunsGiveIdenticalBits) {
  auto session = open();
  const Tensor x = random_image(2);
  auto a = session->run({x});
  auto b = session->run({x});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(0, std::memcmp((*a)[0].raw(), (*b)[0].raw(), (*a)[0].nbytes()));
}

TEST(Session, ConcurrentRunsOfOneCompiledGraphMatchSerialRuns) {
  auto session = open();
  std::vector<Tensor> inputs, expected;
  for (uint32_t i = 0; i < 4; ++i) {
    inputs.push_back(random_image(10 + i));
    expected.push_back(session->run({inputs.back()}).value()[0]);
  }
  std::vector<Tensor> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int rep = 0; rep < 5; ++rep) got[i] = session->run({inputs[i]}).value()[0];
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(0, std::memcmp(got[i].raw(), expected[i].raw(), got[i].nbytes())) << i;
}

TEST(Session, AiCoreAndReferenceEnginesAgree) {
  SessionOptions reference;
  reference.use_aicore = false;
  reference.run_passes = false;
  auto fast = open(), slow = open(reference);
  const Tensor x = random_image(3);
  auto a = fast->run({x});
  auto b = slow->run({x});
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 10; ++i) EXPECT_NEAR((*a)[0].data<float>()[i], (*b)[0].data<float>()[i], 1e-5);
}

TEST(Session, ThreadCountDoesNotChangeTheResultBeyondRounding) {
  SessionOptions one;
  one.num_threads = 1;
  SessionOptions two;
  two.num_threads = 2;
  const Tensor x = random_image(4);
  auto a = open(one)->run({x});
  auto b = open(two)->run({x});
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 10; ++i) EXPECT_NEAR((*a)[0].data<float>()[i], (*b)[0].data<float>()[i], 1e-6);
}

TEST(Session, RejectsInputsOfTheWrongShapeOrType) {
  auto session = open();
  auto wrong_shape = session->run({Tensor(DType::kFloat32, {1, 3, 16, 16})});
  ASSERT_FALSE(wrong_shape.ok());
  EXPECT_NE(wrong_shape.status().message().find("image"), std::string::npos) << wrong_shape.status().message();
  auto wrong_type = session->run({Tensor(DType::kInt64, {1, 3, 32, 32})});
  ASSERT_FALSE(wrong_type.ok());
  auto wrong_count = session->run({});
  ASSERT_FALSE(wrong_count.ok());
}

}  // namespace
}  // namespace openge

namespace openge {
namespace {

// A model whose declared output type contradicts what its graph computes is refused when the
// graph is compiled, naming the output.
TEST(Session, RejectsDeclaredOutputTypesTheGraphDoesNotProduce) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/declared_mismatch.onnx";
  const std::string script =
      "/usr/bin/python3 -c \"import onnx; from onnx import helper, TensorProto as T; "
      "g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'])], 'g', "
      "[helper.make_tensor_value_info('x', T.FLOAT, [2, 3])], [helper.make_tensor_value_info('y', T.FLOAT, [3, 2])]); "
      "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), '" +
      path + "')\"";
  ASSERT_EQ(std::system(script.c_str()), 0);
  auto session = Session::open(path);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto out = (*session)->run({Tensor(DType::kFloat32, {2, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("graph output 'y' is declared with shape [3,2]"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace openge
