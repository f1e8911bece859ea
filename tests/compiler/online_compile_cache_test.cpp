// The online compiler builds every kernel through the operator compile cache: the options decide
// whether the system compiler runs (op_compiler_cache_mode), where entries go
// (op_compiler_cache_dir > ASCEND_CACHE_PATH > $HOME/atc_data), the limits written to op_cache.ini
// (ASCEND_MAX_OP_CACHE_SIZE / ASCEND_REMAIN_CACHE_SIZE_RATIO), that debug settings bypass the
// cache, and NPU_COLLECT_PATH's copies. The compiler is a script that counts its builds before
// running g++ (fused_model_test_util.h): the oracle for "the compiler ran / did not run".
// Each g++ build of the one-kernel model costs a fraction of a second; these tests run 11.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "fused_model_test_util.h"
#include "paths/artifact_paths.h"

namespace openge::testing {
namespace {
namespace fs = std::filesystem;
using fused::compile;
using fused::compiler_runs;
using fused::config;
using fused::count_files;
using fused::one_group;
using options::test::TempDir;

const std::vector<Tensor> kInput = {random_tensor({4, 8}, 3)};

// The SoC folder of a cache whose kernel_cache folder is `root`.
std::string soc_dir(const std::string& root, const options::OptionSet& cfg) { return root + "/" + cfg.soc_version(); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OpCompilerCache, OPT_op_compiler_cache_mode_2_WarmSecondCompileRunsNoCompilerAndGivesTheSameBits) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  auto cfg = [&] {
    return config({{"jit_compile", "true"}, {"op_compiler_cache_dir", d.path() + "/c"}}, {{"CXX", cxx}});
  };
  auto cold = compile(one_group(), cfg());
  ASSERT_TRUE(cold);
  EXPECT_EQ(compiler_runs(d.path()), 1);
  const std::string soc = soc_dir(d.path() + "/c/kernel_cache", *cfg());
  EXPECT_EQ(count_files(soc, ".so"), 1) << "OPT-op_compiler_cache_dir-3: entries under <dir>/kernel_cache";
  EXPECT_EQ(count_files(soc, ".json"), 1);
  // A second session (a fresh option set, as a new process would have): a hit, no compiler run.
  auto warm = compile(one_group(), cfg());
  ASSERT_TRUE(warm);
  EXPECT_EQ(compiler_runs(d.path()), 1) << "the warm compile ran the compiler";
  for (auto* exe : {cold.get(), warm.get()})
    for (const CompiledNode* n : fused::fused_nodes(*exe)) EXPECT_EQ(n->engine, Engine::kAiCore);
  const auto a = fused::run(*cold, kInput), b = fused::run(*warm, kInput);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(fused::bitwise_equal(a[0], b[0]));
  // The cached kernel computes what the reference kernels compute (exact ops).
  auto reference = compile(one_group(), config({{"jit_compile", "false"}}), /*passes=*/false);
  ASSERT_TRUE(reference);
  EXPECT_TRUE(fused::bitwise_equal(b[0], fused::run(*reference, kInput)[0]));
}

TEST(OpCompilerCache, OPT_op_compiler_cache_mode_3_DisableCompilesEveryTimeAndNeverTouchesTheCacheFolder) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(compile(one_group(), config({{"jit_compile", "true"},
                                             {"op_compiler_cache_mode", "disable"},
                                             {"op_compiler_cache_dir", d.path() + "/c"}},
                                            {{"CXX", cxx}, {"ASCEND_CACHE_PATH", d.path() + "/a"}})));
  EXPECT_EQ(compiler_runs(d.path()), 2);
  EXPECT_FALSE(fs::exists(d.path() + "/c"));
  EXPECT_FALSE(fs::exists(d.path() + "/a"));
}

TEST(OpCompilerCache, OPT_op_compiler_cache_mode_4_ForceRecompilesAndReplacesTheEntry) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  auto cfg = [&](const char* mode) {
    return config({{"jit_compile", "true"}, {"op_compiler_cache_mode", mode}, {"op_compiler_cache_dir", d.path()}},
                  {{"CXX", cxx}});
  };
  ASSERT_TRUE(compile(one_group(), cfg("enable")));
  const std::string soc = soc_dir(d.path() + "/kernel_cache", *cfg("enable"));
  ASSERT_EQ(count_files(soc, ".so"), 1);
  std::string so;
  for (const auto& e : fs::directory_iterator(soc))
    if (e.path().extension() == ".so") so = e.path().string();
  struct stat before {};
  ::stat(so.c_str(), &before);
  ASSERT_TRUE(compile(one_group(), cfg("force")));
  EXPECT_EQ(compiler_runs(d.path()), 2) << "force compiles again though the entry is valid";
  struct stat after {};
  ASSERT_EQ(::stat(so.c_str(), &after), 0) << "the entry is replaced, not removed";
  EXPECT_NE(before.st_ino, after.st_ino) << "a new file was renamed into place";
  EXPECT_EQ(count_files(soc, ".so"), 1);
  // The replaced entry is valid: enable finds it.
  ASSERT_TRUE(compile(one_group(), cfg("enable")));
  EXPECT_EQ(compiler_runs(d.path()), 2);
}

