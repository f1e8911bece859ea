// The application log (ENV-5/6, docs/FORMATS.md, "Logs: plog and atrace") and the error trace (ENV-7/8): where the
// files go under each tier of their chains, CANN's line format, the levels, printing to stdout,
// rotation, and that a folder that cannot be written never fails a run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "logging/log.h"
#include "runtime/demo_run_util.h"

namespace openge::logging::test {
namespace {
namespace fs = std::filesystem;
using options::EnvMap;
using options::test::TempDir;

using openge::test::options_from;

// CANN's line, from its log reference: [Level] Module(PID,PName):yyyy-mm-dd-hh:mm:ss.fff.zzz [file:line]text
const std::regex kCannLine(
    R"(^\[(ERROR|WARNING|INFO|DEBUG)\] [A-Z]+\(\d+,[^)]+\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[[^\]:]+:\d+\].*$)");

Status run_demo(const EnvMap& env, const std::string& cwd, bool bad_input = false) {
  return openge::test::run_demo_with(env, cwd, bad_input);
}

std::vector<fs::path> files_under(const std::string& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().starts_with(prefix)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool any_line_has(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

// Each test starts and ends with an unconfigured logger: its folders disappear with it.
class Logs : public ::testing::Test {
 protected:
  void SetUp() override { unconfigure(); }
  void TearDown() override { unconfigure(); }
  TempDir d;
};

// The plog file of a run at info level lands in `expected_root`/debug/plog and nowhere else in d.
void expect_log_in(const TempDir& d, const EnvMap& env, const std::string& expected_root) {
  ASSERT_TRUE(run_demo(env, d.path()).ok());
  const auto logs = files_under(expected_root + "/debug/plog", "plog-");
  ASSERT_EQ(logs.size(), 1u) << expected_root;
  EXPECT_TRUE(std::regex_match(logs[0].filename().string(),
                               std::regex("plog-" + std::to_string(::getpid()) + R"(_\d{17}\.log)")))
      << logs[0];
  EXPECT_EQ(files_under(d.path(), "plog-").size(), 1u) << "a second log file was written elsewhere";
  const auto lines = lines_of(logs[0]);
  ASSERT_FALSE(lines.empty());
  for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, kCannLine)) << l;
  EXPECT_TRUE(any_line_has(lines, "compiled:")) << "the compile summary (info) is missing";
  EXPECT_TRUE(any_line_has(lines, "[compiler/compile_log.cpp:")) << "records name their source file from src/";
}

TEST_F(Logs, ENV_6_ProcessLogPathIsTheFirstTier) {
  expect_log_in(d,
                {{"HOME", d.dir("home")},
                 {"ASCEND_WORK_PATH", d.path() + "/ascend_work"},
                 {"ASCEND_PROCESS_LOG_PATH", d.path() + "/plogs"},
                 {"ASCEND_GLOBAL_LOG_LEVEL", "1"}},
                d.path() + "/plogs");
}

TEST_F(Logs, ENV_5_WorkPathLogIsTheSecondTier) {
  expect_log_in(
      d, {{"HOME", d.dir("home")}, {"ASCEND_WORK_PATH", d.path() + "/ascend_work"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}},
      d.path() + "/ascend_work/log");
}

TEST_F(Logs, ENV_6_HomeAscendLogIsTheDefault) {
  expect_log_in(d, {{"HOME", d.path() + "/home"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}}, d.path() + "/home/ascend/log");
}

TEST_F(Logs, AMB_30_WithoutHomeTheWorkingDirectory) {
  expect_log_in(d, {{"ASCEND_GLOBAL_LOG_LEVEL", "1"}}, d.path() + "/ascend/log");
}

// One record at each level, written with ASCEND_GLOBAL_LOG_LEVEL=level: the file holds exactly
// the records at that level and above (0 debug, 1 info, 2 warning, 3 error, 4 none).
std::vector<std::string> levels_written(const TempDir& d, int level) {
  unconfigure();
  const std::string root = d.path() + "/level" + std::to_string(level);
  auto config =
      options_from({{"ASCEND_PROCESS_LOG_PATH", root}, {"ASCEND_GLOBAL_LOG_LEVEL", std::to_string(level)}}, d.path());
  configure(*config);
  OPENGE_LOG_DEBUG("GE", "record debug");
  OPENGE_LOG_INFO("GE", "record info");
  OPENGE_LOG_WARNING("GE", "record warning");
  OPENGE_LOG_ERROR("GE", "record error");
  std::vector<std::string> seen;
  for (const auto& f : files_under(root, "plog-"))
    for (const auto& l : lines_of(f)) {
      EXPECT_TRUE(std::regex_match(l, kCannLine)) << l;
      seen.push_back(l.substr(1, l.find(']') - 1) + ":" + l.substr(l.rfind(' ') + 1));
    }
  return seen;
}

TEST_F(Logs, ENV_6_Level0WritesDebugAndAbove) {
  EXPECT_EQ(levels_written(d, 0),
            (std::vector<std::string>{"DEBUG:debug", "INFO:info", "WARNING:warning", "ERROR:error"}));
}
TEST_F(Logs, ENV_6_Level1WritesInfoAndAbove) {
  EXPECT_EQ(levels_written(d, 1), (std::vector<std::string>{"INFO:info", "WARNING:warning", "ERROR:error"}));
}
TEST_F(Logs, ENV_6_Level2WritesWarningsAndErrors) {
  EXPECT_EQ(levels_written(d, 2), (std::vector<std::string>{"WARNING:warning", "ERROR:error"}));
}
TEST_F(Logs, ENV_6_Level3WritesErrorsOnly) {
  EXPECT_EQ(levels_written(d, 3), (std::vector<std::string>{"ERROR:error"}));
}
TEST_F(Logs, ENV_6_Level4WritesNothing) {
  EXPECT_TRUE(levels_written(d, 4).empty());
  EXPECT_FALSE(fs::exists(d.path() + "/level4")) << "no folder either";
}

TEST_F(Logs, ENV_6_DefaultLevelIsErrorAndAHealthyRunLeavesNoFile) {
  ASSERT_TRUE(run_demo({{"HOME", d.path() + "/home"}}, d.path()).ok());
  EXPECT_FALSE(fs::exists(d.path() + "/home/ascend")) << "nothing to log at level 3: no log, no trace";
}

TEST_F(Logs, ENV_6_LevelAndStdoutAreValidatedLikeEveryOption) {
  for (const char* bad : {"5", "-1", "info", "1.5"})
    EXPECT_TRUE(options::test::has_error(options::test::build({}, {{"ASCEND_GLOBAL_LOG_LEVEL", bad}}),
                                         "ASCEND_GLOBAL_LOG_LEVEL"))
        << bad;
  for (const char* bad : {"2", "yes", "-1"})
    EXPECT_TRUE(options::test::has_error(options::test::build({}, {{"ASCEND_SLOG_PRINT_TO_STDOUT", bad}}),
                                         "ASCEND_SLOG_PRINT_TO_STDOUT"))
        << bad;
  EXPECT_EQ(options::test::value_of(options::test::build({}), "ASCEND_GLOBAL_LOG_LEVEL"), "3");
  EXPECT_EQ(options::test::value_of(options::test::build({}), "ASCEND_SLOG_PRINT_TO_STDOUT"), "0");
}

TEST_F(Logs, ENV_6_PrintToStdoutInsteadOfFiles) {
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(
      run_demo({{"HOME", d.path() + "/home"}, {"ASCEND_SLOG_PRINT_TO_STDOUT", "1"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}},
               d.path())
          .ok());
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("compiled:"), std::string::npos) << out;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) EXPECT_TRUE(std::regex_match(l, kCannLine)) << l;
  EXPECT_TRUE(files_under(d.path(), "plog-").empty()) << "stdout replaces the file";
}

