// NPU-8: a model compiled (openge compile) while NPU_COLLECT_PATH is set gets extra debug
// information, so its .oge is larger. What the extra sections hold is checked against sources
// independent of the code that writes them: the model's own node names, and the kernel binary the
// online compiler really builds (and collects into NPU_COLLECT_PATH/op_compile) when the .oge
// runs. The .oge with debug sections still runs, with the bits of the one without.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "oge/oge_file.h"
#include "oge_test_models.h"
#include "openge/compile.h"
#include "runtime/demo_run_util.h"

namespace openge::oge::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using options::test::TempDir;

SessionOptions with_env(const TempDir& d, const options::EnvMap& env) {
  SessionOptions so;
  so.num_threads = 1;
  options::EnvMap all = env;
  all["HOME"] = d.path();
  so.config = openge::test::options_from(all, d.path());
  return so;
}

std::vector<Tensor> run_once(const std::string& model, const SessionOptions& so) {
  auto session = Session::open(model, so);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  Tensor x(DType::kFloat32, {4, 8});
  for (int i = 0; i < 32; ++i) x.data<float>()[i] = static_cast<float>(i - 16) / 4.0f;
  auto out = (*session)->run({x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out.value()) : std::vector<Tensor>{};
}

TEST(OgeDebugInfo, NPU_8_ACompileUnderNpuCollectPathEmbedsTheCompileRecordAndKernelSources) {
  TempDir d;
  const std::string onnx_path = eltwise_model(d.path());  // y = Relu((x + 1) * 0.5): one fused kernel
  const std::string plain = d.path() + "/plain.oge", collected = d.path() + "/collected.oge";
  const std::string collect = d.path() + "/collect";
  auto plain_summary = compile_model(onnx_path, plain, with_env(d, {}));
  ASSERT_TRUE(plain_summary.ok()) << plain_summary.status().message();
  auto summary = compile_model(onnx_path, collected, with_env(d, {{"NPU_COLLECT_PATH", collect}}));
  ASSERT_TRUE(summary.ok()) << summary.status().message();

  EXPECT_GT(fs::file_size(collected), fs::file_size(plain)) << "NPU-8: the om file is larger";
  EXPECT_TRUE(plain_summary->debug_sections.empty());
  auto without = read_oge_file(plain);
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_TRUE(without->header.debug.empty()) << "no debug sections without NPU_COLLECT_PATH";

  auto model = read_oge_file(collected);
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->header.debug.count("compile"), 1u);
  ASSERT_EQ(model->header.debug.count("kernels"), 1u);

  // The compile record maps the one compiled node back to the model's three nodes.
  const json record = json::parse(model->header.debug.at("compile"));
  ASSERT_EQ(record["nodes"].size(), 1u);
  const json& node = record["nodes"][0];
  EXPECT_EQ(node["op_type"], "FusedElementwise");
  EXPECT_EQ(node["from_model_nodes"].get<std::set<std::string>>(),
            (std::set<std::string>{"Add_x1", "Mul_xh", "Relu_y"}));
  EXPECT_EQ(node["inputs"][0], "x");
  EXPECT_EQ(node["outputs"][0], "y");
  EXPECT_FALSE(record["fusion_passes"].empty()) << "the pass that fused the three is recorded";

  // The kernel section: C++ source whose lines map back to each model node (dump_loc) ...
  const json kernels = json::parse(model->header.debug.at("kernels"));
  ASSERT_EQ(kernels.size(), 1u);
  const std::string kernel_name = kernels[0]["kernel_name"];
  const std::string source = kernels[0]["source"];
  EXPECT_EQ(kernels[0]["node"], node["node"]);
  EXPECT_NE(source.find("extern \"C\""), std::string::npos);
  EXPECT_NE(source.find(kernel_name), std::string::npos) << "the source defines the kernel's entry point";
  std::set<std::string> located;
  const auto lines = std::count(source.begin(), source.end(), '\n');
  for (const json& l : kernels[0]["loc"]) {
    located.insert(l["node"].get<std::string>());
    EXPECT_GT(l["line"].get<int>(), 0);
    EXPECT_LE(l["line"].get<int>(), lines + 1);
  }
  EXPECT_EQ(located, (std::set<std::string>{"Add_x1", "Mul_xh", "Relu_y"}));

  // ... and whose name is that of the binary the online compiler builds when the .oge runs: the
  // run collects it into NPU_COLLECT_PATH/op_compile (NPU-15) under that very name.
  const auto from_plain = run_once(plain, with_env(d, {}));
  const auto from_collected = run_once(collected, with_env(d, {{"NPU_COLLECT_PATH", collect}}));
  EXPECT_TRUE(fs::exists(collect + "/op_compile/" + kernel_name + ".so")) << kernel_name;
  ASSERT_EQ(from_plain.size(), 1u);
  ASSERT_EQ(from_collected.size(), 1u);
  EXPECT_EQ(0, std::memcmp(from_plain[0].raw(), from_collected[0].raw(), from_plain[0].nbytes()))
      << "the debug sections change nothing that runs";
  // y = Relu((x + 1) * 0.5) by hand for x = -4 (element 0) and x = 3.75 (element 31).
  EXPECT_EQ(from_collected[0].data<float>()[0], 0.0f);
  EXPECT_EQ(from_collected[0].data<float>()[31], 2.375f);
}

}  // namespace
}  // namespace openge::oge::test
