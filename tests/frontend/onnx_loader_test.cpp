// The loader on real ONNX protobufs built here: valid forms it must accept, and each kind of
// broken file it must refuse with a message naming the problem.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "frontend/onnx_loader.h"

namespace openge {
namespace {
namespace fs = std::filesystem;

onnx::ModelProto tiny_model(int64_t opset = 13) {
  // y = Relu(x + b), b an initializer.
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("tiny");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_param("n");
  auto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto::FLOAT);
  b->add_dims(2);
  b->add_float_data(1.0f);
  b->add_float_data(-1.0f);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("x");
  add->add_input("b");
  add->add_output("s");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("s");
  relu->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

Result<Graph> load(const onnx::ModelProto& m, const std::string& dir = ".") {
  const std::string bytes = m.SerializeAsString();
  return load_onnx_from_bytes(bytes.data(), bytes.size(), "test.onnx", dir);
}

void expect_error(const Result<Graph>& r, const std::string& fragment) {
  ASSERT_FALSE(r.ok()) << "expected an error containing: " << fragment;
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("test.onnx"), std::string::npos) << r.status().message();
}

TEST(Loader, ReadsInputsInitializersNodesAndOutputs) {
  auto r = load(tiny_model());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = *r;
  EXPECT_EQ(g.opset, 13);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(*g.values[g.inputs[0]].shape, (Shape{2, -1}));
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].op_type, "Relu");
  const Value& b = g.values[g.find_value("b")];
  ASSERT_TRUE(b.constant);
  EXPECT_EQ(b.constant->data<float>()[1], -1.0f);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.values[g.outputs[0]].name, "y");
}

TEST(Loader, LoadsTheBundledDemoModel) {
  auto r = load_onnx(std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->nodes.size(), 13u);
  EXPECT_EQ(r->inputs.size(), 1u);
}

TEST(Loader, TurnsConstantNodesIntoConstants) {
  auto m = tiny_model();
  auto* g = m.mutable_graph();
  g->mutable_initializer()->Clear();
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("b");
  auto* a = c->add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  a->add_floats(3.0f);
  a->add_floats(4.0f);
  auto r = load(m);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->nodes.size(), 2u);
  const Value& b = r->values[r->find_value("b")];
  ASSERT_TRUE(b.constant);
  EXPECT_EQ(b.constant->data<float>()[1], 4.0f);
}

TEST(Loader, RejectsTruncatedFiles) {
  const std::string bytes = tiny_model().SerializeAsString();
  for (size_t cut : {size_t{1}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    auto r = load_onnx_from_bytes(bytes.data(), cut, "test.onnx");
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
  expect_error(load_onnx_from_bytes(bytes.data(), 0, "test.onnx"), "empty");
}

TEST(Loader, RejectsUnsupportedOpsets) {
  expect_error(load(tiny_model(0)), "opset 0");
  expect_error(load(tiny_model(18)), "opset 18");
  EXPECT_TRUE(load(tiny_model(1)).ok());
  EXPECT_TRUE(load(tiny_model(6)).ok());
  EXPECT_TRUE(load(tiny_model(17)).ok());
}

TEST(Loader, ModelWithoutOpsetImportIsOpset1OnlyBeforeIrVersion3) {
  auto m = tiny_model();
  m.clear_opset_import();
  m.set_ir_version(2);
  auto r = load(m);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->opset, 1);
  m.set_ir_version(3);
  expect_error(load(m), "declares no default-domain opset");
}

// Opset 1-6 binary ops with broadcast = 1 and an axis: B gets trailing 1-dims through a
// LegacyAxisAlign node, so that the Add itself is a plain NumPy-broadcast Add.
TEST(Loader, OldBroadcastAxisBecomesAnAlignNode) {
  auto m = tiny_model(6);
  auto* add = m.mutable_graph()->mutable_node(0);
  auto* b = add->add_attribute();
  b->set_name("broadcast");
  b->set_type(onnx::AttributeProto::INT);
  b->set_i(1);
  auto* axis = add->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  auto r = load(m);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->nodes.size(), 3u);
  const Node& plain_add = r->nodes[0];
  EXPECT_FALSE(plain_add.attrs.has("broadcast"));
  EXPECT_FALSE(plain_add.attrs.has("axis"));
  const Node& align = r->nodes[2];
  EXPECT_EQ(align.op_type, "LegacyAxisAlign");
  EXPECT_EQ(align.attrs.get_int("axis", -1), 0);
  EXPECT_EQ(plain_add.inputs[1], align.outputs[0]);
  EXPECT_EQ(align.inputs[0], r->find_value("b"));
  EXPECT_EQ(align.inputs[1], r->find_value("x"));
  auto order = r->topological_order();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(order->front(), 2);
}

TEST(Loader, RejectsUnknownOpNamingTheNode) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_node(1)->set_op_type("FancyRelu");
  expect_error(load(m), "FancyRelu 'relu'");
}

TEST(Loader, RejectsDanglingInput) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  expect_error(load(m), "'nowhere'");
}

TEST(Loader, RejectsCycles) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_node(0)->set_input(1, "y");  // add reads relu's output
  expect_error(load(m), "cycle");
}

