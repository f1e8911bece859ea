// Profiling switched on through the Session's options, as a user of npu.global_options() or of
// PROFILING_MODE / PROFILING_OPTIONS does: every run is an iteration, the host API calls and
// user markers reach the timeline, and a bad configuration fails before anything is created.
#include <set>

#include "openge/session.h"
#include "options/option_builder.h"
#include "profiling_test_util.h"

namespace openge::profiling {
namespace {
using namespace testing;

const std::string kDemo = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

// The OptionSet of `flags` and `env` (no process environment).
std::shared_ptr<const options::OptionSet> option_set(const std::vector<std::pair<std::string, std::string>>& flags,
                                                     const options::EnvMap& env = {}) {
  options::OptionInputs in;
  for (const auto& [k, v] : flags) in.flags.push_back({k, v, "test"});
  in.env = env;
  auto report = options::build_options(in);
  EXPECT_TRUE(report.errors.empty()) << options::format_problems(report.errors);
  if (!report.options) return nullptr;
  return std::make_shared<const options::OptionSet>(std::move(*report.options));
}

std::unique_ptr<Session> open_demo(std::shared_ptr<const options::OptionSet> config) {
  SessionOptions so;
  so.config = std::move(config);
  auto s = Session::open(kDemo, so);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

std::set<std::string> event_names(const std::string& trace_file) {
  std::set<std::string> names;
  for (const auto& e : check_trace(read_text(trace_file))) names.insert(e["name"].get<std::string>());
  return names;
}

TEST(SessionProfiling, PROF_1_2_EnvironmentSwitchesProfilingOnForEveryRun) {
  const std::string out = scratch_dir("session_env");
  auto session = open_demo(option_set(
      {},
      {{"PROFILING_MODE", "true"},
       {"PROFILING_OPTIONS", R"({"output":")" + out + R"(","aicpu":"on","training_trace":"on","runtime_api":"on"})"}}));
  ASSERT_TRUE(session);
  const std::string dir = session->profiling_dir();
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(fs::path(dir).parent_path(), fs::path(out));
  for (uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(session->run({demo_image(i)}).ok());
  ASSERT_TRUE(session->finish_profiling().ok());
  const std::string files = dir + "/mindstudio_profiler_output/";
  EXPECT_EQ(files_matching(files, "op_summary_0_1_", ".csv").size(), 3u);
  EXPECT_EQ(files_matching(files, "step_trace_0_1_", ".csv").size(), 3u);
  // runtime_api: the session's host calls, on the first iteration's timeline (load and compile
  // happened before it ended) and on every iteration (execute, output copy).
  const auto first = event_names(files + "msprof_0_1_1.json");
  for (const char* api : {"ModelLoad", "ModelCompile", "ModelExecute", "OutputCopy"})
    EXPECT_TRUE(first.count(api)) << api;
  const auto third = event_names(files + "msprof_0_1_3.json");
  EXPECT_FALSE(third.count("ModelCompile"));  // compiled once, for the first run's shapes
  EXPECT_TRUE(third.count("ModelExecute"));
  // Runs after finish are not recorded (and do not fail).
  ASSERT_TRUE(session->run({demo_image(9)}).ok());
  EXPECT_EQ(files_matching(files, "op_summary_0_1_", ".csv").size(), 3u);
}

TEST(SessionProfiling, OPT_profiling_config_enable_profiling_OptionRouteWritesTheReportOnDestruction) {
  const std::string out = scratch_dir("session_opt");
  std::string dir;
  {
    auto session = open_demo(option_set({{"profiling_config.enable_profiling", "True"},
                                         {"profiling_config.profiling_options", R"({"output":")" + out + R"("})"}}));
    ASSERT_TRUE(session);
    dir = session->profiling_dir();
    ASSERT_TRUE(session->run({demo_image(1)}).ok());
  }  // the destructor finishes the collection
  EXPECT_TRUE(fs::exists(dir + "/mindstudio_profiler_output/report.html"));
  EXPECT_TRUE(fs::exists(dir + "/device_0/end_info.0"));
}

TEST(SessionProfiling, PROF_11_MsproftxMarkersOfTheSessionApi) {
  const std::string out = scratch_dir("session_tx");
  auto session =
      open_demo(option_set({{"profiling_config.enable_profiling", "True"},
                            {"profiling_config.profiling_options", R"({"output":")" + out + R"(","msproftx":"on"})"}}));
  ASSERT_TRUE(session);
  session->range_push("preprocess");
  session->mark("inputs ready");
  ASSERT_TRUE(session->range_pop().ok());
  EXPECT_FALSE(session->range_pop().ok());  // nothing pushed any more
  ASSERT_TRUE(session->run({demo_image(1)}).ok());
  ASSERT_TRUE(session->finish_profiling().ok());
  const auto names = event_names(session->profiling_dir() + "/mindstudio_profiler_output/msprof_0_1_1.json");
  EXPECT_TRUE(names.count("preprocess"));
  EXPECT_TRUE(names.count("inputs ready"));
}

TEST(SessionProfiling, WithoutProfilingNothingIsCollected) {
  auto session = open_demo(nullptr);
  ASSERT_TRUE(session);
  EXPECT_EQ(session->profiling_dir(), "");
  session->range_push("ignored");
  EXPECT_TRUE(session->range_pop().ok());
  EXPECT_TRUE(session->finish_profiling().ok());
  EXPECT_TRUE(session->run({demo_image(1)}).ok());
}

TEST(SessionProfiling, ENV_13_MissingOutputFolderFailsOpenAndCreatesNothing) {
  const std::string out = scratch_dir("session_bad");
  // Validated options whose output folder disappeared before the session opened.
  const std::string gone = out + "/gone";
  fs::create_directories(gone);
  auto config = option_set({{"profiling_config.enable_profiling", "True"},
                            {"profiling_config.profiling_options", R"({"output":")" + gone + R"("})"}});
  fs::remove(gone);
  SessionOptions so;
  so.config = config;
  auto s = Session::open(kDemo, so);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(gone), std::string::npos) << s.status().message();
  EXPECT_TRUE(fs::is_empty(out));
}

TEST(SessionProfiling, BadModelLeavesNoCollectionFolder) {
  const std::string out = scratch_dir("session_badmodel");
  SessionOptions so;
  so.config = option_set({{"profiling_config.enable_profiling", "True"},
                          {"profiling_config.profiling_options", R"({"output":")" + out + R"("})"}});
  auto s = Session::open(out + "/missing.onnx", so);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(fs::is_empty(out));
}

}  // namespace
}  // namespace openge::profiling
