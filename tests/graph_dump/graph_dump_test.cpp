// Graph dumps (DUMP_GE_GRAPH, DUMP_GRAPH_LEVEL, DUMP_GRAPH_PATH; ENV-24/25, docs/FORMATS.md, "Graph dumps"):
// GE's file names, one dump per compile stage, the three detail levels, the four stage
// levels, the folder chain, and an unwritable folder as one clear error. Expected contents come
// from the model file itself, read here with ONNX's own protobuf classes.
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "graph_dump/graph_dumper.h"
#include "logging/log.h"
#include "runtime/demo_run_util.h"

namespace openge::graph_dump::test {
namespace {
namespace fs = std::filesystem;
using options::EnvMap;
using options::test::TempDir;

const std::string& kDemo = openge::test::kDemoModel;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

onnx::ModelProto read_model(const fs::path& p) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(read_file(p))) << p;
  return m;
}

Status run_demo(const EnvMap& env, const std::string& cwd) { return openge::test::run_demo_with(env, cwd); }

struct Dump {
  int index;
  std::string stage;
  fs::path onnx, pbtxt;
};

// The dumps in a folder, by index; every .onnx must have its .pbtxt twin and the names GE's pattern.
std::vector<Dump> dumps_in(const std::string& dir) {
  const std::regex name(R"(ge_onnx_(\d{8})_graph_(\d+)_([A-Za-z]+)\.(onnx|pbtxt))");
  std::map<int, Dump> by_index;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (const auto& e : fs::directory_iterator(dir)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (file.ends_with("_PrecisionReport.json")) continue;  // the precision report beside them
    if (file == "fusion_result.json") continue;             // FE's statistics share the working directory (ENV-32)
    EXPECT_TRUE(std::regex_match(file, m, name)) << "unexpected file " << file;
    if (m.empty()) continue;
    Dump& d = by_index[std::stoi(m[1])];
    d.index = std::stoi(m[1]);
    d.stage = m[3];
    (m[4] == "onnx" ? d.onnx : d.pbtxt) = e.path();
  }
  std::vector<Dump> out;
  for (auto& [i, d] : by_index) {
    EXPECT_FALSE(d.onnx.empty() || d.pbtxt.empty()) << "dump " << i << " lacks its .onnx or .pbtxt";
    out.push_back(d);
  }
  return out;
}

std::vector<std::string> stages_of(const std::vector<Dump>& dumps) {
  std::vector<std::string> out;
  for (const auto& d : dumps) out.push_back(d.stage);
  return out;
}

class GraphDump : public ::testing::Test {
 protected:
  void TearDown() override { logging::unconfigure(); }
  TempDir d;
};

