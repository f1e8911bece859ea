// The profiling chains of the msprof, acl.json and PyTorch routes: each tier wins over the ones
// below it, and the last one applies when nothing above is set.
#include <gtest/gtest.h>

#include "openge/profiling_chains.h"

namespace openge::profiling {
namespace {

const std::string kCwd = "/run/here";
const std::string kWorkPath = "/work_path";
const options::EnvMap kWork = {{"ASCEND_WORK_PATH", kWorkPath}};
const std::string kWorkProfiling = kWorkPath + "/profiling_data";

TEST(ProfilingChains, ENV_10_MsprofOutputWinsOverWorkPathAndModelFolder) {
  const auto c = msprof_output_folder("prof", kWork, "/models/resnet.onnx", "/usr/bin/openge", kCwd);
  EXPECT_EQ(c.path, "/run/here/prof");
  EXPECT_NE(c.rule.find("--output"), std::string::npos) << c.rule;
}

TEST(ProfilingChains, ENV_10_WorkPathWinsOverModelFolder) {
  const auto c = msprof_output_folder("", kWork, "/models/resnet.onnx", "/usr/bin/openge", kCwd);
  EXPECT_EQ(c.path, kWorkProfiling);
  EXPECT_EQ(c.rule.rfind("ASCEND_WORK_PATH", 0), 0u) << c.rule;
}

TEST(ProfilingChains, ENV_10_DefaultIsTheModelFilesFolder) {
  EXPECT_EQ(msprof_output_folder("", {}, "models/resnet.onnx", "/usr/bin/openge", kCwd).path, "/run/here/models");
  // A line that names no model: the application's own folder.
  EXPECT_EQ(msprof_output_folder("", {}, "", "/apps/infer.py", kCwd).path, "/apps");
  EXPECT_EQ(msprof_output_folder("", {{"ASCEND_WORK_PATH", ""}}, "", "", kCwd).path, kCwd);
}

TEST(ProfilingChains, ENV_11_AclJsonOutputWinsOverWorkPathAndExecutableFolder) {
  const auto c = acl_json_output_folder("/out/prof", kWork, "/opt/app/bin", kCwd);
  EXPECT_EQ(c.path, "/out/prof");
  EXPECT_NE(c.rule.find("acl.json"), std::string::npos) << c.rule;
}

TEST(ProfilingChains, ENV_11_WorkPathWinsOverExecutableFolder) {
  EXPECT_EQ(acl_json_output_folder("", kWork, "/opt/app/bin", kCwd).path, kWorkProfiling);
}

TEST(ProfilingChains, ENV_11_DefaultIsTheExecutablesFolder) {
  const auto c = acl_json_output_folder("", {}, "/opt/app/bin", kCwd);
  EXPECT_EQ(c.path, "/opt/app/bin");
  EXPECT_NE(c.rule.find("executable"), std::string::npos) << c.rule;
}

TEST(ProfilingChains, ENV_14_TraceHandlerFolderWinsOverWorkPath) {
  EXPECT_EQ(trace_handler_folder("./log/resnet", kWork, kCwd).path, "/run/here/log/resnet");
}

TEST(ProfilingChains, ENV_14_WorkPathWhenTheHandlerHasNoFolder) {
  EXPECT_EQ(trace_handler_folder("", kWork, kCwd).path, kWorkProfiling);
}

TEST(ProfilingChains, ENV_14_DefaultIsTheWorkingFolder) { EXPECT_EQ(trace_handler_folder("", {}, kCwd).path, kCwd); }

}  // namespace
}  // namespace openge::profiling
