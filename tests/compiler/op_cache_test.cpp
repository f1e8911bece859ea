// The operator compile cache (src/compiler/op_cache.h): hits, misses and their reasons, force,
// disable, the folder chain and the size limits, with real g++ builds of a tiny kernel.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cache_test_util.h"
#include "base/sha256.h"
#include "logging/log.h"
#include "options/config_files.h"
#include "options/options_test_util.h"
#include "paths/artifact_paths.h"

namespace openge::compiler::test {
namespace {

using options::test::TempDir;

ino_t inode_of(const std::string& p) {
  struct stat s {};
  return ::stat(p.c_str(), &s) == 0 ? s.st_ino : 0;
}

Result<OpCache> cache_from(const options::test::Flags& flags, const options::EnvMap& env, const std::string& cwd) {
  auto report = options::test::build(flags, env, {}, false, cwd);
  if (!report.options) return invalid_argument(options::test::dump_errors(report));
  return OpCache::from_options(*report.options);
}

class OpCacheTest : public ::testing::Test {
 protected:
  void TearDown() override { logging::unconfigure(); }
  TempDir d;
  std::string scratch = d.dir("scratch");
  std::string root = d.path() + "/kernel_cache";
};

TEST(OpCacheDigest, Sha256MatchesTheFipsVector) {
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(OpCacheDigest, OPT_op_compiler_cache_mode_2_KeyCoversEverythingThatChangesTheBinary) {
  const KernelKey base = probe_key("k", 1);
  std::vector<KernelKey> changed(8, base);
  changed[0].kernel_name = "k2";
  changed[1].source += " ";
  changed[2].compiler = "clang++";
  changed[3].compiler_version = "g++ 13";
  changed[4].flags.push_back("-O3");
  changed[5].flags = {"-shared -fPIC", "-O0"};  // same text, other split: another command
  changed[6].cpu_features = "avx2";
  changed[7].soc_version = "Ascend310P";
  std::set<std::string> digests{base.digest()};
  for (const auto& k : changed) digests.insert(k.digest());
  EXPECT_EQ(digests.size(), changed.size() + 1) << "two different keys share a digest";
  EXPECT_EQ(base.digest(), probe_key("k", 1).digest());
  EXPECT_EQ(base.digest().size(), 64u);
}

TEST_F(OpCacheTest, OPT_op_compiler_cache_mode_2_SecondCompileOfTheSameKernelIsAHit) {
  const KernelKey k = probe_key("probe_a", 42);
  int compiles = 0;
  auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  auto first = cache->get_or_build(k, gxx_build(k, scratch, &compiles));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->hit);
  EXPECT_EQ(first->miss_reason, "not in cache");
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(fs::path(first->so_path).parent_path(), fs::path(root) / "Ascend910B1");
  EXPECT_EQ(call_probe(first->so_path, "probe_a"), 42);

  // Another process (a fresh cache object) finds it without compiling.
  auto again = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  auto second = again->get_or_build(k, gxx_build(k, scratch, &compiles));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->hit);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(second->so_path, first->so_path);
  EXPECT_EQ(call_probe(second->so_path, "probe_a"), 42);

  // Another flag is another binary: compiled, and both entries stay.
  KernelKey o2 = k;
  o2.flags.push_back("-O2");
  auto third = again->get_or_build(o2, gxx_build(o2, scratch, &compiles));
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_FALSE(third->hit);
  EXPECT_EQ(compiles, 2);
  EXPECT_NE(third->so_path, first->so_path);
  EXPECT_EQ(folder_problems(cache->soc_dir()), "");
  EXPECT_EQ(count_files(cache->soc_dir()), 4);  // two .so, two manifests
}

TEST_F(OpCacheTest, OPT_op_compiler_cache_mode_4_ForceRecompilesAndReplacesTheEntry) {
  const KernelKey k = probe_key("probe_golden", 7), other = probe_key("probe_other", 8);
  int compiles = 0;
  auto enable = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  ASSERT_TRUE(enable->get_or_build(k, copy_build(golden_so(), &compiles)).ok());
  ASSERT_TRUE(enable->get_or_build(other, copy_build(golden_so(), &compiles)).ok());
  const std::string so = enable->soc_dir() + "/" + k.digest() + ".so";
  const ino_t before = inode_of(so), other_before = inode_of(enable->soc_dir() + "/" + other.digest() + ".so");

  auto force = OpCache::at(root, CacheMode::kForce, "Ascend910B1", {});
  auto r = force->get_or_build(k, copy_build(golden_so(), &compiles));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->hit);
  EXPECT_EQ(r->miss_reason, "mode force");
  EXPECT_EQ(compiles, 3);
  EXPECT_EQ(r->so_path, so);
  EXPECT_NE(inode_of(so), before) << "force must replace the entry with the new build";
  EXPECT_EQ(call_probe(so, "probe_golden"), 7);
  // Once rebuilt, the fresh entry serves this process's later compiles of the same kernel.
  auto again = force->get_or_build(k, copy_build(golden_so(), &compiles));
  EXPECT_TRUE(again->hit);
  EXPECT_EQ(compiles, 3);
  // A new force run rebuilds again; kernels it does not compile keep their entries.
  auto force2 = OpCache::at(root, CacheMode::kForce, "Ascend910B1", {});
  EXPECT_FALSE(force2->get_or_build(k, copy_build(golden_so(), &compiles))->hit);
  EXPECT_EQ(compiles, 4);
  EXPECT_EQ(inode_of(enable->soc_dir() + "/" + other.digest() + ".so"), other_before);
  EXPECT_EQ(folder_problems(force->soc_dir()), "");
}

