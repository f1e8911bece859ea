// FileConstant (ops/generator/file_constant.h, OPT-external_weight-5): a node that names a range
// of a file as a weight. Its infer hands the bytes out as a folded constant, its kernel copies
// them, and a node whose attributes do not describe the file is refused with a message naming
// the attribute or the file. Files written here by the test; expected values are their floats.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "base/file_backed_memory.h"
#include "ir/attribute_values.h"
#include "ops/generator/file_constant.h"
#include "ops/graph_infer.h"
#include "ops/op_test_util.h"
#include "options/options_test_util.h"

namespace openge::testing {
namespace {

using options::test::TempDir;

constexpr float kWeight[6] = {1.5f, -2.0f, 0.25f, 8.0f, -0.125f, 3.0f};

// 5 bytes of something else, then the six floats: the weight starts at offset 5.
std::string file_with_weight(const TempDir& d) {
  std::string content = "head:";
  content.append(reinterpret_cast<const char*>(kWeight), sizeof(kWeight));
  content += "tail";
  return d.file("weights.bin", content);
}

// A graph of one FileConstant node producing value 0.
Graph file_constant_graph(const Attributes& attrs) {
  Graph g;
  g.opset = 17;
  const int v = g.add_value("w");
  Node n;
  n.name = "w_FileConstant";
  n.op_type = kFileConstantOp;
  n.domain = kFileConstantDomain;
  n.outputs = {v};
  n.attrs = attrs;
  g.nodes.push_back(n);
  g.values[static_cast<size_t>(v)].producer = 0;
  return g;
}

std::vector<float> floats_of(const Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  std::memcpy(out.data(), t.raw(), t.nbytes());
  return out;
}

const std::vector<float> kExpected(std::begin(kWeight), std::end(kWeight));

TEST(OpFileConstant, OPT_external_weight_5_InferFoldsTheFilesRangeAndTheKernelCopiesIt) {
  TempDir d;
  const std::string path = file_with_weight(d);
  Graph g = file_constant_graph(file_constant_attributes(path, 5, sizeof(kWeight), DType::kFloat32, {2, 3}));
  ASSERT_TRUE(infer_and_fold_nodes(g, size_t{1} << 20).ok());
  const Value& w = g.values[0];
  ASSERT_TRUE(w.constant);
  EXPECT_EQ(w.dtype, DType::kFloat32);
  EXPECT_EQ(*w.shape, (Shape{2, 3}));
  EXPECT_EQ(floats_of(*w.constant), kExpected);
  // The kernel (a node that was not folded) reads the same bytes.
  auto out = run_node(g.nodes[0], {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(floats_of((*out)[0]), kExpected);
}

// Where external_weight mapped the file, the folded constant is that memory (no copy).
TEST(OpFileConstant, OPT_external_weight_5_AMappedFileIsViewedNotCopied) {
  TempDir d;
  const std::string path = file_with_weight(d);
  std::string mapped(5, '\0');
  mapped.append(reinterpret_cast<const char*>(kWeight), sizeof(kWeight));
  register_file_backed(mapped.data(), mapped.size(), path);
  Graph g = file_constant_graph(file_constant_attributes(path, 5, sizeof(kWeight), DType::kFloat32, {6}));
  const Status st = infer_and_fold_nodes(g, size_t{1} << 20);
  unregister_file_backed(mapped.data());
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(g.values[0].constant->raw(), mapped.data() + 5);
  EXPECT_EQ(floats_of(*g.values[0].constant), kExpected);
}

std::string infer_error(const Attributes& attrs) {
  Graph g = file_constant_graph(attrs);
  const Status st = infer_and_fold_nodes(g, size_t{1} << 20);
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(OpFileConstant, OPT_external_weight_5_AttributesThatDoNotDescribeTheFileAreRefused) {
  TempDir d;
  const std::string path = file_with_weight(d);
  // Past the end of the file: the message names the file and its size.
  std::string msg = infer_error(file_constant_attributes(path, 12, sizeof(kWeight), DType::kFloat32, {6}));
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("33 bytes"), std::string::npos) << msg;
  // A file that is not there.
  msg = infer_error(file_constant_attributes(d.path() + "/missing.bin", 0, 24, DType::kFloat32, {6}));
  EXPECT_NE(msg.find("missing.bin"), std::string::npos) << msg;
  // A length the dtype and shape do not make.
  msg = infer_error(file_constant_attributes(path, 5, 20, DType::kFloat32, {6}));
  EXPECT_NE(msg.find("'length' is 20"), std::string::npos) << msg;
  // No file named at all.
  Attributes no_path = file_constant_attributes(path, 5, 24, DType::kFloat32, {6});
  no_path.set("file_path", string_attr(""));
  msg = infer_error(no_path);
  EXPECT_NE(msg.find("'file_path'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("w_FileConstant"), std::string::npos) << "the message names the node: " << msg;
}

}  // namespace
}  // namespace openge::testing
