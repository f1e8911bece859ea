// Compiled kernels are loaded only from folders no other user can write (base/trusted_path.h):
// a shared object planted in a cache folder owned by another user (`nobody`), or in one that is
// world-writable, is refused with one line naming the path and the fix, and its constructor never
// runs. The planted object is real: g++ builds a kernel whose constructor writes a marker file,
// and a control proves that loading it from a trusted folder does write the marker.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aoe/knowledge_base.h"
#include "base/trusted_path.h"
#include "cache_test_util.h"
#include "compiler/eltwise_kernel.h"

namespace openge::compiler::test {
namespace {

using options::test::TempDir;

uid_t nobody_uid() {
  const struct passwd* pw = ::getpwnam("nobody");
  return pw ? pw->pw_uid : 65534;
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

// A kernel whose constructor writes `marker` when the object is loaded.
KernelKey planted_key(const std::string& marker) {
  KernelKey k = probe_key("planted_probe", 5);
  k.source =
      "#include <cstdio>\n"
      "__attribute__((constructor)) static void planted() {\n"
      "  if (FILE* f = std::fopen(\"" +
      marker +
      "\", \"w\")) std::fclose(f);\n"
      "}\n" +
      k.source;
  return k;
}

class KernelTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "chown to another user needs root (CI runs the suite as root)";
    auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    auto published = cache->get_or_build(key, gxx_build(key, scratch));
    ASSERT_TRUE(published.ok()) << published.status().message();
    so = published->so_path;
    soc = fs::path(so).parent_path().string();
    ASSERT_FALSE(exists(marker)) << "publishing must not load the object";
  }
  void TearDown() override {
    // Give everything back to this user, so that TempDir can remove it.
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(d.path(), ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      (void)::lchown(it->path().c_str(), ::geteuid(), ::getegid());
  }

  // The cache refuses the entry (one line naming `named` and the fix) and nothing ran.
  void expect_refused(const std::string& named, const std::string& fix) {
    auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
    Status st = cache.ok() ? Status::Ok() : cache.status();
    if (st.ok()) {
      auto hit = cache->get_or_build(key, gxx_build(key, scratch));
      st = hit.ok() ? Status::Ok() : hit.status();
    }
    ASSERT_FALSE(st.ok()) << "the cache handed out an entry another user could have planted";
    EXPECT_NE(st.message().find(named), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(fix), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find('\n'), std::string::npos) << "one line: " << st.message();
    auto loaded = SharedObject::open(so, "planted_probe");
    ASSERT_FALSE(loaded.ok()) << "dlopen'ed a planted object";
    EXPECT_NE(loaded.status().message().find("not trusted"), std::string::npos) << loaded.status().message();
    EXPECT_FALSE(exists(marker)) << "the planted constructor ran";
  }

  TempDir d;
  std::string scratch = d.dir("scratch");
  std::string root = d.path() + "/kernel_cache";
  std::string marker = d.path() + "/constructor_ran";
  KernelKey key = planted_key(marker);
  std::string so, soc;
};

TEST_F(KernelTrust, ControlAnEntryOfThisUserIsLoadedAndItsConstructorRuns) {
  auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  auto hit = cache->get_or_build(key, gxx_build(key, scratch));
  ASSERT_TRUE(hit.ok()) << hit.status().message();
  EXPECT_TRUE(hit->hit);
  auto loaded = SharedObject::open(hit->so_path, "planted_probe");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(exists(marker)) << "the control must see the constructor run, or the refusals prove nothing";
}

TEST_F(KernelTrust, PlantedEntryInAFolderOwnedByAnotherUserIsRefused) {
  ASSERT_EQ(::chown(soc.c_str(), nobody_uid(), ::getegid()), 0);
  expect_refused(soc, "chown");
}

TEST_F(KernelTrust, PlantedEntryInAWorldWritableFolderIsRefused) {
  ASSERT_EQ(::chmod(soc.c_str(), 0777), 0);
  expect_refused(soc, "chmod go-w");
}

TEST_F(KernelTrust, WorldWritableFolderAboveTheCacheIsRefused) {
  ASSERT_EQ(::chmod(root.c_str(), 0777), 0);
  expect_refused(root, "chmod go-w");
}

TEST_F(KernelTrust, SharedObjectOwnedByAnotherUserIsRefused) {
  ASSERT_EQ(::chown(so.c_str(), nobody_uid(), ::getegid()), 0);
  expect_refused(so, "chown");
}

TEST_F(KernelTrust, GroupWritableSharedObjectIsRefused) {
  ASSERT_EQ(::chmod(so.c_str(), 0770), 0);
  expect_refused(so, "chmod go-w");
}

TEST_F(KernelTrust, ManifestOwnedByAnotherUserIsRefused) {
  const std::string manifest = fs::path(so).replace_extension(".json").string();
  ASSERT_EQ(::chown(manifest.c_str(), nobody_uid(), ::getegid()), 0);
  auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  auto hit = cache->get_or_build(key, gxx_build(key, scratch));
  ASSERT_FALSE(hit.ok());
  EXPECT_NE(hit.status().message().find(manifest), std::string::npos) << hit.status().message();
  EXPECT_FALSE(exists(marker));
}

TEST(KernelTrustPaths, StickyWorldWritableFolderIsTrustedAndALinkIsNot) {
  TempDir d;
  const std::string sticky = d.dir("sticky");
  ASSERT_EQ(::chmod(sticky.c_str(), 01777), 0);  // as /tmp: others may add files, not replace ours
  EXPECT_TRUE(check_trusted_folder(sticky, "folder").ok());
  const std::string file = d.file("sticky/f", "x");
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  EXPECT_TRUE(check_trusted_file(file, "file").ok()) << check_trusted_file(file, "file").message();
  ASSERT_EQ(::symlink(file.c_str(), (sticky + "/link").c_str()), 0);
  const Status link = check_trusted_file(sticky + "/link", "file");
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.message().find("symbolic link"), std::string::npos) << link.message();
  ASSERT_EQ(::chmod(sticky.c_str(), 0777), 0);
  EXPECT_FALSE(check_trusted_file(file, "file").ok()) << "a world-writable folder without the sticky bit";
}

TEST(KernelTrustPaths, KnowledgeBaseOfAnotherUserIsNotRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "chown to another user needs root";
  TempDir d;
  aoe::KnowledgeEntry e;
  e.op_type = "Conv";
  e.variant = KernelVariant{};
  e.default_us = 2;
  e.tuned_us = 1;
  const std::string path = d.file(aoe::kKnowledgeBaseFile, aoe::KnowledgeBase::serialize({{"key", e}}));
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  const auto trusted = aoe::KnowledgeBase::load(path);
  ASSERT_EQ(trusted.problem(), "");
  EXPECT_EQ(trusted.size(), 1u) << "the control: this user's base is read";
  ASSERT_EQ(::chown(path.c_str(), nobody_uid(), ::getegid()), 0);
  const auto planted = aoe::KnowledgeBase::load(path);
  EXPECT_EQ(planted.size(), 0u);
  EXPECT_NE(planted.problem().find("not trusted"), std::string::npos) << planted.problem();
  EXPECT_NE(planted.problem().find(path), std::string::npos) << planted.problem();
  (void)::chown(path.c_str(), ::geteuid(), ::getegid());
}

// A knowledge base over the size limit (a sparse 300 MiB file: nothing is written) is not read:
// an empty base whose problem names the size and the limit. Just under the limit's form, a
// small valid base beside it is read (the control).
TEST(KernelTrustPaths, KnowledgeBaseOverTheSizeLimitIsNotRead) {
  TempDir d;
  aoe::KnowledgeEntry e;
  e.op_type = "Conv";
  e.variant = KernelVariant{};
  e.default_us = 2;
  e.tuned_us = 1;
  const std::string path = d.file(aoe::kKnowledgeBaseFile, aoe::KnowledgeBase::serialize({{"key", e}}));
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_EQ(aoe::KnowledgeBase::load(path).size(), 1u) << "the control";
  ASSERT_EQ(::truncate(path.c_str(), off_t{300} << 20), 0);
  const auto huge = aoe::KnowledgeBase::load(path);
  EXPECT_EQ(huge.size(), 0u);
  EXPECT_NE(huge.problem().find("314572800 bytes, over the 256 MiB"), std::string::npos) << huge.problem();
}

// A FIFO where a trusted file should be is refused by its mode, before anything opens it (an
// open of a FIFO would block until a writer came).
TEST(KernelTrustPaths, FifoKnowledgeBaseAndCacheEntryAreRefusedWithoutBlocking) {
  TempDir d;
  const std::string kb = d.path() + "/" + aoe::kKnowledgeBaseFile;
  ASSERT_EQ(::mkfifo(kb.c_str(), 0600), 0);
  const auto loaded = aoe::KnowledgeBase::load(kb);
  EXPECT_EQ(loaded.size(), 0u);
  EXPECT_NE(loaded.problem().find("not a regular file"), std::string::npos) << loaded.problem();

  const std::string root = d.path() + "/kernel_cache";
  auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B1", {});
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  const KernelKey k = probe_key("fifo_probe", 1);
  const std::string manifest = cache->soc_dir() + "/" + k.digest() + ".json";
  ASSERT_EQ(::mkfifo(manifest.c_str(), 0600), 0);
  auto hit = cache->get_or_build(k, gxx_build(k, d.dir("scratch")));
  ASSERT_FALSE(hit.ok());
  EXPECT_NE(hit.status().message().find("not a regular file"), std::string::npos) << hit.status().message();
  EXPECT_FALSE(SharedObject::open(manifest, "fifo_probe").ok());
}

}  // namespace
}  // namespace openge::compiler::test