TEST_F(OpCacheTest, OPT_op_compiler_cache_mode_3_DisableNeverTouchesTheCacheFolder) {
  auto cache = cache_from({{"op_compiler_cache_mode", "disable"}, {"op_compiler_cache_dir", d.path() + "/mine"}},
                          {{"HOME", d.path() + "/home"}, {"ASCEND_CACHE_PATH", d.path() + "/acp"}}, d.path());
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  EXPECT_EQ(cache->mode(), CacheMode::kDisable);
  const KernelKey k = probe_key("probe_golden", 7);
  int compiles = 0;
  for (int i = 0; i < 2; ++i) {
    auto r = cache->get_or_build(k, copy_build(golden_so(), &compiles));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->hit);
    EXPECT_EQ(r->miss_reason, "mode disable");
    EXPECT_EQ(call_probe(r->so_path, "probe_golden"), 7);
    EXPECT_EQ(r->so_path.rfind(d.path(), 0), std::string::npos) << r->so_path;
  }
  EXPECT_EQ(compiles, 2) << "disable compiles every time";
  for (const char* dir : {"/mine", "/acp", "/home"}) EXPECT_FALSE(fs::exists(d.path() + dir)) << dir;
}

TEST_F(OpCacheTest, OPT_op_compiler_cache_dir_3_KernelCacheFolderWithOneFolderPerSoc) {
  const std::string host = paths::RunIds::current().host_id;
  auto opt = cache_from({{"op_compiler_cache_dir", d.path() + "/mine"}, {"soc_version", "Ascend310P"}},
                        {{"ASCEND_CACHE_PATH", d.path() + "/acp"}}, d.path());
  ASSERT_TRUE(opt.ok()) << opt.status().message();
  EXPECT_EQ(opt->root(), d.path() + "/mine/kernel_cache");
  EXPECT_EQ(opt->soc_dir(), d.path() + "/mine/kernel_cache/Ascend310P");
  EXPECT_TRUE(fs::is_directory(opt->soc_dir())) << "OPT-op_compiler_cache_dir-4: created with its parents";
  EXPECT_FALSE(fs::exists(d.path() + "/acp"));

  auto env = cache_from({{"soc_version", "Ascend910"}}, {{"ASCEND_CACHE_PATH", d.path() + "/acp"}}, d.path());
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->soc_dir(), d.path() + "/acp/kernel_cache_" + host + "/Ascend910");

  auto home = cache_from({{"soc_version", "Ascend910"}, {"op_compiler_cache_mode", "force"}},
                         {{"HOME", d.path() + "/home"}}, d.path());
  ASSERT_TRUE(home.ok()) << home.status().message();
  EXPECT_EQ(home->mode(), CacheMode::kForce);
  EXPECT_EQ(home->soc_dir(), d.path() + "/home/atc_data/kernel_cache_" + host + "/Ascend910");
}

TEST_F(OpCacheTest, OPT_op_compiler_cache_dir_3_UnusableFolderIsOneClearError) {
  // A file where the folder should be: no folder can be made there, whoever runs the test.
  const std::string blocker = d.file("blocker", "a file, not a folder");
  auto r = cache_from({{"op_compiler_cache_dir", blocker + "/c"}}, {}, d.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("op_compiler_cache_dir"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(blocker), std::string::npos) << r.status().message();
}

TEST_F(OpCacheTest, OPT_op_compiler_cache_mode_15_LimitsIniThenEnvironmentThenDefault) {
  auto dflt = cache_from({{"op_compiler_cache_dir", d.path() + "/a"}}, {}, d.path());
  ASSERT_TRUE(dflt.ok()) << dflt.status().message();
  EXPECT_EQ(dflt->limits().max_bytes, int64_t{500} << 20);
  EXPECT_EQ(dflt->limits().remain_ratio_percent, 50);

  auto env = cache_from({{"op_compiler_cache_dir", d.path() + "/b"}},
                        {{"ASCEND_MAX_OP_CACHE_SIZE", "3"}, {"ASCEND_REMAIN_CACHE_SIZE_RATIO", "70"}}, d.path());
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->limits().max_bytes, int64_t{3} << 20);
  EXPECT_EQ(env->limits().remain_ratio_percent, 70);
  // OPT-op_compiler_cache_mode-10: op_cache.ini appears after a compile, with the limits in effect.
  EXPECT_FALSE(fs::exists(env->root() + "/op_cache.ini"));
  ASSERT_TRUE(env->get_or_build(probe_key("probe_golden", 7), copy_build(golden_so())).ok());
  const auto ini = options::parse_op_cache_ini(read_bytes(env->root() + "/op_cache.ini"), "op_cache.ini");
  ASSERT_TRUE(ini.effective());
  EXPECT_EQ(*ini.max_op_cache_size_mb, 3);
  EXPECT_EQ(*ini.remain_cache_size_ratio, 70);
  // From then on the file wins over the environment (OPT-op_compiler_cache_mode-15).
  auto later = cache_from({{"op_compiler_cache_dir", d.path() + "/b"}}, {{"ASCEND_MAX_OP_CACHE_SIZE", "9"}}, d.path());
  EXPECT_EQ(later->limits().max_bytes, int64_t{3} << 20);

  d.file("c/kernel_cache/op_cache.ini",
         "[op_compiler_cache]\nascend_max_op_cache_size=7\nascend_remain_cache_size_ratio=80\n");
  auto hand = cache_from({{"op_compiler_cache_dir", d.path() + "/c"}}, {{"ASCEND_MAX_OP_CACHE_SIZE", "9"}}, d.path());
  EXPECT_EQ(hand->limits().max_bytes, int64_t{7} << 20);
  EXPECT_EQ(hand->limits().remain_ratio_percent, 80);
}

