// acl.json as aclInit reads it: the profiler section profiles the sessions opened afterwards into
// "output" > ASCEND_WORK_PATH/profiling_data > the executable's folder (ENV-11), the dump section
// dumps, and a malformed file is one error naming the file and key.
#include <gtest/gtest.h>

#include <filesystem>

#include "../options/options_test_util.h"
#include "../threads/relu_model.h"
#include "openge/acl_json.h"
#include "openge/session.h"

namespace openge {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

struct App {
  TempDir dir;
  std::string exe_dir = dir.dir("bin"), work = dir.path() + "/work", out = dir.dir("prof_out");
  options::EnvMap env(bool with_work_path) const {
    options::EnvMap e;
    if (with_work_path) e["ASCEND_WORK_PATH"] = work;
    return e;
  }
};

// Opens a session with acl.json's settings, runs it twice and returns its PROF_ folder.
std::string profile_with(const std::string& acl_json, const options::EnvMap& env, const std::string& exe_dir,
                         const std::string& cwd) {
  auto settings = read_acl_json(acl_json, env, exe_dir, cwd);
  EXPECT_TRUE(settings.ok()) << settings.status().message();
  if (!settings.ok()) return "";
  options::OptionInputs in;
  in.flags = settings->assignments;
  in.env = env;
  in.cwd = cwd;
  auto config = options::build_session_config(in);
  EXPECT_TRUE(config.ok()) << config.status().message();
  if (!config.ok()) return "";
  SessionOptions so;
  so.config = *config;
  const std::string bytes = testing::relu_model_bytes();
  auto s = Session::open_from_memory(bytes.data(), bytes.size(), so, "relu.onnx");
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return "";
  for (int i = 0; i < 2; ++i) EXPECT_TRUE((*s)->run({testing::ramp(2, 3)}).ok());
  EXPECT_TRUE((*s)->finish_profiling().ok());
  return (*s)->profiling_dir();
}

TEST(AclJson, ENV_11_ProfilerOutputWinsOverWorkPath) {
  App a;
  const auto file = a.dir.file(
      "acl.json", R"({"profiler": {"switch": "on", "output": ")" + a.out + R"(", "task_time": "on", "aicpu": "on"}})");
  const std::string prof = profile_with(file, a.env(true), a.exe_dir, a.dir.path());
  ASSERT_FALSE(prof.empty());
  EXPECT_EQ(fs::path(prof).parent_path(), fs::path(a.out));
  EXPECT_FALSE(fs::exists(fs::path(a.work) / "profiling_data"));
}

TEST(AclJson, ENV_11_WorkPathWhenOutputIsAbsent) {
  App a;
  const auto file = a.dir.file("acl.json", R"({"profiler": {"switch": "on"}})");
  const std::string prof = profile_with(file, a.env(true), a.exe_dir, a.dir.path());
  ASSERT_FALSE(prof.empty());
  EXPECT_EQ(fs::path(prof).parent_path(), fs::path(a.work) / "profiling_data");
}

TEST(AclJson, ENV_11_DefaultIsTheExecutablesFolder) {
  App a;
  const auto file = a.dir.file("acl.json", R"({"profiler": {"switch": "on"}})");
  const std::string prof = profile_with(file, a.env(false), a.exe_dir, a.dir.path());
  ASSERT_FALSE(prof.empty());
  EXPECT_EQ(fs::path(prof).parent_path(), fs::path(a.exe_dir));
}

TEST(AclJson, ProfilerSwitchedOffProfilesNothing) {
  App a;
  const auto file = a.dir.file("acl.json", R"({"profiler": {"switch": "off", "output": "x"}})");
  auto settings = read_acl_json(file, {}, a.exe_dir, a.dir.path());
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  EXPECT_TRUE(settings->assignments.empty());
  EXPECT_TRUE(settings->profiling_folder.empty());
}

TEST(AclJson, DumpSectionDumpsTheListedLayers) {
  App a;
  const std::string dumps = a.dir.dir("dumps");
  const auto file = a.dir.file(
      "acl.json", R"({"dump": {"dump_path": ")" + dumps +
                      R"(", "dump_mode": "all", "dump_list": [{"model_name": "relu", "layer": ["relu1"]}]}})");
  auto settings = read_acl_json(file, {}, a.exe_dir, a.dir.path());
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  // The layers apply to every model: the model_name is not matched, and a note says so.
  ASSERT_EQ(settings->notes.size(), 1u);
  EXPECT_NE(settings->notes[0].find("relu"), std::string::npos) << settings->notes[0];
  EXPECT_NE(settings->notes[0].find("every model"), std::string::npos) << settings->notes[0];
  options::OptionInputs in;
  in.flags = settings->assignments;
  in.cwd = a.dir.path();
  auto config = options::build_session_config(in);
  ASSERT_TRUE(config.ok()) << config.status().message();
  SessionOptions so;
  so.config = *config;
  const std::string bytes = testing::relu_model_bytes();
  auto s = Session::open_from_memory(bytes.data(), bytes.size(), so, "relu.onnx");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE((*s)->run({testing::ramp(2, 3)}).ok());
  ASSERT_TRUE((*s)->flush_dump().ok());
  int files = 0;
  for (const auto& f : fs::recursive_directory_iterator(dumps))
    if (f.is_regular_file() && f.path().filename().string().find("relu1") != std::string::npos) ++files;
  EXPECT_EQ(files, 1);
}

TEST(AclJson, MalformedFilesAreOneErrorNamingFileAndKey) {
  App a;
  const struct {
    const char* text;
    const char* expected;
  } cases[] = {
      {R"({"profiler": {"switch": "on",}})", "not valid JSON"},
      {R"({"profiler": {"swtich": "on"}})", "did you mean 'switch'"},
      {R"({"profilr": {}})", "did you mean 'profiler'"},
      {R"({"profiler": {"switch": "yes"}})", "profiler.switch"},
      {R"({"dump": {"dump_list": "relu1"}})", "dump.dump_list"},
      {R"([1, 2])", "JSON object"},
  };
  for (const auto& c : cases) {
    const auto file = a.dir.file("bad.json", c.text);
    auto r = read_acl_json(file, {}, a.exe_dir, a.dir.path());
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.expected), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("bad.json"), std::string::npos) << r.status().message();
  }
}

TEST(AclJson, AclInitPutsTheSettingsBelowTheApplicationsOwn) {
  App a;
  const auto file = a.dir.file("acl.json", R"({"dump": {"dump_path": "/tmp", "dump_mode": "input"}})");
  options::OptionInputs in;
  in.flags.push_back({"dump_config.dump_mode", "all", "api"});
  auto notes = acl_init(file, in);
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  auto config = options::build_configuration(in);
  ASSERT_TRUE(config.errors.empty()) << options::format_problems(config.errors);
  EXPECT_EQ(options::option_setting(*config.options, "dump_config.dump_mode")->value, "all");
  EXPECT_EQ(options::option_setting(*config.options, "dump_config.enable_dump")->value, "True");
}

}  // namespace
}  // namespace openge