// Two chains computing the same kernel (Relu((x + 1) * 0.5) on [4, 8]): one distinct kernel.
fused::Model same_kernel_twice() {
  GraphBuilder b;
  std::vector<int> outs;
  for (const char* name : {"x", "z"}) {
    const int in = b.input(name);
    int t = b.node("Add", {in, b.constant(std::string(name) + "_one", scalar(1.0f))});
    t = b.node("Mul", {t, b.constant(std::string(name) + "_half", scalar(0.5f))});
    outs.push_back(b.node("Relu", {t}));
    b.g.values[static_cast<size_t>(in)].dtype = DType::kFloat32;
    b.g.values[static_cast<size_t>(in)].shape = Shape{4, 8};
  }
  b.g.outputs = outs;
  return {std::move(b.g), {{4, 8}, {4, 8}}};
}

// Page 002: force refreshes the cache at every compile (so it advises switching back to enable
// afterwards); docs/DECISIONS.md: every graph compile under force rebuilds each distinct kernel it
// needs once, also a second compile in the same process, and a kernel two nodes share is built once.
TEST(OpCompilerCache, OPT_op_compiler_cache_mode_4_ForceRebuildsOncePerCompileNotOncePerProcess) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  auto force =
      config({{"jit_compile", "true"}, {"op_compiler_cache_mode", "force"}, {"op_compiler_cache_dir", d.path()}},
             {{"CXX", cxx}});
  auto first = compile(same_kernel_twice(), force);
  ASSERT_TRUE(first);
  EXPECT_EQ(fused::fused_nodes(*first).size(), 2u);
  EXPECT_EQ(compiler_runs(d.path()), 1) << "two nodes of one kernel: one build in one compile";
  // The same option set, the same process, a second compile: force rebuilds again.
  ASSERT_TRUE(compile(same_kernel_twice(), force));
  EXPECT_EQ(compiler_runs(d.path()), 2) << "force rebuilds at every compile";
  const std::string soc = soc_dir(d.path() + "/kernel_cache", *force);
  EXPECT_EQ(count_files(soc, ".so"), 1);
}

// OPT-op_compiler_cache_mode-9, OPT-op_debug_level-11, OPT-op_debug_config-14: with a warm cache,
// a debug setting still runs the compiler, into kernel_meta, and adds nothing to the cache.
TEST(OpCompilerCache, OPT_op_compiler_cache_mode_9_DebugSettingsBypassAWarmCache) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  const std::string cache = d.path() + "/c";
  const std::string cfg_file = d.path() + "/debug.cfg";
  std::ofstream(cfg_file) << "op_debug_config = dump_bin\n";
  ASSERT_TRUE(
      compile(one_group(), config({{"jit_compile", "true"}, {"op_compiler_cache_dir", cache}}, {{"CXX", cxx}})));
  ASSERT_EQ(compiler_runs(d.path()), 1);
  const std::string soc = soc_dir(cache + "/kernel_cache", *config({}));
  const int entries = count_files(soc, "");
  const options::test::Flags debug_settings[] = {{{"op_debug_level", "1"}, {"debug_dir", d.path() + "/level"}},
                                                 {{"op_debug_config", cfg_file}, {"debug_dir", d.path() + "/config"}}};
  int expected_runs = 1;
  for (const auto& debug : debug_settings) {
    auto flags = debug;
    flags.push_back({"jit_compile", "true"});
    flags.push_back({"op_compiler_cache_dir", cache});
    ASSERT_TRUE(compile(one_group(), config(flags, {{"CXX", cxx}})));
    EXPECT_EQ(compiler_runs(d.path()), ++expected_runs) << debug[0].first << " used the cache";
    EXPECT_EQ(count_files(debug[1].second + "/kernel_meta", ".so"), 1) << debug[0].first;
    EXPECT_EQ(count_files(soc, ""), entries) << debug[0].first << " changed the cache";
  }
}

// A non-empty op_debug_config turns the cache off whatever op_compiler_cache_mode says: with
// enable and with force the compiler runs every time and the cache folder gets no entry.
TEST(OpCompilerCache, OPT_op_debug_config_14_ADebugConfigTurnsTheCacheOffWhateverTheMode) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  const std::string cache = d.path() + "/c";
  const std::string cfg_file = d.path() + "/debug.cfg";
  std::ofstream(cfg_file) << "op_debug_config = dump_cce\n";
  int expected_runs = 0;
  for (const char* mode : {"enable", "force", "enable"}) {
    ASSERT_TRUE(compile(one_group(), config({{"jit_compile", "true"},
                                             {"op_compiler_cache_dir", cache},
                                             {"op_compiler_cache_mode", mode},
                                             {"op_debug_config", cfg_file},
                                             {"debug_dir", d.path() + "/meta"}},
                                            {{"CXX", cxx}})));
    EXPECT_EQ(compiler_runs(d.path()), ++expected_runs) << mode << " used the cache";
    EXPECT_EQ(count_files(cache, ""), 0) << mode << " wrote to the cache";
  }
}