TEST_F(Logs, ENV_6_PrecisionWarningsLandInTheLog) {
  const std::string dtypes = d.file("dtypes.cfg", "OpType::Relu:InputDtype:float32,OutputDtype:float32\n");
  options::test::Flags flags = {{"precision_mode", "must_keep_origin_dtype"}, {"customize_dtypes", dtypes}};
  ASSERT_TRUE(openge::test::run_demo_with(
                  options_from({{"ASCEND_PROCESS_LOG_PATH", d.path() + "/plogs"}, {"ASCEND_GLOBAL_LOG_LEVEL", "2"}},
                               d.path(), flags))
                  .ok());
  const auto logs = files_under(d.path() + "/plogs", "plog-");
  ASSERT_EQ(logs.size(), 1u);
  const auto lines = lines_of(logs[0]);
  EXPECT_TRUE(any_line_has(lines, "[WARNING] FE(")) << "the warning is logged at WARNING by FE";
  EXPECT_TRUE(any_line_has(lines, "customize_dtypes is ignored under")) << lines.size();
  EXPECT_FALSE(any_line_has(lines, "[INFO]")) << "level 2 keeps info out";
}

TEST_F(Logs, ENV_6_EveryErrorLandsInTheLog) {
  const Status st = run_demo({{"ASCEND_PROCESS_LOG_PATH", d.path() + "/plogs"}}, d.path(), /*bad_input=*/true);
  ASSERT_FALSE(st.ok());
  const auto logs = files_under(d.path() + "/plogs", "plog-");
  ASSERT_EQ(logs.size(), 1u);
  const auto lines = lines_of(logs[0]);
  ASSERT_EQ(lines.size(), 1u) << "level 3: the error only";
  EXPECT_TRUE(lines[0].starts_with("[ERROR] GE(")) << lines[0];
  EXPECT_NE(lines[0].find(st.message()), std::string::npos) << lines[0] << "\nvs " << st.message();
}