// A damaged entry is a logged miss with its reason, rebuilt and replaced; the log says each miss.
TEST_F(OpCacheTest, CacheFault_TruncatedOrCorruptEntryIsLoggedAndRebuilt) {
  auto log_options = options::test::build(
      {}, {{"ASCEND_PROCESS_LOG_PATH", d.path() + "/log"}, {"ASCEND_GLOBAL_LOG_LEVEL", "1"}}, {}, false, d.path());
  ASSERT_TRUE(log_options.options);
  logging::configure(*log_options.options);
  const KernelKey k = probe_key("probe_golden", 7);
  int compiles = 0;
  auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  auto first = cache->get_or_build(k, copy_build(golden_so(), &compiles));
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string so = first->so_path, manifest = cache->soc_dir() + "/" + k.digest() + ".json";

  struct Damage {
    const char* what;
    std::function<void()> apply;
    const char* reason;
  };
  const std::vector<Damage> damages = {
      {"truncated", [&] { fs::resize_file(so, fs::file_size(so) / 2); }, "entry truncated"},
      {"one byte changed",
       [&] {
         std::fstream f(so, std::ios::in | std::ios::out | std::ios::binary);
         f.seekp(100);
         f.put('\x5a');
       },
       "entry corrupt"},
      {"manifest garbage", [&] { std::ofstream(manifest) << "{\"key_dig"; }, "manifest corrupt"},
      {"manifest lost", [&] { fs::remove(manifest); }, "entry incomplete"},
      {"so lost", [&] { fs::remove(so); }, "entry incomplete (shared object missing)"},
  };
  for (const auto& damage : damages) {
    damage.apply();
    const int before = compiles;
    auto r = cache->get_or_build(k, copy_build(golden_so(), &compiles));
    ASSERT_TRUE(r.ok()) << damage.what << ": " << r.status().message();
    EXPECT_FALSE(r->hit) << damage.what;
    EXPECT_EQ(r->miss_reason.rfind(damage.reason, 0), 0u) << damage.what << ": " << r->miss_reason;
    EXPECT_EQ(compiles, before + 1) << damage.what;
    EXPECT_EQ(read_bytes(so), golden_so()) << damage.what << ": the entry was not replaced";
    EXPECT_TRUE(cache->get_or_build(k, copy_build(golden_so(), &compiles))->hit) << damage.what;
  }
  EXPECT_EQ(folder_problems(cache->soc_dir()), "");
  const std::string log = read_bytes(logging::current_log_file());
  logging::unconfigure();
  for (const char* reason :
       {"not in cache", "entry truncated", "entry corrupt", "manifest corrupt", "entry incomplete"})
    EXPECT_NE(
        log.find("compile cache miss: kernel probe_golden (" + k.digest().substr(0, 16) + ") is compiled: " + reason),
        std::string::npos)
        << reason;
  EXPECT_NE(log.find("cannot be used: entry truncated"), std::string::npos) << "a damaged entry is a warning";
}

TEST_F(OpCacheTest, FailedBuildLeavesNothingAndSaysWhy) {
  auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  KernelKey bad = probe_key("probe_bad", 1);
  bad.source = "this is not C++";
  auto r = cache->get_or_build(bad, gxx_build(bad, scratch));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("compiling kernel probe_bad"), std::string::npos) << r.status().message();
  // A build that "succeeds" without writing a shared object is refused too.
  auto empty = cache->get_or_build(probe_key("probe_empty", 1), [](const std::string& out) {
    std::ofstream(out) << "not an ELF file";
    return Status::Ok();
  });
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("wrote no shared object"), std::string::npos) << empty.status().message();
  EXPECT_EQ(count_files(cache->soc_dir()), 0);
}

}  // namespace
}  // namespace openge::compiler::test
