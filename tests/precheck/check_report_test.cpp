// The precheck and check_result.json (ENV-33..35, docs/FORMATS.md, "Precheck: check_result.json"): every node with
// its result and causes in CANN's schema, the folder chain check_report > ASCEND_WORK_PATH > cwd,
// the report of a model that fails to load in a normal run, and `openge check`.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "runtime/demo_run_util.h"
#include "precheck/check_report.h"

namespace openge::precheck::test {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

const std::string& kDemo = openge::test::kDemoModel;

// An opset-13 model whose graph `name` has one float [4] input and one float [4] output.
onnx::GraphProto* start_float4_model(onnx::ModelProto& m, const char* name, const char* input, const char* output) {
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name(name);
  for (auto [v, value_name] : {std::pair{g->add_input(), input}, std::pair{g->add_output(), output}}) {
    v->set_name(value_name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(4);
  }
  return g;
}

// x -> Relu 'r1' -> NotAnOp 'weird' -> Relu 'r1' (the name again) -> w
std::string write_bad_model(const TempDir& d) {
  onnx::ModelProto m;
  onnx::GraphProto* g = start_float4_model(m, "bad_model", "x", "w");
  auto add_node = [&](const char* type, const char* name, const char* in, const char* out) {
    auto* n = g->add_node();
    n->set_op_type(type);
    n->set_name(name);
    n->add_input(in);
    n->add_output(out);
  };
  add_node("Relu", "r1", "x", "y");
  add_node("NotAnOp", "weird", "y", "z");
  add_node("Relu", "r1", "z", "w");
  return d.file("bad.onnx", m.SerializeAsString());
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path << " is missing";
  return in.good() ? nlohmann::json::parse(in) : nlohmann::json();
}

std::shared_ptr<const options::OptionSet> options_with(const options::EnvMap& env, const std::string& cwd) {
  return openge::test::options_from(env, cwd);
}

TEST(Precheck, ENV_33_EveryNodeWithItsResultAndCause) {
  TempDir d;
  const auto report = check_model(write_bad_model(d));
  auto written = write_check_report(report, *options_with({{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, d.path()));
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(*written, d.path() + "/work_path/check_result.json");
  const auto j = read_json(*written);
  EXPECT_EQ(j["name"], "bad_model");
  EXPECT_EQ(j["result"], "failed");
  EXPECT_EQ(j["total"], 3);
  EXPECT_EQ(j["pass"], 1);
  EXPECT_EQ(j["fail"], 2);
  ASSERT_EQ(j["op"].size(), 3u);
  EXPECT_EQ(j["op"][0]["name"], "r1");
  EXPECT_EQ(j["op"][0]["type"], "Relu");
  EXPECT_EQ(j["op"][0]["result"], "success");
  EXPECT_FALSE(j["op"][0].contains("cause")) << "no cause when none";
  EXPECT_EQ(j["op"][1]["type"], "NotAnOp");
  EXPECT_EQ(j["op"][1]["result"], "failed");
  EXPECT_EQ(j["op"][1]["cause"][0]["code"], 1) << "TYPE_UNSUPPORTED";
  EXPECT_EQ(j["op"][2]["result"], "failed");
  EXPECT_EQ(j["op"][2]["cause"][0]["code"], 9) << "NAME_REPEATED";
  EXPECT_EQ(j["op"][2]["cause"][0]["message"], "The name is repeated.");
}

// x[1,4,8,8] -> Relu 'r' -> Conv 'c' (group 3 does not divide 4 channels) -> y: a known op type
// whose attributes cannot work, found by compiling the model.
TEST(Precheck, ENV_33_AnOpWhoseAttributesCannotWorkFailsWithParamInvalid) {
  TempDir d;
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("bad_conv");
  auto* x = g->add_input();
  x->set_name("x");
  auto* t = x->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : {1, 4, 8, 8}) t->mutable_shape()->add_dim()->set_dim_value(dim);
  g->add_output()->set_name("y");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : {3, 4, 1, 1}) w->add_dims(dim);
  for (int i = 0; i < 12; ++i) w->add_float_data(1.0f);
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("r");
  relu->add_input("x");
  relu->add_output("h");
  auto* conv = g->add_node();
  conv->set_op_type("Conv");
  conv->set_name("c");
  conv->add_input("h");
  conv->add_input("w");
  conv->add_output("y");
  auto* group = conv->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(3);
  const auto j = nlohmann::json::parse(to_json(check_model(d.file("bad_conv.onnx", m.SerializeAsString()))));
  EXPECT_EQ(j["result"], "failed");
  EXPECT_EQ(j["fail"], 1);
  EXPECT_EQ(j["op"][0]["result"], "success");
  ASSERT_EQ(j["op"][1]["result"], "failed") << j.dump(2);
  EXPECT_EQ(j["op"][1]["cause"][0]["code"], 2) << "PARAM_INVALID";
  EXPECT_FALSE(j.contains("cause")) << "the node accounts for the failure";
}

TEST(Precheck, ENV_33_ASupportedModelPasses) {
  const auto report = check_model(kDemo);
  const auto j = nlohmann::json::parse(to_json(report));
  EXPECT_EQ(j["result"], "success");
  EXPECT_EQ(j["total"], 13);  // the demo's nodes (models/demo.onnx)
  EXPECT_EQ(j["pass"], 13);
  EXPECT_EQ(j["fail"], 0);
}

// x + w, w stored as external data in w.bin: w is listed as a FileConstant op (as GE's ONNX
// parser makes it), before the nodes, its OK cause (code 0) naming file, offset and length; an
// initializer held inside the model is not an op, unless external_weight is on: then it is a
// FileConstant too, its cause saying which bytes the session writes to a file.
TEST(Precheck, OPT_external_weight_5_ExternalDataWeightsAreFileConstantOps) {
  TempDir d;
  const float w[4] = {1, 2, 3, 4};
  d.file("w.bin", std::string(reinterpret_cast<const char*>(w), sizeof w));
  onnx::ModelProto m;
  onnx::GraphProto* g = start_float4_model(m, "file_weights", "x", "y");
  auto add_init = [&](const char* name, bool external) {
    auto* init = g->add_initializer();
    init->set_name(name);
    init->set_data_type(onnx::TensorProto::FLOAT);
    init->add_dims(4);
    if (!external) {
      for (float v : w) init->add_float_data(v);
      return;
    }
    init->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* entry = init->add_external_data();
    entry->set_key("location");
    entry->set_value("w.bin");
    entry = init->add_external_data();
    entry->set_key("length");
    entry->set_value(std::to_string(sizeof w));
  };
  add_init("w", true);
  add_init("b", false);
  auto add_node = [&](const char* name, const char* a, const char* b, const char* out) {
    auto* n = g->add_node();
    n->set_op_type("Add");
    n->set_name(name);
    n->add_input(a);
    n->add_input(b);
    n->add_output(out);
  };
  add_node("add_w", "x", "w", "xw");
  add_node("add_b", "xw", "b", "y");
  const std::string model = d.file("file_weights.onnx", m.SerializeAsString());
  const auto j = nlohmann::json::parse(to_json(check_model(model)));
  EXPECT_EQ(j["result"], "success") << j.dump();
  EXPECT_EQ(j["fail"], 0);
  ASSERT_EQ(j["op"].size(), 3u) << j.dump();
  EXPECT_EQ(j["op"][0]["name"], "w");
  EXPECT_EQ(j["op"][0]["type"], "FileConstant");
  EXPECT_EQ(j["op"][0]["result"], "success");
  ASSERT_EQ(j["op"][0]["cause"].size(), 1u) << j.dump();
  EXPECT_EQ(j["op"][0]["cause"][0]["code"], 0);
  EXPECT_EQ(j["op"][0]["cause"][0]["message"], "FileConstant: file w.bin, offset 0, length 16 bytes");
  EXPECT_EQ(j["op"][1]["type"], "Add");
  EXPECT_FALSE(j["op"][1].contains("cause"));
  EXPECT_EQ(j["op"][2]["type"], "Add");

  const auto external = openge::test::options_from({}, d.path(), {{"external_weight", "True"}});
  ASSERT_TRUE(external);
  const auto e = nlohmann::json::parse(to_json(check_model(model, nullptr, 0, external.get())));
  EXPECT_EQ(e["result"], "success") << e.dump();
  ASSERT_EQ(e["op"].size(), 4u) << e.dump();
  EXPECT_EQ(e["op"][0]["name"], "w");
  EXPECT_EQ(e["op"][1]["name"], "b");
  EXPECT_EQ(e["op"][1]["type"], "FileConstant");
  EXPECT_EQ(e["op"][1]["result"], "success");
  ASSERT_EQ(e["op"][1]["cause"].size(), 1u) << e.dump();
  EXPECT_EQ(e["op"][1]["cause"][0]["code"], 0);
  const std::string message = e["op"][1]["cause"][0]["message"];
  EXPECT_NE(message.find("tmp_weight_<pid>_<sessionid>"), std::string::npos) << message;
  EXPECT_NE(message.find("offset 0, length 16"), std::string::npos) << message;
  EXPECT_EQ(e["op"][2]["type"], "Add");
}

TEST(Precheck, ENV_33_ACorruptFileFailsAsAModel) {
  TempDir d;
  const auto j = nlohmann::json::parse(to_json(check_model(d.file("junk.onnx", "this is not a protobuf"))));
  EXPECT_EQ(j["result"], "failed");
  EXPECT_EQ(j["total"], 0);
  ASSERT_TRUE(j.contains("cause"));
  EXPECT_NE(j["cause"][0]["message"].get<std::string>().find("not a valid ONNX protobuf"), std::string::npos);
}

TEST(Precheck, ENV_35_CheckReportThenWorkPathThenWorkingDirectory) {
  TempDir d;
  const auto report = check_model(kDemo);
  auto both = options_with({{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, d.path());
  auto first = write_check_report(report, *both, "reports/mine.json");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, d.path() + "/reports/mine.json") << "check_report, relative to the working directory";
  auto second = write_check_report(report, *both);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, d.path() + "/work_path/check_result.json");
  auto third = write_check_report(report, *options_with({}, d.path()));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*third, d.path() + "/check_result.json");
  for (const auto& p : {*first, *second, *third}) EXPECT_EQ(read_json(p)["result"], "success") << p;
  for (const auto& e : fs::recursive_directory_iterator(d.path()))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "a temporary file remains: " << e.path();
}

TEST(Precheck, ENV_35_AnUnwritableFolderIsOneClearError) {
  TempDir d;
  const std::string file = d.file("taken", "a file");
  auto written = write_check_report(check_model(kDemo), *options_with({{"ASCEND_WORK_PATH", file}}, d.path()));
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("check_result"), std::string::npos) << written.status().message();
  EXPECT_NE(written.status().message().find(file), std::string::npos) << written.status().message();
}