// OPT-op_compiler_cache_dir-5 and the limits' variables: ASCEND_CACHE_PATH/kernel_cache_<host>
// unless op_compiler_cache_dir is set; the op_cache.ini written with the first entry carries
// ASCEND_MAX_OP_CACHE_SIZE / ASCEND_REMAIN_CACHE_SIZE_RATIO (OPT-op_compiler_cache_mode-10, -14).
TEST(OpCompilerCache, OPT_op_compiler_cache_dir_5_TheChainChoosesTheFolderAndTheVariablesTheLimits) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  const options::EnvMap env = {{"CXX", cxx},
                               {"HOME", d.path() + "/home"},
                               {"ASCEND_CACHE_PATH", d.path() + "/ascend_cache"},
                               {"ASCEND_MAX_OP_CACHE_SIZE", "7"},
                               {"ASCEND_REMAIN_CACHE_SIZE_RATIO", "30"}};
  ASSERT_TRUE(compile(one_group(), config({{"jit_compile", "true"}}, env)));
  const std::string by_env = d.path() + "/ascend_cache/kernel_cache_" + paths::RunIds::current().host_id;
  EXPECT_EQ(count_files(soc_dir(by_env, *config({})), ".so"), 1);
  const std::string ini = read_text(by_env + "/op_cache.ini");
  EXPECT_NE(ini.find("[op_compiler_cache]"), std::string::npos) << ini;
  EXPECT_NE(ini.find("ascend_max_op_cache_size=7\n"), std::string::npos) << ini;
  EXPECT_NE(ini.find("ascend_remain_cache_size_ratio=30\n"), std::string::npos) << ini;
  EXPECT_FALSE(fs::exists(d.path() + "/home/atc_data")) << "$HOME is the last tier";

  // op_compiler_cache_dir wins: a cold cache there, the ASCEND_CACHE_PATH one left as it was.
  ASSERT_TRUE(
      compile(one_group(), config({{"jit_compile", "true"}, {"op_compiler_cache_dir", d.path() + "/dir"}}, env)));
  EXPECT_EQ(compiler_runs(d.path()), 2);
  EXPECT_EQ(count_files(soc_dir(d.path() + "/dir/kernel_cache", *config({})), ".so"), 1);
  EXPECT_EQ(count_files(soc_dir(by_env, *config({})), ".so"), 1);
}

// NPU-14 / NPU-15: NPU_COLLECT_PATH compiles online even under jit_compile=false, and each compile
// leaves a copy of every kernel's binary with its .json (sha256 of that copy) in
// NPU_COLLECT_PATH/op_compile; the cache's own entry stays where it is and serves the next compile.
TEST(OpCompilerCache, NPU_14_15_CollectPathCompilesOnlineAndCollectsEachKernelsBinaryAndJson) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  const std::string collect = d.path() + "/collect/op_compile";
  auto cfg = [&] {
    return config({{"jit_compile", "false"}, {"op_compiler_cache_dir", d.path() + "/c"}},
                  {{"CXX", cxx}, {"NPU_COLLECT_PATH", d.path() + "/collect"}});
  };
  for (int session = 0; session < 2; ++session) {
    auto exe = compile(one_group(), cfg());
    ASSERT_TRUE(exe);
    ASSERT_EQ(fused::fused_nodes(*exe).size(), 1u);
    EXPECT_EQ(fused::fused_nodes(*exe)[0]->engine, Engine::kAiCore) << "compiled online despite jit_compile=false";
    EXPECT_EQ(compiler_runs(d.path()), 1) << "session " << session << ": the cache serves the second compile";
    ASSERT_EQ(count_files(collect, ".so"), 1) << "session " << session;
    ASSERT_EQ(count_files(collect, ".json"), 1) << "session " << session;
  }
  for (const auto& e : fs::directory_iterator(collect)) {
    if (e.path().extension() != ".json") continue;
    const auto j = nlohmann::json::parse(read_text(e.path().string()));
    const std::string so = collect + "/" + j.at("binFileName").get<std::string>() + ".so";
    auto sha = sha256_file(so);
    ASSERT_TRUE(sha.ok()) << so;
    EXPECT_EQ(j.at("sha256"), sha->sha256);
  }
  EXPECT_EQ(count_files(soc_dir(d.path() + "/c/kernel_cache", *cfg()), ".so"), 1) << "the cache keeps its entry";
}

}  // namespace
}  // namespace openge::testing