TEST(Loader, RejectsTwoProducersOfOneValue) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_node(1)->set_output(0, "s");
  expect_error(load(m), "already defined");
}

TEST(Loader, RejectsWrongArity) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_node(1)->add_input("x");
  expect_error(load(m), "Relu 'relu' has 2 inputs");
}

TEST(Loader, RejectsRawDataOfTheWrongSize) {
  auto m = tiny_model();
  auto* b = m.mutable_graph()->mutable_initializer(0);
  b->clear_float_data();
  b->set_raw_data(std::string(7, '\0'));
  expect_error(load(m), "raw_data");
}

TEST(Loader, RejectsNegativeAndOverflowingDims) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_initializer(0)->set_dims(0, -2);
  expect_error(load(m), "negative");
  auto huge = tiny_model();
  auto* b = huge.mutable_graph()->mutable_initializer(0);
  b->set_dims(0, int64_t{1} << 40);
  b->add_dims(int64_t{1} << 40);
  expect_error(load(huge), "overflow");
  // Found by the fuzzer: huge dims next to a zero dim overflowed int64 shape arithmetic.
  auto zero = tiny_model();
  auto* z = zero.mutable_graph()->mutable_initializer(0);
  z->clear_float_data();
  z->set_dims(0, 143242401767256000);
  z->add_dims(76);
  z->add_dims(0);
  expect_error(load(zero), "overflow");
  auto input = tiny_model();
  input.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(int64_t{1} << 62);
  expect_error(load(input), "graph input 'x'");
}

TEST(Loader, ReadsExternalDataInsideTheModelFolderOnly) {
  const fs::path dir = fs::temp_directory_path() / ("openge_loader_ext_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "weights.bin", std::ios::binary);
    const float values[] = {0.0f, 5.0f, -7.0f};
    f.write(reinterpret_cast<const char*>(values), sizeof values);
  }
  auto m = tiny_model();
  auto* b = m.mutable_graph()->mutable_initializer(0);
  b->clear_float_data();
  b->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = b->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  auto* off = b->add_external_data();
  off->set_key("offset");
  off->set_value("4");
  auto r = load(m, dir.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->values[r->find_value("b")].constant->data<float>()[1], -7.0f);

  off->set_value("8");  // only one float left: too short
  expect_error(load(m, dir.string()), "too short");
  loc->set_value("../../etc/passwd");
  expect_error(load(m, dir.string()), "inside the model's folder");
  loc->set_value("missing.bin");
  off->set_value("0");
  expect_error(load(m, dir.string()), "cannot open");
  fs::remove_all(dir);
}

TEST(Loader, RejectsSubgraphAttributesAndOtherDomains) {
  auto m = tiny_model();
  m.mutable_graph()->mutable_node(1)->set_domain("com.microsoft");
  expect_error(load(m), "domain 'com.microsoft'");
}

TEST(Loader, ReportsMissingFilesAndDirectories) {
  auto r = load_onnx("/nonexistent/model.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/model.onnx"), std::string::npos);
  auto d = load_onnx(fs::temp_directory_path().string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("directory"), std::string::npos);
}

TEST(Loader, RejectsAttributesTheOpDoesNotDefine) {
  auto m = tiny_model();
  auto* a = m.mutable_graph()->mutable_node(1)->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(0.1f);
  expect_error(load(m), "has no attribute 'alpha'");
}

TEST(Loader, RejectsAttributesOfTheWrongTypeOrWithoutValue) {
  auto m = tiny_model();
  auto* node = m.mutable_graph()->mutable_node(1);
  node->set_op_type("LeakyRelu");
  auto* a = node->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  expect_error(load(m), "must be of type float");
  a->set_type(onnx::AttributeProto::FLOAT);  // declares float, carries only the int
  expect_error(load(m), "carries no such value");
  a->set_f(0.2f);
  EXPECT_TRUE(load(m).ok());
}

TEST(Loader, RejectsExternalDataOffsetsThatAreNotPlainNumbers) {
  auto m = tiny_model();
  auto* b = m.mutable_graph()->mutable_initializer(0);
  b->clear_float_data();
  b->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = b->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  auto* off = b->add_external_data();
  off->set_key("offset");
  for (const char* bad : {"1e9x", "-4", "", " 4", "99999999999999999999999"}) {
    off->set_value(bad);
    expect_error(load(m), "not a byte count");
  }
}

TEST(Loader, RejectsExternalDataReachedThroughASymlinkOutsideTheFolder) {
  const fs::path root = fs::temp_directory_path() / ("openge_loader_link_" + std::to_string(::getpid()));
  fs::create_directories(root / "model");
  {
    std::ofstream f(root / "secret.bin", std::ios::binary);
    f << std::string(8, 'x');
  }
  fs::create_symlink(root / "secret.bin", root / "model" / "w.bin");
  auto m = tiny_model();
  auto* b = m.mutable_graph()->mutable_initializer(0);
  b->clear_float_data();
  b->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = b->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  expect_error(load(m, (root / "model").string()), "outside the model's folder");
  fs::remove_all(root);
}

}  // namespace
}  // namespace openge