TEST_F(GraphDump, ENV_24_Level1DumpsEveryStageInOrderWithGeNames) {
  ASSERT_TRUE(
      run_demo({{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_LEVEL", "1"}, {"DUMP_GRAPH_PATH", d.path() + "/g"}}, d.path())
          .ok());
  const auto dumps = dumps_in(d.path() + "/g");
  const auto stages = stages_of(dumps);
  ASSERT_GE(stages.size(), 6u);
  EXPECT_EQ(stages.front(), "PreRunBegin");
  EXPECT_EQ(stages[1], "PreRunAfterInferShape");
  EXPECT_EQ(stages.back(), "Build");
  EXPECT_EQ(stages[stages.size() - 2], "PreRunAfterPrecision");
  EXPECT_EQ(stages[stages.size() - 3], "PreRunAfterPrune");
  for (size_t i = 2; i + 3 < stages.size(); ++i)
    EXPECT_TRUE(stages[i] == "PreRunAfterGraphFusion" || stages[i] == "PreRunAfterUbFusion") << stages[i];
  // The .pbtxt is the same model as text, less the weights' bytes.
  for (const auto& dump : dumps) {
    onnx::ModelProto from_text;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(read_file(dump.pbtxt), &from_text)) << dump.pbtxt;
    onnx::ModelProto binary = read_model(dump.onnx);
    size_t weight_bytes = 0;
    for (auto& t : *binary.mutable_graph()->mutable_initializer()) {
      weight_bytes += t.raw_data().size();
      t.clear_raw_data();
    }
    for (const auto& t : from_text.graph().initializer()) EXPECT_TRUE(t.raw_data().empty()) << t.name();
    EXPECT_EQ(from_text.SerializeAsString(), binary.SerializeAsString()) << dump.stage;
    if (dump.stage == "PreRunBegin") {
      EXPECT_GT(weight_bytes, 0u) << "level 1 keeps the weights in the .onnx";
    }
  }
}

TEST_F(GraphDump, ENV_24_DUMP_GE_GRAPH_1_TheLoadedGraphIsAValidOnnxModelWithItsWeights) {
  ASSERT_TRUE(
      run_demo({{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_LEVEL", "4"}, {"DUMP_GRAPH_PATH", d.path() + "/g"}}, d.path())
          .ok());
  const auto dumps = dumps_in(d.path() + "/g");
  ASSERT_EQ(stages_of(dumps), std::vector<std::string>{"PreRunBegin"}) << "level 4: the loaded graph only";
  onnx::ModelProto dumped = read_model(dumps[0].onnx);
  EXPECT_NO_THROW(onnx::checker::check_model(dumped));
  const onnx::ModelProto original = read_model(kDemo);
  ASSERT_EQ(dumped.graph().node_size(), original.graph().node_size());
  for (int i = 0; i < original.graph().node_size(); ++i) {
    EXPECT_EQ(dumped.graph().node(i).name(), original.graph().node(i).name());
    EXPECT_EQ(dumped.graph().node(i).op_type(), original.graph().node(i).op_type());
    EXPECT_EQ(dumped.graph().node(i).attribute_size(), original.graph().node(i).attribute_size());
  }
  std::map<std::string, std::string> weights;
  for (const auto& t : dumped.graph().initializer()) weights[t.name()] = t.raw_data();
  ASSERT_EQ(weights.size(), static_cast<size_t>(original.graph().initializer_size()));
  for (const auto& t : original.graph().initializer())
    EXPECT_EQ(weights[t.name()], t.raw_data()) << t.name() << ": the weights' bytes are dumped as stored";
}

TEST_F(GraphDump, ENV_24_DUMP_GE_GRAPH_2_WeightsWithoutData) {
  ASSERT_TRUE(
      run_demo({{"DUMP_GE_GRAPH", "2"}, {"DUMP_GRAPH_LEVEL", "4"}, {"DUMP_GRAPH_PATH", d.path() + "/g"}}, d.path())
          .ok());
  const auto dumps = dumps_in(d.path() + "/g");
  ASSERT_EQ(dumps.size(), 1u);
  const onnx::ModelProto dumped = read_model(dumps[0].onnx);
  const onnx::ModelProto original = read_model(kDemo);
  ASSERT_EQ(dumped.graph().initializer_size(), original.graph().initializer_size());
  std::map<std::string, std::vector<int64_t>> dims;
  for (const auto& t : original.graph().initializer()) dims[t.name()] = {t.dims().begin(), t.dims().end()};
  for (const auto& t : dumped.graph().initializer()) {
    EXPECT_TRUE(t.raw_data().empty()) << t.name();
    EXPECT_EQ(std::vector<int64_t>(t.dims().begin(), t.dims().end()), dims[t.name()]) << t.name();
  }
  int attributes = 0;
  for (const auto& n : dumped.graph().node()) attributes += n.attribute_size();
  EXPECT_GT(attributes, 0) << "level 2 keeps the attributes";
}

TEST_F(GraphDump, ENV_24_DUMP_GE_GRAPH_3_NodesAndEdgesOnly) {
  ASSERT_TRUE(
      run_demo({{"DUMP_GE_GRAPH", "3"}, {"DUMP_GRAPH_LEVEL", "3"}, {"DUMP_GRAPH_PATH", d.path() + "/g"}}, d.path())
          .ok());
  const auto dumps = dumps_in(d.path() + "/g");
  ASSERT_EQ(stages_of(dumps), std::vector<std::string>{"Build"}) << "level 3: the built graph only";
  const onnx::ModelProto dumped = read_model(dumps[0].onnx);
  EXPECT_GT(dumped.graph().node_size(), 0);
  for (const auto& n : dumped.graph().node()) EXPECT_EQ(n.attribute_size(), 0) << n.name();
  for (const auto& t : dumped.graph().initializer()) EXPECT_TRUE(t.raw_data().empty()) << t.name();
  EXPECT_EQ(dumped.graph().value_info_size(), 0);
}

TEST_F(GraphDump, ENV_24_DefaultLevel2DumpsTheSameStagesAsLevel1) {
  ASSERT_TRUE(run_demo({{"DUMP_GE_GRAPH", "3"}, {"DUMP_GRAPH_PATH", d.path() + "/two"}}, d.path()).ok());
  ASSERT_TRUE(
      run_demo({{"DUMP_GE_GRAPH", "3"}, {"DUMP_GRAPH_LEVEL", "1"}, {"DUMP_GRAPH_PATH", d.path() + "/one"}}, d.path())
          .ok());
  const auto two = stages_of(dumps_in(d.path() + "/two"));
  EXPECT_FALSE(two.empty());
  EXPECT_EQ(two, stages_of(dumps_in(d.path() + "/one")))
      << "no stage of OpenGE is a partition, subgraph or AI CPU stage";
}

TEST_F(GraphDump, ENV_24_NothingWithoutDumpGeGraph) {
  ASSERT_TRUE(run_demo({{"DUMP_GRAPH_LEVEL", "1"}, {"DUMP_GRAPH_PATH", d.path() + "/g"}}, d.path()).ok());
  EXPECT_FALSE(fs::exists(d.path() + "/g"));
}

TEST_F(GraphDump, ENV_25_FolderChain) {
  const std::string pid_dev = std::to_string(::getpid()) + "_3";
  const EnvMap base = {{"DUMP_GE_GRAPH", "3"}, {"DUMP_GRAPH_LEVEL", "3"}, {"ASCEND_DEVICE_ID", "3"}};
  auto with = [&](EnvMap extra) {
    for (const auto& kv : base) extra.insert(kv);
    return extra;
  };
  ASSERT_TRUE(run_demo(with({{"DUMP_GRAPH_PATH", d.path() + "/p"},
                             {"NPU_COLLECT_PATH", d.path() + "/c"},
                             {"ASCEND_WORK_PATH", d.path() + "/w"}}),
                       d.path())
                  .ok());
  EXPECT_EQ(dumps_in(d.path() + "/p").size(), 1u) << "DUMP_GRAPH_PATH first";
  ASSERT_TRUE(
      run_demo(with({{"NPU_COLLECT_PATH", d.path() + "/c"}, {"ASCEND_WORK_PATH", d.path() + "/w"}}), d.path()).ok());
  EXPECT_EQ(dumps_in(d.path() + "/c/" + pid_dev).size(), 1u) << "then NPU_COLLECT_PATH/${pid}_${device_id} (AMB-41)";
  ASSERT_TRUE(run_demo(with({{"ASCEND_WORK_PATH", d.path() + "/w"}}), d.path()).ok());
  EXPECT_EQ(dumps_in(d.path() + "/w/" + pid_dev).size(), 1u) << "then ASCEND_WORK_PATH/${pid}_${device_id}";
  const std::string cwd = d.dir("cwd");
  ASSERT_TRUE(run_demo(base, cwd).ok());
  EXPECT_EQ(dumps_in(cwd).size(), 1u) << "then the working directory";
}

// Two processes dumping into one DUMP_GRAPH_PATH would overwrite each other's numbered files. A
// forked child claims the folder first, as its own first dump would, and stays alive: this
// process's dumps then go to <folder>/<pid>_<device_id>, and none land in the folder itself. The
// control: a folder nobody holds gets the dumps directly, as before.
TEST_F(GraphDump, ENV_25_AConcurrentProcessDumpsIntoItsOwnSubfolder) {
  const std::string shared = d.dir("shared"), alone = d.dir("alone");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto claimed = claim_dump_folder(shared, 0);
    const char ok = claimed.ok() && *claimed == shared ? '1' : '0';
    if (::write(ready[1], &ok, 1) != 1) ::_exit(1);
    ::pause();  // holds the claim until killed
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, '1') << "the child could not claim a free folder";
  const Status st =
      run_demo({{"DUMP_GE_GRAPH", "3"}, {"DUMP_GRAPH_LEVEL", "3"}, {"DUMP_GRAPH_PATH", shared}}, d.path());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(dumps_in(shared + "/" + std::to_string(::getpid()) + "_0").size(), 1u) << "this process's own subfolder";
  size_t files_in_shared = 0;
  for (const auto& e : fs::directory_iterator(shared)) files_in_shared += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files_in_shared, 0u) << "nothing written beside the other process's dumps";
  ASSERT_TRUE(run_demo({{"DUMP_GE_GRAPH", "3"}, {"DUMP_GRAPH_LEVEL", "3"}, {"DUMP_GRAPH_PATH", alone}}, d.path()).ok());
  EXPECT_EQ(dumps_in(alone).size(), 1u) << "a folder nobody holds gets the dumps directly";
}

TEST_F(GraphDump, ENV_25_AnUnwritableFolderIsOneClearError) {
  const std::string file = d.file("taken", "a file");
  const Status st = run_demo({{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_PATH", file + "/g"}}, d.path());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("DUMP_GE_GRAPH"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(file), std::string::npos) << st.message();
}

TEST_F(GraphDump, ENV_24_ValuesAreValidated) {
  for (const char* bad : {"4", "x"})
    EXPECT_TRUE(options::test::has_error(options::test::build({}, {{"DUMP_GE_GRAPH", bad}}), "DUMP_GE_GRAPH")) << bad;
  for (const char* bad : {"0", "5"})
    EXPECT_TRUE(options::test::has_error(options::test::build({}, {{"DUMP_GRAPH_LEVEL", bad}}), "DUMP_GRAPH_LEVEL"))
        << bad;
}

}  // namespace
}  // namespace openge::graph_dump::test
