// Every artifact kind under ASCEND_WORK_PATH makes its own subfolder when it is written: the
// user sets the work path, never the subfolders (ENV-1). A folder that cannot be made or written
// is one error naming the artifact and its folder.
#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/demo_run_util.h"

namespace openge::paths::test {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

Result<std::unique_ptr<Session>> open_profiled(const TempDir& d, const std::string& work) {
  SessionOptions so;
  so.config = openge::test::options_from(
      {{"ASCEND_WORK_PATH", work}, {"HOME", d.path() + "/home"}}, d.path(),
      {{"profiling_config.enable_profiling", "True"},
       {"profiling_config.profiling_options", R"({"task_trace":"on","training_trace":"on"})"}});
  if (!so.config) return invalid_argument("bad options");
  so.num_threads = 1;
  return Session::open(openge::test::kDemoModel, so);
}

TEST(WorkPathFolders, ENV_9_ProfilingDataIsCreatedUnderTheWorkPath) {
  TempDir d;
  auto session =
      open_profiled(d, d.path() + "/ascend_work");  // neither ascend_work nor ascend_work/profiling_data exists
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::string dir = (*session)->profiling_dir();
  EXPECT_EQ(fs::path(dir).parent_path(), fs::path(d.path() + "/ascend_work/profiling_data"));
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE((*session)->finish_profiling().ok());
}

TEST(WorkPathFolders, ENV_9_AWorkPathThatCannotHoldFoldersIsOneClearError) {
  TempDir d;
  const std::string file = d.file("work", "a file, not a folder");
  auto session = open_profiled(d, file);
  ASSERT_FALSE(session.ok());
  const std::string& m = session.status().message();
  EXPECT_NE(m.find("profiling_data"), std::string::npos) << m;
  EXPECT_NE(m.find(file), std::string::npos) << m;
  EXPECT_NE(m.find("ASCEND_WORK_PATH"), std::string::npos) << "names the rule that chose the folder: " << m;
}

}  // namespace
}  // namespace openge::paths::test