TEST(Precheck, ENV_34_AModelThatFailsToLoadInANormalRunWritesTheReport) {
  TempDir d;
  SessionOptions so;
  so.config = options_with({{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, d.path());
  auto session = Session::open(write_bad_model(d), so);
  ASSERT_FALSE(session.ok());
  const std::string report = d.path() + "/work_path/check_result.json";
  EXPECT_NE(session.status().message().find(report), std::string::npos) << session.status().message();
  const auto j = read_json(report);
  EXPECT_EQ(j["result"], "failed");
  EXPECT_EQ(j["op"][1]["cause"][0]["code"], 1);
}

// `openge check` in a shell: exit status and the report where --check-report says.
int run_cli(const std::string& args) {
  const int status = std::system((std::string(OPENGE_CLI) + " check " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Precheck, ENV_34_OpengeCheckIsAtcMode3) {
  TempDir d;
  const std::string bad = write_bad_model(d);
  EXPECT_EQ(run_cli("--model " + bad + " --check-report " + d.path() + "/bad.json"), 1);
  EXPECT_EQ(read_json(d.path() + "/bad.json")["fail"], 2);
  EXPECT_EQ(run_cli("--model " + kDemo + " --check-report " + d.path() + "/demo.json"), 0);
  EXPECT_EQ(read_json(d.path() + "/demo.json")["result"], "success");
  EXPECT_EQ(run_cli("--check-report " + d.path() + "/none.json"), 1) << "--model is required";
  EXPECT_FALSE(fs::exists(d.path() + "/none.json"));
}

}  // namespace
}  // namespace openge::precheck::test
