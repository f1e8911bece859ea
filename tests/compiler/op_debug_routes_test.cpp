// op_debug_level 2-4 and each op_debug_config route, through a real online compile of one fused
// kernel: which files kernel_meta keeps (page 002's list per level and per route), the flags the
// system compiler got (recorded in the kernel's .json) and what they did to the binary (-g leaves
// DWARF sections in it). Each TEST compiles once (about a second of g++).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "fused_model_test_util.h"

namespace openge::testing {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

struct Kept {
  std::set<std::string> files;     // kernel_meta's files, the kernel name replaced by "K"
  std::vector<std::string> flags;  // compileOptions of the kernel's .json
  bool debug_sections = false;     // the binary holds .debug_info
  std::string source;              // the kept .cce, when there is one
};

Kept compile_with(const TempDir& d, options::test::Flags flags) {
  flags.push_back({"jit_compile", "true"});
  flags.push_back({"debug_dir", d.path()});
  auto exe = fused::compile(fused::one_group(), fused::config(flags));
  EXPECT_TRUE(exe);
  Kept out;
  const std::string meta = d.path() + "/kernel_meta";
  if (!fs::is_directory(meta)) return out;
  std::string kernel;
  for (const auto& e : fs::directory_iterator(meta))
    if (e.path().extension() == ".so") kernel = e.path().stem().string();
  EXPECT_FALSE(kernel.empty()) << "no binary in kernel_meta";
  for (const auto& e : fs::directory_iterator(meta)) {
    std::string name = e.path().filename().string();
    if (!kernel.empty() && name.rfind(kernel, 0) == 0) name = "K" + name.substr(kernel.size());
    out.files.insert(name);
  }
  std::ifstream json(meta + "/" + kernel + ".json");
  if (json) out.flags = nlohmann::json::parse(json).at("compileOptions").get<std::vector<std::string>>();
  std::ifstream so(meta + "/" + kernel + ".so", std::ios::binary);
  std::stringstream bytes;
  bytes << so.rdbuf();
  out.debug_sections = bytes.str().find(".debug_info") != std::string::npos;
  std::ifstream cce(meta + "/" + kernel + ".cce");
  out.source.assign(std::istreambuf_iterator<char>(cce), {});
  return out;
}

bool has_flag(const Kept& k, const std::string& flag) {
  return std::find(k.flags.begin(), k.flags.end(), flag) != k.flags.end();
}

using Files = std::set<std::string>;

TEST(OpDebugRoutes, OPT_op_debug_level_3_LevelTwoIsLevelOneWithO0AndG_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_level", "2"}});
  EXPECT_EQ(k.files, (Files{"K.so", "K.json", "K.cce", "K_loc.json"}));
  EXPECT_TRUE(has_flag(k, "-O0") && has_flag(k, "-g")) << ::testing::PrintToString(k.flags);
  EXPECT_FALSE(has_flag(k, "-O3"));
  EXPECT_TRUE(k.debug_sections);
}

TEST(OpDebugRoutes, OPT_op_debug_level_4_LevelThreeKeepsOnlyBinaryAndDescription_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_level", "3"}});
  EXPECT_EQ(k.files, (Files{"K.so", "K.json"}));
  EXPECT_TRUE(has_flag(k, "-O3")) << "debug off: optimised";
  EXPECT_FALSE(has_flag(k, "-g"));
  EXPECT_FALSE(k.debug_sections);
}

TEST(OpDebugRoutes, OPT_op_debug_level_5_LevelFourAddsSourceAndComputeDescription_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_level", "4"}});
  EXPECT_EQ(k.files, (Files{"K.so", "K.json", "K.cce", "K_compute.json"}));
  EXPECT_FALSE(has_flag(k, "-O0") || has_flag(k, "-g"));
}

TEST(OpDebugRoutes, OPT_op_debug_config_8_DumpCceKeepsTheSource_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_config", d.file("inputs/a.cfg", "op_debug_config = dump_cce\n")}});
  EXPECT_EQ(k.files, (Files{"K.so", "K.json", "K.cce"}));
  EXPECT_TRUE(has_flag(k, "-O3"));
}

TEST(OpDebugRoutes, OPT_op_debug_config_9_DumpLocKeepsTheSourceMap_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_config", d.file("inputs/a.cfg", "op_debug_config = dump_loc\n")}});
  EXPECT_EQ(k.files, (Files{"K.so", "K.json", "K_loc.json"}));
}

TEST(OpDebugRoutes, OPT_op_debug_config_10_CcecO0CompilesWithoutOptimisation_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_config", d.file("inputs/a.cfg", "op_debug_config = ccec_O0\n")}});
  EXPECT_TRUE(has_flag(k, "-O0")) << ::testing::PrintToString(k.flags);
  EXPECT_FALSE(has_flag(k, "-O3") || has_flag(k, "-g"));
  EXPECT_FALSE(k.debug_sections);
  EXPECT_EQ(k.files, (Files{"K.so", "K.json"}));
}

TEST(OpDebugRoutes, OPT_op_debug_config_11_CcecGBuildsDebugInformation_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_config", d.file("inputs/a.cfg", "op_debug_config = ccec_g\n")}});
  EXPECT_TRUE(has_flag(k, "-g")) << ::testing::PrintToString(k.flags);
  EXPECT_TRUE(has_flag(k, "-O3")) << "-g alone keeps the optimisation";
  EXPECT_TRUE(k.debug_sections);
}

// The code oom and check_flag inject is what the kept source shows: the bounds checks
// (OPENGE_CHECK) and the completion flag's store are in the .cce with them, absent without.
TEST(OpDebugRoutes, OPT_op_debug_config_6_OomAndCheckFlagCodeShowsInTheKeptSource_Compiles) {
  TempDir d;
  const Kept plain = compile_with(d, {{"op_debug_config", d.file("inputs/a.cfg", "op_debug_config = dump_cce\n")}});
  ASSERT_FALSE(plain.source.empty());
  EXPECT_EQ(plain.source.find("OPENGE_CHECK("), std::string::npos);
  EXPECT_EQ(plain.source.find("__atomic_store_n(done"), std::string::npos);
  TempDir e;
  const Kept checked =
      compile_with(e, {{"op_debug_config", e.file("inputs/a.cfg", "op_debug_config = oom,check_flag,dump_cce\n")}});
  EXPECT_NE(checked.source.find("OPENGE_CHECK("), std::string::npos) << "oom's bounds checks";
  EXPECT_NE(checked.source.find("__atomic_store_n(done"), std::string::npos) << "check_flag's set_flag";
}

TEST(OpDebugRoutes, OPT_op_debug_config_7_DumpBinKeepsBinaryAndDescription_Compiles) {
  TempDir d;
  const Kept k = compile_with(d, {{"op_debug_config", d.file("inputs/a.cfg", "op_debug_config = dump_bin\n")}});
  EXPECT_EQ(k.files, (Files{"K.so", "K.json"}));
  EXPECT_TRUE(has_flag(k, "-O3"));
}

}  // namespace
}  // namespace openge::testing
