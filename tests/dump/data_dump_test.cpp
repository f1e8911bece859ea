// Data Dump through a Session (OPT-dump_config.*): the folder layout, the file names, the
// iterations, ops and tensors selected, and the round trip to .npy, byte for byte against the
// tensors the executor produced (captured by an observer of a separately compiled Executable).
#include <gtest/gtest.h>

#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "dump/dump_convert.h"
#include "dump/dump_file.h"
#include "dump/dump_test_util.h"
#include "frontend/onnx_loader.h"
#include "io/npy.h"
#include "compiler/pipeline.h"
#include "paths/data_dump_layout.h"
#include "compiler/compile_config_test_util.h"

namespace openge::dump::testing {
namespace {

// The fields of a dump file name: {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}.
std::vector<std::string> name_fields(const std::string& name) { return dump_name_fields(name); }

bool is_dump_file(const std::string& name) { return looks_like_dump_file(name); }

// Runs the demo model `runs` times with `flags`; returns the session's dump folder.
std::string dump_demo(const Flags& flags, int runs = 1) {
  auto config = make_options(flags);
  if (!config) return "";
  SessionOptions so;
  so.config = config;
  so.num_threads = 1;
  auto session = Session::open(kDemoModel, so);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return "";
  const auto inputs = demo_inputs(**session);
  for (int i = 0; i < runs; ++i) {
    auto out = (*session)->run(inputs);
    EXPECT_TRUE(out.ok()) << out.status().message();
  }
  EXPECT_TRUE((*session)->flush_dump().ok());
  return (*session)->dump_dir();
}

// Every node's outputs of one run of the demo model, by node index, as the model's tensors: a
// value of a channels-last region (NHWC, NC1HWC0) copied to N x C x H x W, as the dump writes it.
struct Capture : RunObserver {
  const Executable* exe = nullptr;
  std::map<size_t, std::vector<Tensor>> outputs;
  std::map<size_t, std::string> names;
  void on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>&,
                   const std::vector<const Tensor*>& outs) override {
    for (size_t i = 0; i < outs.size(); ++i) {
      const Tensor* t = outs[i];
      const ActivationFormat f = exe->stored_format(node.node.outputs[i]);
      const auto nchw = t && f != ActivationFormat::kNchw ? nchw_shape(t->shape(), f) : std::nullopt;
      if (!nchw) {
        outputs[index].push_back(t ? t->clone() : Tensor());
        continue;
      }
      Tensor model_view(t->dtype(), *nchw);
      copy_to_nchw(*t, model_view, f);
      outputs[index].push_back(std::move(model_view));
    }
    names[index] = node.node.name;
  }
};

TEST(DataDump, OPT_dump_config_enable_dump_2_LayoutAndFileNames) {
  const std::string root = scratch_dir("layout");
  const std::string dir =
      dump_demo({{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", root}, {"device_id", "3"}});
  ASSERT_FALSE(dir.empty());
  // <dump_path>/<YYYYmmddHHMMSS>/<device_id>/<model_name>/<model_id>/<iteration>/
  const fs::path session_dir(dir);
  EXPECT_EQ(session_dir.parent_path(), fs::path(root));
  const std::string stamp = session_dir.filename().string();
  EXPECT_EQ(stamp.size(), 14u) << stamp;
  EXPECT_TRUE(std::all_of(stamp.begin(), stamp.end(), ::isdigit)) << stamp;
  const fs::path model_dir = session_dir / "3" / "openge_demo";  // the demo graph's name
  ASSERT_TRUE(fs::is_directory(model_dir));
  std::vector<fs::path> model_ids{fs::directory_iterator(model_dir), fs::directory_iterator()};
  ASSERT_EQ(model_ids.size(), 1u);
  const fs::path iteration0 = model_ids[0] / "0";
  ASSERT_TRUE(fs::is_directory(iteration0));
  EXPECT_EQ(fs::status(session_dir).permissions() & fs::perms::all, fs::perms::owner_all) << "dumps hold user data";
  const auto files = files_under(iteration0.string(), is_dump_file);
  ASSERT_FALSE(files.empty());
  std::set<std::string> ops;
  for (const auto& f : files) {
    const auto fields = name_fields(f.filename().string());
    ASSERT_EQ(fields.size(), 5u) << f;
    ops.insert(fields[1]);
    EXPECT_EQ(fields[3], "0") << "one stream";
    EXPECT_GT(std::stoull(fields[4]), 1600000000000000ull) << "a timestamp in microseconds since 1970";
  }
  EXPECT_TRUE(ops.count("softmax")) << "the last node of the demo model";
}

TEST(DataDump, PerSecondFolderOfAnotherProcessGetsThisProcessIdAppended) {
  // Another process's folder of this second (made here by hand, for this second and the next
  // two, so that the session starts inside one of them): this process must not write into it.
  const std::string root = scratch_dir("other_process");
  const std::time_t now = std::time(nullptr);
  for (std::time_t t = now; t < now + 3; ++t) fs::create_directories(paths::data_dump_session_dir(root, t));
  const std::string dir = dump_demo({{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", root}});
  ASSERT_FALSE(dir.empty());
  const std::string name = fs::path(dir).filename().string();
  const std::string suffix = "_" + std::to_string(::getpid());
  ASSERT_GT(name.size(), suffix.size());
  EXPECT_EQ(name.substr(14), suffix) << name;
  EXPECT_FALSE(files_under(dir, is_dump_file).empty());
  for (std::time_t t = now; t < now + 3; ++t)
    EXPECT_TRUE(fs::is_empty(paths::data_dump_session_dir(root, t))) << "the other process's folder is untouched";
  // Sessions of one process alone in a dump_path keep CANN's plain name: in the same second a
  // later session shares the folder this process made (its model id differs).
  const std::string own_root = scratch_dir("own_process");
  for (int i = 0; i < 2; ++i) {
    const std::string own = dump_demo({{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", own_root}});
    EXPECT_EQ(fs::path(own).filename().string().size(), 14u) << own;
  }
}

TEST(DataDump, OPT_dump_config_enable_dump_2_EveryOpRoundTripsToNpyByteForByte) {
  const std::string root = scratch_dir("roundtrip");
  const std::string dir = dump_demo({{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", root}});
  ASSERT_FALSE(dir.empty());

  // The executor's tensors: the same model, compiled the same way, observed.
  auto config = make_options({});
  auto graph = load_onnx(kDemoModel);
  ASSERT_TRUE(graph.ok());
  std::vector<Shape> shapes;
  std::vector<Tensor> inputs;
  {
    SessionOptions so;
    so.num_threads = 1;
    auto session = Session::open(kDemoModel, so);
    ASSERT_TRUE(session.ok());
    inputs = demo_inputs(**session);
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
  }
  CompileOptions co;
  co.num_threads = 1;
  co.config = openge::test::compile_config(config);
  auto exe = compiler::compile(*graph, shapes, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Capture capture;
  capture.exe = exe->get();
  ASSERT_TRUE((*exe)->run(inputs, nullptr, &capture).ok());

  const std::string npy_dir = scratch_dir("roundtrip_npy");
  auto converted = convert_dumps_to_npy(dir, npy_dir);
  ASSERT_TRUE(converted.ok()) << converted.status().message();
  const auto dumps = files_under(dir, is_dump_file);
  EXPECT_EQ(dumps.size(), capture.outputs.size()) << "one dump file per executed op";
  EXPECT_EQ(converted->dump_files, static_cast<int>(dumps.size()));
  int compared = 0;
  for (const auto& f : dumps) {
    const auto fields = name_fields(f.filename().string());
    const size_t task = std::stoul(fields[2]);
    ASSERT_TRUE(capture.outputs.count(task)) << f;
    EXPECT_EQ(fields[1], capture.names[task]);
    const auto npys =
        files_under(npy_dir, [&](const std::string& n) { return n.rfind(f.filename().string() + ".", 0) == 0; });
    ASSERT_EQ(npys.size(), capture.outputs[task].size()) << f << ": output mode dumps every output, and only outputs";
    for (size_t o = 0; o < npys.size(); ++o) {
      const Tensor& want = capture.outputs[task][o];
      const std::string suffix = ".output." + std::to_string(o) + "." + (want.rank() == 4 ? "NCHW" : "ND") + "." +
                                 dtype_name(want.dtype()) + ".npy";
      ASSERT_TRUE(npys[o].string().ends_with(suffix)) << npys[o] << " should end with " << suffix;
      auto got = read_npy(npys[o].string());
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->dtype(), want.dtype());
      ASSERT_EQ(got->shape(), want.shape());
      EXPECT_EQ(std::memcmp(got->raw(), want.raw(), want.nbytes()), 0)
          << npys[o] << " differs from the executor's tensor";
      ++compared;
    }
  }
  EXPECT_GE(compared, 10);
}

TEST(DataDump, OPT_dump_config_dump_step_2_OnlyTheListedIterations) {
  const std::string root = scratch_dir("steps");
  const std::string dir = dump_demo(
      {{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", root}, {"dump_config.dump_step", "0|2-3"}}, 5);
  ASSERT_FALSE(dir.empty());
  std::set<std::string> iterations;
  for (const auto& f : files_under(dir, is_dump_file)) iterations.insert(f.parent_path().filename().string());
  EXPECT_EQ(iterations, (std::set<std::string>{"0", "2", "3"}));
}

TEST(DataDump, OPT_dump_config_dump_mode_2_InputOutputOrBoth) {
  for (const std::string mode : {"input", "output", "all"}) {
    const std::string root = scratch_dir("mode_" + mode);
    const std::string dir = dump_demo({{"dump_config.enable_dump", "True"},
                                       {"dump_config.dump_path", root},
                                       {"dump_config.dump_mode", mode},
                                       {"dump_config.dump_layer", "softmax"}});
    const auto files = files_under(dir, is_dump_file);
    ASSERT_EQ(files.size(), 1u) << mode;
    auto record = read_dump_file(files[0].string());
    ASSERT_TRUE(record.ok()) << record.status().message();
    // Softmax: one input, one output, both [1, classes].
    EXPECT_EQ(record->inputs.size(), mode == "output" ? 0u : 1u) << mode;
    EXPECT_EQ(record->outputs.size(), mode == "input" ? 0u : 1u) << mode;
    if (mode == "all") {
      EXPECT_EQ(record->inputs[0].shape(), record->outputs[0].shape());
    }
  }
}

TEST(DataDump, OPT_dump_config_dump_layer_1_OnlyTheNamedOps) {
  const std::string root = scratch_dir("layers");
  const std::string dir = dump_demo({{"dump_config.enable_dump", "True"},
                                     {"dump_config.dump_path", root},
                                     {"dump_config.dump_layer", "softmax  gap no_such_node"}});
  std::set<std::string> ops;
  for (const auto& f : files_under(dir, is_dump_file)) ops.insert(name_fields(f.filename().string())[1]);
  EXPECT_EQ(ops, (std::set<std::string>{"softmax", "gap"}));
}

TEST(DataDump, OPT_dump_config_enable_dump_3_OffWritesNothing) {
  const std::string root = scratch_dir("off");
  const std::string dir = dump_demo({{"dump_config.dump_path", root}});
  EXPECT_EQ(dir, "");
  EXPECT_TRUE(fs::is_empty(root));
}

TEST(DataDump, OPT_dump_config_dump_data_2_StatsWritesOneCsvPerOp) {
  const std::string root = scratch_dir("stats");
  const std::string dir = dump_demo({{"dump_config.enable_dump", "True"},
                                     {"dump_config.dump_path", root},
                                     {"dump_config.dump_data", "stats"},
                                     {"dump_config.dump_mode", "all"}});
  EXPECT_TRUE(files_under(dir, is_dump_file).empty()) << "stats mode writes no tensor files";
  const auto csvs = files_under(dir, [](const std::string& n) { return n.ends_with(".csv"); });
  ASSERT_FALSE(csvs.empty());
  for (const auto& f : csvs) {
    EXPECT_TRUE(looks_like_dump_file(f.stem().string())) << f;
    const std::string text = read_text(f.string());
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max Value,Min Value,Avg Value,L2Norm Value,"
              "NaN Count,Negative Inf Count,Positive Inf Count");
    EXPECT_NE(text.find("\nOutput,0,"), std::string::npos) << f;
  }
}

}  // namespace
}  // namespace openge::dump::testing
