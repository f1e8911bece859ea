// external_weight=True (OPT-external_weight-1..8, ENV-28..30, DISC-1, AMB-24): the demo model's
// initializers are written to tmp_weight_<pid>_<sessionid>/ (0700) under each tier of the chain,
// byte for byte as the ONNX file holds them (read here with ONNX's own protobuf classes), the
// session runs from the mapped files with the same outputs, a second session shares the files
// (same inode), and no folder remains after the session closes, after an error, at exit, or when
// the CLI running the model receives SIGINT or SIGTERM; the folder of a CLI killed with SIGKILL
// (no handler runs) is removed by the next run that uses the same folder.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "base/file_backed_memory.h"
#include "compiler/pipeline.h"
#include "dump/dump_file.h"
#include "frontend/onnx_loader.h"
#include "runtime/demo_run_util.h"
#include "session/external_weights.h"
#include "compiler/compile_config_test_util.h"

namespace openge::test {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The folders named tmp_weight_<pid>_* directly in `dir`.
std::vector<fs::path> weight_folders(const std::string& dir, long pid) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  const std::string prefix = "tmp_weight_" + std::to_string(pid) + "_";
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  return out;
}

std::vector<fs::path> any_weight_folders(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().rfind("tmp_weight_", 0) == 0) out.push_back(e.path());
  return out;
}

// The demo model's initializer bytes, read with ONNX's protobuf classes (not OpenGE's loader).
std::multiset<std::string> demo_initializer_bytes() {
  onnx::ModelProto m;
  std::ifstream in(kDemoModel, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&in));
  std::multiset<std::string> out;
  for (const auto& t : m.graph().initializer()) {
    EXPECT_EQ(t.data_type(), onnx::TensorProto::FLOAT) << t.name();
    if (!t.raw_data().empty()) {
      out.insert(t.raw_data());
    } else {
      std::string bytes(static_cast<size_t>(t.float_data_size()) * 4, '\0');
      std::memcpy(bytes.data(), t.float_data().data(), bytes.size());
      out.insert(bytes);
    }
  }
  return out;
}

std::unique_ptr<Session> open_demo(const std::shared_ptr<const options::OptionSet>& config) {
  SessionOptions so;
  so.config = config;
  so.num_threads = 1;
  auto session = Session::open(kDemoModel, so);
  EXPECT_TRUE(session.ok()) << session.status().message();
  return session.ok() ? std::move(session.value()) : nullptr;
}

