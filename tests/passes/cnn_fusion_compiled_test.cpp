// The CNN patterns compiled for real: a Conv -> Sigmoid -> Mul (Swish) and a
// Conv -> HardSigmoid -> Mul (HardSwish) block, compiled with TbeConvElemwiseFusionPass on (one
// oneDNN convolution with the activation as its post-op, in NHWC) and switched off through
// fusion_switch_file (the Sigmoid / HardSigmoid and Mul stay as nodes, on their reference kernels); both must give the
// same outputs, and fusion_result.json counts the fusion.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../kernels/kernel_test_util.h"
#include "options/options_test_util.h"
#include "pass_test_util.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge::options::test {
namespace {
using openge::testing::GraphBuilder;

// Conv (3x3, pads 1) -> gate -> Mul(y, gate(y)), input 1 x 8 x 12 x 12.
Graph gated_conv_graph(const char* gate_op, float alpha) {
  GraphBuilder b;
  const int x = b.input("x");
  const int y = b.node("Conv",
                       {x, b.constant("w", openge::testing::random_tensor({16, 8, 3, 3}, 31)),
                        b.constant("b", openge::testing::random_tensor({16}, 32))},
                       openge::testing::ints_attr("pads", {1, 1, 1, 1}));
  Attributes gate_attrs;
  if (alpha > 0) gate_attrs = openge::testing::float_attr("alpha", alpha, openge::testing::float_attr("beta", 0.5f));
  b.g.outputs = {b.node("Mul", {y, b.node(gate_op, {y}, gate_attrs)})};
  b.g.values[static_cast<size_t>(x)].dtype = DType::kFloat32;
  b.g.values[static_cast<size_t>(x)].shape = Shape{1, 8, 12, 12};
  return b.g;
}

std::unique_ptr<Executable> compile_with(Graph g, const TempDir& d, const std::string& switch_json) {
  // Prebuilt kernels: the unfused Sigmoid / HardSigmoid and Mul run on their reference kernels
  // (no online compile of an elementwise group), the oracle of the fused one.
  Flags flags{{"jit_compile", "false"}};
  if (!switch_json.empty()) flags.push_back({"fusion_switch_file", d.file("inputs/fs.cfg", switch_json)});
  BuildReport r = build(flags, {{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, {}, /*check_files=*/true, d.path());
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  if (!r.options) return nullptr;
  CompileOptions co;
  co.num_threads = 1;
  co.config = openge::test::compile_config(*r.options);
  auto exe = compiler::compile(std::move(g), {Shape{1, 8, 12, 12}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(*exe) : nullptr;
}

int count_op(const Executable& exe, const std::string& op) {
  int n = 0;
  for (const Node& node : exe.graph().nodes) n += node.op_type == op;
  return n;
}

void expect_fused_equals_unfused(const char* gate_op, float alpha, const char* activation) {
  TempDir on_dir, off_dir;
  auto fused = compile_with(gated_conv_graph(gate_op, alpha), on_dir, "");
  auto plain = compile_with(gated_conv_graph(gate_op, alpha), off_dir,
                            R"({"Switch":{"UBFusion":{"TbeConvElemwiseFusionPass":"off"}}})");
  ASSERT_TRUE(fused && plain);
  ASSERT_EQ(count_op(*fused, "FusedConv"), 1);
  for (const Node& n : fused->graph().nodes)
    if (n.op_type == "FusedConv") {
      EXPECT_EQ(n.attrs.get_string("activation", ""), activation);
    }
  EXPECT_EQ(count_op(*fused, "Mul"), 0);
  // Unfused: the gate and the Mul stay (TbeEltwiseFusionPass may group them into one
  // FusedElementwise node, which under jit_compile=false runs each op's reference kernel).
  for (const Node& n : plain->graph().nodes)
    if (n.op_type == "FusedConv") {
      EXPECT_EQ(n.attrs.get_string("activation", ""), "");
    }
  EXPECT_EQ(count_op(*plain, gate_op) + count_op(*plain, "Mul") + 2 * count_op(*plain, "FusedElementwise"), 2);

  const std::vector<Tensor> in{openge::testing::random_tensor({1, 8, 12, 12}, 33)};
  auto a = fused->run(in);
  auto b = plain->run(in);
  ASSERT_TRUE(a.ok() && b.ok());
  const Tensor& ya = (*a)[0];
  const Tensor& yb = (*b)[0];
  ASSERT_EQ(ya.shape(), yb.shape());
  for (int64_t i = 0; i < ya.numel(); ++i)
    EXPECT_NEAR(ya.data<float>()[i], yb.data<float>()[i], 1e-4 * (1.0 + std::abs(yb.data<float>()[i]))) << i;

  std::ifstream json(on_dir.path() + "/work_path/FE/" + std::to_string(::getpid()) + "/fusion_result.json");
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(j.is_object() && !j.empty()) << j.dump();
  EXPECT_EQ(j.begin().value()["ub_fusion"]["TbeConvElemwiseFusionPass"]["effect_times"], "1") << j.dump();
}

TEST(TbeConvElemwiseFusionPass, CompiledSwishPostOpEqualsSigmoidMulNodes) {
  expect_fused_equals_unfused("Sigmoid", 0, "Swish");
}

TEST(TbeConvElemwiseFusionPass, CompiledHardSwishPostOpEqualsHardSigmoidMulNodes) {
  expect_fused_equals_unfused("HardSigmoid", 1.0f / 6.0f, "HardSwish");
}

}  // namespace
}  // namespace openge::options::test
