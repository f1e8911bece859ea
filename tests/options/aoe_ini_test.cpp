// aoe.ini (ENV-4, MISC-20, options/aoe_ini.h): read from ASCEND_TOOLKIT_HOME/tools/aoe/conf/aoe.ini.
// Its WORK_PATH is the AOE folder below aoe_config.work_path and ASCEND_WORK_PATH (ENV-3, AMB-21),
// above the working directory; RUN_LOOP sets the timed runs of AOE's measurements; a malformed file
// is one error naming its line. Real files in a temporary CANN-like folder.
#include <gtest/gtest.h>

#include "aoe/tuned_selection.h"
#include "options/aoe_ini.h"
#include "options/options_test_util.h"
#include "paths/artifact_paths.h"

namespace openge::options {
namespace {

using test::build;
using test::Flags;
using test::TempDir;

const std::string kCwd = "/run/here";

// A toolkit folder ($ASCEND_TOOLKIT_HOME) whose aoe.ini holds `content`.
std::string toolkit_with(const TempDir& d, const std::string& content) {
  d.file("latest/tools/aoe/conf/aoe.ini", content);
  return d.path() + "/latest";
}

BuildReport build_checked(const Flags& flags, const EnvMap& env) { return build(flags, env, {}, true, kCwd); }

paths::ResolvedPath aoe_folder(const Flags& flags, const EnvMap& env) {
  auto r = build_checked(flags, env);
  EXPECT_TRUE(r.errors.empty()) << test::dump_errors(r);
  return paths::resolve_artifact(paths::ArtifactKind::kAoeData, *r.options, paths::RunIds::current());
}

TEST(AoeIni, ENV_4_WorkPathOfAoeIniIsTheAoeFolderBelowTheOptionAndTheWorkPath) {
  TempDir d;
  const EnvMap toolkit = {{"ASCEND_TOOLKIT_HOME", toolkit_with(d, "[AOE]\nWORK_PATH = /data/aoe_ini_work\n")}};
  // aoe.ini alone decides.
  auto r = aoe_folder({}, toolkit);
  EXPECT_EQ(r.path, "/data/aoe_ini_work");
  EXPECT_EQ(r.rule.rfind("aoe.ini WORK_PATH", 0), 0u) << r.rule;
  // ASCEND_WORK_PATH outranks it (ENV-3: ASCEND_WORK_PATH > the AOE default tuning work directory).
  EnvMap env = toolkit;
  env["ASCEND_WORK_PATH"] = "/data/ascend_work";
  EXPECT_EQ(aoe_folder({}, env).path, "/data/ascend_work/aoe_data");
  // aoe_config.work_path outranks both (AMB-21).
  EXPECT_EQ(aoe_folder({{"aoe_config.work_path", d.path()}}, env).path, d.path());
  EXPECT_EQ(aoe_folder({{"aoe_config.work_path", d.path()}}, toolkit).path, d.path());
}

TEST(AoeIni, ENV_4_WithoutAoeIniOrItsWorkPathTheWorkingDirectory) {
  TempDir d;
  // ASCEND_TOOLKIT_HOME unset, or set with no aoe.ini there.
  EXPECT_EQ(aoe_folder({}, {}).path, kCwd);
  EXPECT_EQ(aoe_folder({}, {{"ASCEND_TOOLKIT_HOME", d.path()}}).path, kCwd);
  // An aoe.ini without WORK_PATH, or with it empty.
  TempDir e;
  EXPECT_EQ(aoe_folder({}, {{"ASCEND_TOOLKIT_HOME", toolkit_with(e, "RUN_LOOP=3\nWORK_PATH=\n")}}).path, kCwd);
  // A relative WORK_PATH is the working directory's.
  TempDir f;
  EXPECT_EQ(aoe_folder({}, {{"ASCEND_TOOLKIT_HOME", toolkit_with(f, "WORK_PATH=tuning\n")}}).path, kCwd + "/tuning");
}

TEST(AoeIni, MISC_20_CannsKeysCommentsAndSectionsAreRead) {
  auto ini = parse_aoe_ini(
      "# AOE\n[AOE]\n; comment\nWORK_PATH=./w\nTUNING_PARALLEL_NUM = 64\nRUN_LOOP=2048\nNEW_KEY=1\n", "aoe.ini");
  ASSERT_TRUE(ini.ok()) << ini.status().message();
  EXPECT_EQ(ini->work_path, "./w");
  EXPECT_EQ(ini->tuning_parallel_num, 64);
  EXPECT_EQ(ini->run_loop, 2048);
  ASSERT_EQ(ini->ignored_keys.size(), 1u);
  EXPECT_EQ(ini->ignored_keys[0], "aoe.ini:7: NEW_KEY");
}

// Each malformed file is one error that names the file, the line and what is wrong, and the
// options are refused (the CLI exits 1 on any option error).
TEST(AoeIni, MISC_20_AMalformedAoeIniIsOneErrorNamingItsLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"WORK_PATH=/w\nRUN_LOOP\n", ":2: expected KEY=value, got 'RUN_LOOP'"},
      {"RUN_LOOP=0\n", ":1: RUN_LOOP is '0'; it must be an integer in [1, 2048] (default 10)"},
      {"RUN_LOOP=2049\n", ":1: RUN_LOOP is '2049'"},
      {"TUNING_PARALLEL_NUM=65\n", ":1: TUNING_PARALLEL_NUM is '65'; it must be an integer in [1, 64] (default 8)"},
      {"TUNING_PARALLEL_NUM=eight\n", ":1: TUNING_PARALLEL_NUM is 'eight'"},
      {"WORK_PATH=/a\n\nWORK_PATH=/b\n", ":3: WORK_PATH is given twice"},
      {"[AOE\n", ":1: a section header must end with ']'"},
      {"=3\n", ":1: expected KEY=value"},
  };
  for (const auto& [content, message] : cases) {
    TempDir d;
    const std::string toolkit = toolkit_with(d, content);
    auto r = build_checked({}, {{"ASCEND_TOOLKIT_HOME", toolkit}});
    ASSERT_EQ(r.errors.size(), 1u) << content << test::dump_errors(r);
    EXPECT_EQ(r.errors[0].parameter, "ASCEND_TOOLKIT_HOME");
    EXPECT_NE(r.errors[0].reason.find(toolkit + "/tools/aoe/conf/aoe.ini" + message), std::string::npos)
        << r.errors[0].reason;
    EXPECT_FALSE(r.options) << "malformed aoe.ini must refuse the options";
  }
}