// The demo's input: a fixed ramp, so two sessions see the same data.
std::vector<Tensor> demo_input(const Session& s) {
  Shape shape = s.inputs()[0].shape;
  for (auto& dim : shape) dim = dim < 0 ? 1 : dim;
  Tensor t(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
  return {t};
}

std::string output_bytes(Session& s) {
  auto out = s.run(demo_input(s));
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return "";
  return std::string(static_cast<const char*>((*out)[0].raw()), (*out)[0].nbytes());
}

// The weights in `folder` are the model's initializers byte for byte, in a 0700 folder.
void expect_weights_in(const fs::path& folder) {
  EXPECT_EQ(fs::status(folder).permissions() & fs::perms::all, fs::perms::owner_all) << folder;
  std::multiset<std::string> files;
  for (const auto& e : fs::directory_iterator(folder)) files.insert(read_bytes(e.path()));
  EXPECT_EQ(files, demo_initializer_bytes());
}

TEST(ExternalWeight, OPT_external_weight_4_WorkingDirectoryFolderMappedAndRemovedAtUnload) {
  TempDir d;
  const std::string plain = output_bytes(*open_demo(options_from({}, d.path())));
  auto session = open_demo(options_from({}, d.path(), {{"external_weight", "True"}}));
  ASSERT_TRUE(session);
  const auto folders = weight_folders(d.path(), ::getpid());
  ASSERT_EQ(folders.size(), 1u);
  expect_weights_in(folders[0]);
  EXPECT_EQ(output_bytes(*session), plain) << "the mapped weights must give the same outputs";
  session.reset();
  EXPECT_FALSE(fs::exists(folders[0])) << "the folder must go when the model is unloaded (OPT-external_weight-6)";
}

// With external_weight the graph dumps show every weight as a FileConstant node (file, offset,
// length, dtype, shape) of OpenGE's domain instead of an initializer, and the file it names holds
// the weight's bytes; without it they stay initializers.
TEST(ExternalWeight, OPT_external_weight_5_GraphDumpsNameTheWeightsAsFileConstantNodes) {
  TempDir d;
  const std::string dumps = d.dir("dumps");
  const options::EnvMap env = {{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_LEVEL", "1"}, {"DUMP_GRAPH_PATH", dumps}};
  auto session = open_demo(options_from(env, d.path(), {{"external_weight", "True"}}));
  ASSERT_TRUE(session);
  const std::string with_files = output_bytes(*session);  // the first run compiles: the dumps
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dumps))
    if (e.path().extension() == ".onnx") files.push_back(e.path());
  ASSERT_FALSE(files.empty());
  std::sort(files.begin(), files.end());
  // The first stage's graph is the loaded model: every weight is a file's. Later stages add
  // weights the passes compute (folded BatchNormalization ...), which are ordinary initializers.
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(read_bytes(files.front())));
  std::multiset<std::string> weights;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "FileConstant") continue;
    EXPECT_EQ(n.domain(), "openge");
    std::map<std::string, onnx::AttributeProto> attrs;
    for (const auto& a : n.attribute()) attrs[a.name()] = a;
    ASSERT_TRUE(attrs.count("file_path") && attrs.count("offset") && attrs.count("length") && attrs.count("shape"));
    const std::string bytes = read_bytes(attrs["file_path"].s());
    EXPECT_EQ(static_cast<int64_t>(bytes.size()), attrs["offset"].i() + attrs["length"].i()) << n.name();
    EXPECT_NE(attrs["file_path"].s().find("tmp_weight_"), std::string::npos);
    weights.insert(bytes.substr(static_cast<size_t>(attrs["offset"].i())));
  }
  ASSERT_EQ(weights.size(), demo_initializer_bytes().size());
  EXPECT_TRUE(weights == demo_initializer_bytes()) << "one FileConstant per weight, naming its bytes";
  EXPECT_EQ(m.graph().initializer_size(), 0);
  bool imports_openge = false;
  for (const auto& o : m.opset_import()) imports_openge = imports_openge || o.domain() == "openge";
  EXPECT_TRUE(imports_openge);

  // The same model without external_weight: initializers, no FileConstant.
  session.reset();
  const std::string plain_dumps = d.dir("plain_dumps");
  auto plain = open_demo(
      options_from({{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_LEVEL", "1"}, {"DUMP_GRAPH_PATH", plain_dumps}}, d.path()));
  ASSERT_TRUE(plain);
  EXPECT_EQ(output_bytes(*plain), with_files);
  files.clear();
  for (const auto& e : fs::directory_iterator(plain_dumps))
    if (e.path().extension() == ".onnx") files.push_back(e.path());
  ASSERT_FALSE(files.empty());
  std::sort(files.begin(), files.end());
  ASSERT_TRUE(m.ParseFromString(read_bytes(files.front())));
  EXPECT_GT(m.graph().initializer_size(), 0);
  for (const auto& n : m.graph().node()) EXPECT_NE(n.op_type(), "FileConstant");
}

// With external_weight the Data Dump names the weights the dumped ops read as FileConstants:
// one file FileConstant.<weight>_FileConstant.<task>.0.<time> per weight and iteration, its
// output the weight's bytes; without external_weight there is none, and the ops' own files are
// the same in number.
TEST(ExternalWeight, OPT_external_weight_5_DataDumpNamesTheWeightsAsFileConstants) {
  TempDir d;
  auto dumped = [&](const std::string& root, bool external, int runs) {
    options::test::Flags flags{{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", root}};
    if (external) flags.push_back({"external_weight", "True"});
    auto session = open_demo(options_from({}, d.path(), flags));
    EXPECT_TRUE(session);
    std::vector<fs::path> files;
    if (!session) return files;
    for (int r = 0; r < runs; ++r) output_bytes(*session);
    EXPECT_TRUE(session->flush_dump().ok());
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file()) files.push_back(e.path());
    return files;
  };
  auto file_constants = [](const std::vector<fs::path>& files) {
    std::vector<fs::path> out;
    for (const auto& f : files)
      if (f.filename().string().rfind("FileConstant.", 0) == 0) out.push_back(f);
    return out;
  };
  const auto with = dumped(d.dir("with"), true, 2);
  const auto without = dumped(d.dir("without"), false, 2);
  const auto fc = file_constants(with);
  ASSERT_FALSE(fc.empty()) << "the compiled demo reads some weights straight from their files";
  EXPECT_TRUE(file_constants(without).empty());
  EXPECT_EQ(with.size() - fc.size(), without.size()) << "the ops' own files are unchanged";
  const std::multiset<std::string> initializers = demo_initializer_bytes();
  std::map<std::string, int> per_weight;
  for (const auto& f : fc) {
    auto record = dump::read_dump_file(f.string());
    ASSERT_TRUE(record.ok()) << record.status().message();
    EXPECT_TRUE(record->op_name.ends_with("_FileConstant")) << record->op_name;
    EXPECT_TRUE(record->inputs.empty());
    ASSERT_EQ(record->outputs.size(), 1u);
    const Tensor& w = record->outputs[0];
    EXPECT_GT(initializers.count(std::string(static_cast<const char*>(w.raw()), w.nbytes())), 0u)
        << f << " is not one of the model's weights";
    ++per_weight[record->op_name];
  }
  for (const auto& [name, count] : per_weight) EXPECT_EQ(count, 2) << name << ": once per iteration";
}

// With external_weight every weight of the loaded graph is the output of a FileConstant node
// naming its file (file_path, offset, length, dtype, shape); compiling folds the nodes away and
// the compiled graph's weights are the mapped files' pages, not copies.
TEST(ExternalWeight, OPT_external_weight_5_WeightsBecomeFileConstantNodesAndCompileToTheMappedFiles) {
  TempDir d;
  auto graph = load_onnx(kDemoModel);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  size_t initializers = 0;
  for (const Value& v : graph->values) initializers += v.producer < 0 && v.constant ? 1 : 0;
  ASSERT_GT(initializers, 0u);
  const auto config = options_from({}, d.path(), {{"external_weight", "True"}});
  auto weights = ExternalWeights::externalize(*graph, *config);
  ASSERT_TRUE(weights.ok()) << weights.status().message();
  size_t file_constants = 0;
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    const Node& node = graph->nodes[n];
    if (node.op_type != "FileConstant") continue;
    ++file_constants;
    EXPECT_EQ(node.domain, "openge");
    ASSERT_EQ(node.outputs.size(), 1u);
    const Value& w = graph->values[static_cast<size_t>(node.outputs[0])];
    EXPECT_EQ(w.producer, static_cast<int>(n));
    const std::string file = node.attrs.get_string("file_path", "");
    EXPECT_EQ(fs::path(file).parent_path(), fs::path((*weights)->folder())) << file;
    EXPECT_EQ(read_bytes(file).substr(static_cast<size_t>(node.attrs.get_int("offset", -1))),
              std::string(static_cast<const char*>(w.constant->raw()), w.constant->nbytes()));
    EXPECT_EQ(node.attrs.get_int("length", -1), static_cast<int64_t>(w.constant->nbytes()));
    EXPECT_EQ(node.attrs.get_ints("shape"), w.constant->shape());
  }
  EXPECT_EQ(file_constants, initializers) << "one FileConstant node per weight";
  for (const Value& v : graph->values)
    EXPECT_FALSE(v.producer < 0 && v.constant) << v.name << " is still an initializer";

  std::vector<Shape> shapes;
  for (int v : graph->inputs) {
    Shape s = graph->values[static_cast<size_t>(v)].shape.value_or(Shape{});
    for (auto& dim : s) dim = dim < 0 ? 1 : dim;
    shapes.push_back(s);
  }
  CompileOptions co;
  co.num_threads = 1;
  co.config = openge::test::compile_config(config);
  auto exe = compiler::compile(*graph, shapes, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  size_t file_backed = 0;
  for (const Node& node : (*exe)->graph().nodes) EXPECT_NE(node.op_type, "FileConstant") << "folded at compile";
  for (const Value& v : (*exe)->graph().values)
    if (v.constant && v.constant->defined() && find_file_backed(v.constant->raw(), v.constant->nbytes())) ++file_backed;
  EXPECT_GT(file_backed, 0u) << "the compiled graph's weights view the files (not copied)";
}

// FileConstant nodes exist only in graphs OpenGE builds: a model file that carries one (a graph
// dump of a session with external_weight) is refused by the loader, since such a node could make
// any file the user can read a weight of a hostile model.
TEST(ExternalWeight, OPT_external_weight_5_AModelFileCannotCarryFileConstantNodes) {
  TempDir d;
  const std::string dumps = d.dir("dumps");
  const options::EnvMap env = {{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_LEVEL", "1"}, {"DUMP_GRAPH_PATH", dumps}};
  auto session = open_demo(options_from(env, d.path(), {{"external_weight", "True"}}));
  ASSERT_TRUE(session);
  output_bytes(*session);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dumps))
    if (e.path().extension() == ".onnx") files.push_back(e.path());
  ASSERT_FALSE(files.empty());
  std::sort(files.begin(), files.end());
  SessionOptions so;
  so.num_threads = 1;
  auto reloaded = Session::open(files.front().string(), so);
  ASSERT_FALSE(reloaded.ok());
  EXPECT_NE(reloaded.status().message().find("FileConstant"), std::string::npos) << reloaded.status().message();
}

TEST(ExternalWeight, ENV_28_WorkPathFolder) {
  TempDir d;
  const std::string work = d.path() + "/work_path";  // missing: made
  auto session = open_demo(options_from({{"ASCEND_WORK_PATH", work}}, d.path(), {{"external_weight", "True"}}));
  ASSERT_TRUE(session);
  const auto folders = weight_folders(work, ::getpid());
  ASSERT_EQ(folders.size(), 1u);
  expect_weights_in(folders[0]);
  EXPECT_TRUE(weight_folders(d.path(), ::getpid()).empty());
  session.reset();
  EXPECT_TRUE(weight_folders(work, ::getpid()).empty());
}

TEST(ExternalWeight, OPT_external_weight_1_SecondSessionSharesTheFiles) {
  TempDir d;
  const auto config = options_from({}, d.path(), {{"external_weight", "True"}});
  auto first = open_demo(config);
  auto second = open_demo(config);
  ASSERT_TRUE(first && second);
  auto folders = weight_folders(d.path(), ::getpid());
  ASSERT_EQ(folders.size(), 2u) << "one folder per session (tmp_weight_<pid>_<sessionid>)";
  size_t shared = 0, files = 0;
  for (const auto& e : fs::directory_iterator(folders[0])) {
    struct stat a {
    }, b{};
    ASSERT_EQ(::stat(e.path().c_str(), &a), 0);
    ASSERT_EQ(::stat((folders[1] / e.path().filename()).c_str(), &b), 0) << e.path().filename();
    ++files;
    if (a.st_ino == b.st_ino && a.st_nlink == 2) ++shared;
  }
  EXPECT_EQ(shared, files) << "the second session links the first one's files: one copy of the pages";
  const std::string expected = output_bytes(*first);
  first.reset();  // its folder goes; the second session's links and mappings stay valid
  EXPECT_EQ(weight_folders(d.path(), ::getpid()).size(), 1u);
  EXPECT_EQ(output_bytes(*second), expected);
  second.reset();
  EXPECT_TRUE(weight_folders(d.path(), ::getpid()).empty());
}

TEST(ExternalWeight, OPT_external_weight_6_RemovedAfterAFailedRun) {
  TempDir d;
  auto session = open_demo(options_from({}, d.path(), {{"external_weight", "True"}}));
  ASSERT_TRUE(session);
  Tensor wrong(DType::kFloat32, {1, 2, 3});
  EXPECT_FALSE(session->run({wrong}).ok());
  session.reset();
  EXPECT_TRUE(weight_folders(d.path(), ::getpid()).empty());
}

// The CLI in a child process, in `cwd`, with only HOME and PATH in its environment.
pid_t start_cli(const std::string& cwd, const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (::chdir(cwd.c_str()) != 0) ::_exit(125);
  // As a user's shell starts it: a test binary run in the background of a script (test.sh's
  // sharded runs) inherits SIGINT ignored, which exec keeps, and the CLI rightly leaves it so.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  std::vector<char*> argv{const_cast<char*>(OPENGE_CLI)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string home = "HOME=" + cwd;
  char* envp[] = {const_cast<char*>(home.c_str()), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
  const int null_fd = ::open("/dev/null", O_WRONLY);
  ::dup2(null_fd, 1);
  ::dup2(null_fd, 2);
  ::execve(OPENGE_CLI, argv.data(), envp);
  ::_exit(126);
}

int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

const std::vector<std::string> kLongBench = {
    "bench", "--warmup", "0", "--runs", "100000", "--threads", "1", "--option", "external_weight=True"};

// SIGINT and SIGTERM while the CLI runs the model: the folder goes, and the signal still ends the
// process as it would have (killed by that signal, not a normal exit).
TEST(ExternalWeight, OPT_external_weight_6_RemovedOnSigintAndSigterm) {
  for (int sig : {SIGINT, SIGTERM}) {
    TempDir d;
    const pid_t child = start_cli(d.path(), kLongBench);
    ASSERT_GT(child, 0);
    bool appeared = false;
    for (int i = 0; i < 3000 && !appeared; ++i) {  // up to 30 s on a loaded machine
      appeared = !weight_folders(d.path(), child).empty();
      if (!appeared) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(appeared) << "the CLI did not create tmp_weight_" << child << "_*";
    ::kill(child, sig);
    const int status = wait_for(child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig << ", status " << status;
    EXPECT_TRUE(any_weight_folders(d.path()).empty()) << "signal " << sig;
  }
}

TEST(ExternalWeight, OPT_external_weight_6_FolderOfAKilledRunIsRemovedByTheNextRun) {
  TempDir d;
  const pid_t child = start_cli(d.path(), kLongBench);
  ASSERT_GT(child, 0);
  bool appeared = false;
  for (int i = 0; i < 3000 && !appeared; ++i) {  // up to 30 s on a loaded machine
    appeared = !weight_folders(d.path(), child).empty();
    if (!appeared) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(appeared) << "the CLI did not create tmp_weight_" << child << "_*";
  ::kill(child, SIGKILL);
  const int status = wait_for(child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  ASSERT_FALSE(weight_folders(d.path(), child).empty()) << "SIGKILL runs no handler: the folder must be left";
  // A live process's folder (this test's own pid stands for one) is never touched.
  const fs::path live = fs::path(d.path()) / ("tmp_weight_" + std::to_string(::getpid()) + "_0");
  fs::create_directories(live);
  const int next = wait_for(start_cli(d.path(), {"run", "--threads", "1", "--option", "external_weight=True"}));
  EXPECT_TRUE(WIFEXITED(next) && WEXITSTATUS(next) == 0) << next;
  EXPECT_TRUE(weight_folders(d.path(), child).empty()) << "the killed run's folder outlived the next run";
  EXPECT_TRUE(fs::is_directory(live)) << "a live process's folder was removed";
}

TEST(ExternalWeight, OPT_external_weight_6_RemovedAfterNormalExitAndAfterAnError) {
  TempDir d;
  int status = wait_for(start_cli(d.path(), {"run", "--threads", "1", "--option", "external_weight=True"}));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(any_weight_folders(d.path()).empty());
  // A valid .npy whose shape (2,) does not fit the model's input: the run fails after the model is open.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";  // 10 + header: a multiple of 64
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  npy += std::string(8, '\0');
  const std::string bad = d.file("bad.npy", npy);
  status = wait_for(
      start_cli(d.path(), {"run", "--threads", "1", "--option", "external_weight=True", "--input", "image=" + bad}));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status;
  EXPECT_TRUE(any_weight_folders(d.path()).empty());
}

}  // namespace
}  // namespace openge::test