TEST_F(Logs, ENV_6_AnUnwritableLogFolderNeverFailsTheRunAndIsSaidOnce) {
  const std::string file = d.file("not_a_folder", "x");
  ::testing::internal::CaptureStderr();
  const Status st1 = run_demo({{"ASCEND_PROCESS_LOG_PATH", file + "/log"}, {"ASCEND_GLOBAL_LOG_LEVEL", "0"}}, d.path());
  const Status st2 = run_demo({{"ASCEND_PROCESS_LOG_PATH", file + "/log"}, {"ASCEND_GLOBAL_LOG_LEVEL", "0"}}, d.path());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(st1.ok()) << st1.message();
  EXPECT_TRUE(st2.ok()) << st2.message();
  const auto first = err.find("cannot write the log");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("cannot write the log", first + 1), std::string::npos) << "said more than once:\n" << err;
  EXPECT_NE(err.find(file), std::string::npos) << "the message names the folder: " << err;
}

// A full disk: a 16 KiB tmpfs as the log folder (needs the right to mount; skipped without it).
TEST_F(Logs, ENV_6_AFullDiskNeverFailsTheRunAndIsSaidOnce) {
  const std::string mnt = d.dir("full");
  if (std::system(("mount -t tmpfs -o size=16k tmpfs " + mnt + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (not root, or no CAP_SYS_ADMIN)";
  auto config = options_from({{"ASCEND_PROCESS_LOG_PATH", mnt}, {"ASCEND_GLOBAL_LOG_LEVEL", "0"}}, d.path());
  configure(*config);
  ::testing::internal::CaptureStderr();
  const std::string text(500, 'x');
  for (int i = 0; i < 200; ++i) OPENGE_LOG_INFO("GE", text);  // ~110 KB into 16 KiB
  const Status st = run_demo({{"ASCEND_PROCESS_LOG_PATH", mnt}, {"ASCEND_GLOBAL_LOG_LEVEL", "0"}}, d.path());
  const std::string err = ::testing::internal::GetCapturedStderr();
  unconfigure();
  EXPECT_EQ(std::system(("umount " + mnt).c_str()), 0);
  EXPECT_TRUE(st.ok()) << st.message();
  const auto first = err.find("cannot write the log");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("cannot write the log", first + 1), std::string::npos) << "said more than once:\n" << err;
}

TEST_F(Logs, ENV_6_FilesRotateAtTheSizeCap) {
  auto config =
      options_from({{"ASCEND_PROCESS_LOG_PATH", d.path() + "/plogs"}, {"ASCEND_GLOBAL_LOG_LEVEL", "0"}}, d.path());
  Limits limits;
  limits.max_file_bytes = 4096;
  limits.max_files = 2;
  configure(*config, limits);
  const std::string text(200, 'x');
  for (int i = 0; i < 200; ++i) OPENGE_LOG_INFO("GE", text);  // ~55 KB in all
  const auto logs = files_under(d.path() + "/plogs", "plog-");
  ASSERT_EQ(logs.size(), 3u) << "the current file and two rotated ones";
  for (const auto& f : logs) EXPECT_LE(fs::file_size(f), 4096u) << f;
}

TEST_F(Logs, ENV_8_AtraceIsWrittenOnlyOnAnErrorUnderTheWorkPath) {
  const EnvMap env = {{"HOME", d.path() + "/home"}, {"ASCEND_WORK_PATH", d.path() + "/ascend_work"}};
  ASSERT_TRUE(run_demo(env, d.path()).ok());
  EXPECT_FALSE(fs::exists(d.path() + "/ascend_work/atrace")) << "a healthy run writes no trace";
  ASSERT_FALSE(run_demo(env, d.path(), /*bad_input=*/true).ok());
  const auto traces = files_under(d.path() + "/ascend_work/atrace", "atrace-");
  ASSERT_EQ(traces.size(), 1u);
  const auto lines = lines_of(traces[0]);
  for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, kCannLine)) << l;
  // The ring keeps records below the file's level (3): the compile summary of the healthy run is there.
  EXPECT_TRUE(any_line_has(lines, "[INFO] GE(")) << "the ring keeps every level";
  EXPECT_TRUE(any_line_has(lines, "[DEBUG] GE(")) << "the ring keeps every level";
  EXPECT_TRUE(any_line_has(lines, "compile stage Build done")) << "the compile stages are engine events";
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(lines.back().starts_with("[ERROR]")) << "the error that flushed it is the last event";
  EXPECT_FALSE(fs::exists(d.path() + "/home/ascend")) << "the work path outranks $HOME";
}

