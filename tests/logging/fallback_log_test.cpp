// a fallback from the AI Core engine to the AI CPU lands in the log. MaxPool has
// an AI Core (oneDNN) kernel, which covers 2-D pooling only; a 1-D MaxPool (a rank-3 input) makes
// that kernel refuse the node, and the AI CPU reference kernel runs it. The test writes such a
// model as a real .onnx file, runs it, and finds the fallback's line in the plog file under
// ASCEND_PROCESS_LOG_PATH (ENV-6's first tier), in CANN's line format.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "logging/log.h"
#include "runtime/demo_run_util.h"

namespace openge::logging::test {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

// y = MaxPool(x) with kernel 2, stride 2 over x of shape [1, 2, 8]: a 1-D pool.
void write_maxpool_1d_model(const std::string& path) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("maxpool_1d");
  auto add_value = [](onnx::ValueInfoProto* v, const char* name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  add_value(g->add_input(), "x", {1, 2, 8});
  add_value(g->add_output(), "y", {1, 2, 4});
  auto* node = g->add_node();
  node->set_op_type("MaxPool");
  node->set_name("pool_1d");
  node->add_input("x");
  node->add_output("y");
  for (const char* name : {"kernel_shape", "strides"}) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    a->add_ints(2);
  }
  std::ofstream out(path, std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

std::vector<std::string> plog_lines(const std::string& dir) {
  std::vector<std::string> lines;
  if (!fs::is_directory(dir)) return lines;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || !e.path().filename().string().starts_with("plog-")) continue;
    std::ifstream in(e.path());
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  return lines;
}

TEST(FallbackLog, ENV_6_AnAiCoreToAiCpuFallbackLandsInThePlog) {
  unconfigure();
  TempDir d;
  const std::string model = d.path() + "/maxpool_1d.onnx";
  write_maxpool_1d_model(model);
  SessionOptions so;
  so.num_threads = 1;
  so.config = openge::test::options_from(
      {{"ASCEND_PROCESS_LOG_PATH", d.path() + "/plogs"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}}, d.path());
  ASSERT_TRUE(so.config);
  auto session = Session::open(model, so);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Tensor x(DType::kFloat32, {1, 2, 8});
  // x: 0 5 10 15 4 9 14 3 8 13 2 7 12 1 6 11
  for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>((i * 5) % 16);
  auto out = (*session)->run({x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // By hand: the larger of each pair of (i * 5) % 16.
  const float expected[8] = {5, 15, 9, 14, 13, 7, 12, 11};
  ASSERT_EQ(out->at(0).numel(), 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out->at(0).data<float>()[i], expected[i]) << i;
  session->reset();
  unconfigure();

  const std::regex fallback(
      R"(^\[INFO\] GE\(\d+,[^)]+\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[compiler/compile_log\.cpp:\d+\])"
      R"(.*node pool_1d \(MaxPool\) runs on AI CPU: fallback: its AI Core kernel does not cover this .*)");
  const auto lines = plog_lines(d.path() + "/plogs");
  ASSERT_FALSE(lines.empty()) << "no plog file under ASCEND_PROCESS_LOG_PATH";
  int found = 0;
  for (const auto& l : lines) found += std::regex_match(l, fallback);
  EXPECT_EQ(found, 1) << "the fallback is logged once, by the one logger, in CANN's format";
}

}  // namespace
}  // namespace openge::logging::test
