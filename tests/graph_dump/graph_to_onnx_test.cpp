// graph_to_onnx imports every domain its nodes use, so that a graph dump (or a .oge) of a model
// with ops outside the default domain is still a model ONNX's checker and Netron accept: the
// training optimizers at the version the op table registers, OpenGE's own fused ops at 1.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <map>

#include "graph_dump/graph_to_onnx.h"

namespace openge::graph_dump {
namespace {

std::map<std::string, int64_t> imports_of(const onnx::ModelProto& m) {
  std::map<std::string, int64_t> out;
  for (const auto& o : m.opset_import()) out[o.domain()] = o.version();
  return out;
}

Graph graph_with(const std::vector<std::pair<std::string, std::string>>& ops) {
  Graph g;
  g.opset = 17;
  int prev = g.add_value("x");
  g.values[static_cast<size_t>(prev)].dtype = DType::kFloat32;
  g.values[static_cast<size_t>(prev)].shape = Shape{2};
  g.inputs.push_back(prev);
  for (size_t i = 0; i < ops.size(); ++i) {
    const int out = g.add_value("y" + std::to_string(i));
    g.values[static_cast<size_t>(out)].dtype = DType::kFloat32;
    g.values[static_cast<size_t>(out)].shape = Shape{2};
    Node n;
    n.name = "n" + std::to_string(i);
    n.op_type = ops[i].first;
    n.domain = ops[i].second;
    n.inputs = {prev};
    n.outputs = {out};
    g.nodes.push_back(n);
    prev = out;
  }
  g.outputs.push_back(prev);
  return g;
}

TEST(GraphToOnnx, ENV_24_ImportsTheTrainingDomainAtItsRegisteredVersion) {
  onnx::ModelProto m;
  graph_to_onnx(graph_with({{"Relu", ""}, {"Momentum", "ai.onnx.preview.training"}}), Detail::kMinimal, m);
  const auto imports = imports_of(m);
  EXPECT_EQ(imports.size(), 2u);
  EXPECT_EQ(imports.at(""), 17);
  ASSERT_TRUE(imports.count("ai.onnx.preview.training"));
  EXPECT_EQ(imports.at("ai.onnx.preview.training"), 1);
}

TEST(GraphToOnnx, ENV_24_ImportsOpenGEsOwnDomainOnceAndNothingForDefaultOps) {
  onnx::ModelProto m;
  graph_to_onnx(graph_with({{"FusedConv", "openge"}, {"Relu", ""}, {"FusedElementwise", "openge"}}), Detail::kMinimal,
                m);
  const auto imports = imports_of(m);
  EXPECT_EQ(m.opset_import_size(), 2);
  ASSERT_TRUE(imports.count("openge"));
  EXPECT_EQ(imports.at("openge"), 1);

  onnx::ModelProto plain;
  graph_to_onnx(graph_with({{"Relu", ""}}), Detail::kMinimal, plain);
  EXPECT_EQ(plain.opset_import_size(), 1);
  EXPECT_NO_THROW(onnx::checker::check_model(plain));
}

}  // namespace
}  // namespace openge::graph_dump