TEST_F(Logs, ENV_8_AtraceDefaultsToHomeAscendAtrace) {
  ASSERT_FALSE(run_demo({{"HOME", d.path() + "/home"}}, d.path(), /*bad_input=*/true).ok());
  EXPECT_EQ(files_under(d.path() + "/home/ascend/atrace", "atrace-").size(), 1u);
}

TEST_F(Logs, ENV_8_AnUnwritableTraceFolderIsSaidOnceAndTheErrorStaysTheRunsOwn) {
  const std::string file = d.file("not_a_folder", "x");
  ::testing::internal::CaptureStderr();
  const Status st1 = run_demo({{"ASCEND_WORK_PATH", file}}, d.path(), /*bad_input=*/true);
  const Status st2 = run_demo({{"ASCEND_WORK_PATH", file}}, d.path(), /*bad_input=*/true);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(st1.ok());
  EXPECT_EQ(st1.message().find("trace"), std::string::npos)
      << "the run's own error, not the trace's: " << st1.message();
  EXPECT_EQ(st1.message(), st2.message());
  const auto first = err.find("cannot write the trace log");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("cannot write the trace log", first + 1), std::string::npos) << "said more than once:\n" << err;
  EXPECT_NE(err.find(file), std::string::npos) << err;
}

TEST_F(Logs, ENV_7_TheRingKeepsTheLastEvents) {
  auto config =
      options_from({{"ASCEND_WORK_PATH", d.path() + "/ascend_work"}, {"ASCEND_GLOBAL_LOG_LEVEL", "4"}}, d.path());
  Limits limits;
  limits.trace_events = 5;
  configure(*config, limits);
  for (int i = 0; i < 10; ++i) OPENGE_LOG_DEBUG("GE", "event " + std::to_string(i));
  OPENGE_LOG_ERROR("GE", "the failure");
  const auto traces = files_under(d.path() + "/ascend_work/atrace", "atrace-");
  ASSERT_EQ(traces.size(), 1u);
  const auto lines = lines_of(traces[0]);
  ASSERT_EQ(lines.size(), 5u);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(lines[static_cast<size_t>(i)].ends_with("event " + std::to_string(6 + i))) << lines[i];
  EXPECT_TRUE(lines[4].ends_with("the failure"));
  EXPECT_TRUE(files_under(d.path(), "plog-").empty()) << "level 4 writes no log file, the trace still goes";
}

}  // namespace
}  // namespace openge::logging::test