TEST(AoeIni, MISC_20_UnknownKeysAreAWarning) {
  TempDir d;
  auto r = build_checked({}, {{"ASCEND_TOOLKIT_HOME", toolkit_with(d, "TUNE_MODE=1\n")}});
  EXPECT_TRUE(r.errors.empty()) << test::dump_errors(r);
  EXPECT_TRUE(test::has_warning(r, "aoe.ini:1: TUNE_MODE: not a key of aoe.ini OpenGE reads"));
}

// RUN_LOOP is how many timed runs each AOE measurement takes (default 10; O1 doubles it).
TEST(AoeIni, MISC_20_RunLoopSetsTheTimedRunsOfEachMeasurement) {
  TempDir d;
  auto r = build_checked({{"aoe_config.aoe_mode", "2"}}, {{"ASCEND_TOOLKIT_HOME", toolkit_with(d, "RUN_LOOP=3\n")}});
  ASSERT_TRUE(r.options) << test::dump_errors(r);
  auto s = aoe::read_tuning_settings(&*r.options, 0);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->repetitions, 3);
  // Without aoe.ini: the default.
  auto plain = build_checked({{"aoe_config.aoe_mode", "2"}}, {});
  ASSERT_TRUE(plain.options);
  EXPECT_EQ(aoe::read_tuning_settings(&*plain.options, 0)->repetitions, 10);
  // O1 doubles RUN_LOOP.
  const std::string cfg = d.file("tuning.json", R"({"tune_optimization_level": "O1"})");
  auto o1 = build_checked({{"aoe_config.aoe_mode", "2"}, {"aoe_config.aoe_config_file", cfg}},
                          {{"ASCEND_TOOLKIT_HOME", d.path() + "/latest"}});
  ASSERT_TRUE(o1.options) << test::dump_errors(o1);
  EXPECT_EQ(aoe::read_tuning_settings(&*o1.options, 0)->repetitions, 6);
}

}  // namespace
}  // namespace openge::options
