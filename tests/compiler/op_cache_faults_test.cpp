// Compile-cache faults (issue acceptance "cache faults"): a writer killed with SIGKILL mid-write,
// a full disk (a file-size limit, which needs no privileges), two processes forcing the same key
// at once, and the size limit with aging. After each, every entry of the folder is complete
// and matches its manifest, and no temporary file is left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cache_test_util.h"
#include "options/options_test_util.h"

namespace openge::compiler::test {
namespace {

using options::test::TempDir;

class OpCacheFaults : public ::testing::Test {
 protected:
  Result<OpCache> cache(CacheMode mode, CacheLimits limits = {}) {
    return OpCache::at(root, mode, "Ascend910B1", limits);
  }

  TempDir d;
  std::string scratch = d.dir("scratch");
  std::string root = d.path() + "/kernel_cache";
  const std::string& golden = golden_so();
};

// Waits for a child; its exit code, or 128 + signal.
int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(OpCacheFaults, CacheFault_KillMinus9MidWriteLeavesAConsistentCache) {
  const KernelKey k = probe_key("probe_golden", 7);
  // Twice: once with no entry yet, once while replacing one (force).
  for (CacheMode mode : {CacheMode::kEnable, CacheMode::kForce}) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(ready[0]);
      auto c = cache(mode);
      auto half = [&](const std::string& out) -> Status {
        std::ofstream f(out, std::ios::binary);
        f.write(golden.data(), static_cast<std::streamsize>(golden.size() / 2));
        f.flush();
        (void)!::write(ready[1], "x", 1);  // half written: the parent kills us now
        ::pause();
        return Status::Ok();
      };
      (void)c->get_or_build(k, half);
      ::_exit(0);
    }
    ::close(ready[1]);
    char x;
    ASSERT_EQ(::read(ready[0], &x, 1), 1);
    ::close(ready[0]);
    ::kill(child, SIGKILL);
    EXPECT_EQ(wait_child(child), 128 + SIGKILL);

    auto c = cache(CacheMode::kEnable);
    int compiles = 0;
    auto r = c->get_or_build(k, copy_build(golden, &compiles));
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (mode == CacheMode::kEnable) {
      EXPECT_EQ(r->miss_reason, "not in cache") << "a killed writer's half file must never be visible";
      EXPECT_EQ(compiles, 1);
    } else {
      EXPECT_TRUE(r->hit) << "the entry the killed force run was replacing stays intact: " << r->miss_reason;
    }
    EXPECT_EQ(read_bytes(r->so_path), golden);
    // The killed writer's temporary file goes at the next aging pass (its pid is gone).
    ASSERT_TRUE(c->age_entries().ok());
    EXPECT_EQ(folder_problems(c->soc_dir()), "");
  }
}

TEST_F(OpCacheFaults, CacheFault_DiskFullFailsCleanlyAndLeavesNothing) {
  const KernelKey k = probe_key("probe_full", 5);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(report[0]);
    // Writes past 4 KB fail with EFBIG, as writes to a full disk fail with ENOSPC; g++ and the
    // linker inherit the limit, and the shared object is larger than that.
    struct rlimit lim {
      4096, 4096
    };
    ::signal(SIGXFSZ, SIG_IGN);
    ::setrlimit(RLIMIT_FSIZE, &lim);
    auto c = cache(CacheMode::kEnable);
    auto r = c->get_or_build(k, gxx_build(k, scratch));
    const std::string msg = r.ok() ? "succeeded" : r.status().message();
    (void)!::write(report[1], msg.data(), msg.size());
    ::_exit(r.ok() ? 0 : 3);
  }
  ::close(report[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<size_t>(n));
  ::close(report[0]);
  EXPECT_EQ(wait_child(child), 3) << msg;
  EXPECT_NE(msg.find("compiling kernel probe_full"), std::string::npos) << msg;
  EXPECT_EQ(count_files(root + "/Ascend910B1"), 0) << "a failed build must leave nothing in the cache";
  // The same compile without the limit works and is cached.
  auto c = cache(CacheMode::kEnable);
  auto r = c->get_or_build(k, gxx_build(k, scratch));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(call_probe(r->so_path, "probe_full"), 5);
  EXPECT_EQ(folder_problems(c->soc_dir()), "");
}

TEST_F(OpCacheFaults, CacheFault_TwoProcessesForcingOneKeyNeverCorruptIt) {
  const KernelKey k = probe_key("probe_golden", 7);
  // Two force writers rebuild the key 15 times each (a fresh force cache each round), writing
  // slowly in pieces; a third process reads it in enable mode. Every shared object any of them
  // is handed must be complete.
  std::vector<pid_t> children;
  for (CacheMode mode : {CacheMode::kForce, CacheMode::kForce, CacheMode::kEnable}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int bad = 0;
      for (int round = 0; round < 15; ++round) {
        auto c = cache(mode);
        auto r = c->get_or_build(k, copy_build(golden, nullptr, 4, 200));
        if (!r.ok() || read_bytes(r->so_path) != golden) ++bad;
      }
      ::_exit(bad == 0 ? 0 : 1);
    }
    children.push_back(child);
  }
  for (pid_t child : children) EXPECT_EQ(wait_child(child), 0) << "a process was handed a broken shared object";
  auto c = cache(CacheMode::kEnable);
  ASSERT_TRUE(c->age_entries().ok());
  EXPECT_EQ(folder_problems(c->soc_dir()), "");
  EXPECT_EQ(count_files(c->soc_dir()), 2);
  auto r = c->get_or_build(k, copy_build(golden));
  EXPECT_TRUE(r->hit);
  EXPECT_EQ(call_probe(r->so_path, "probe_golden"), 7);
}

// The compiler builds kernels on several threads of one process: the same, with threads.
TEST_F(OpCacheFaults, CacheFault_ThreadsForcingOneKeyNeverCorruptIt) {
  const KernelKey k = probe_key("probe_golden", 7);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (CacheMode mode : {CacheMode::kForce, CacheMode::kForce, CacheMode::kEnable, CacheMode::kEnable})
    threads.emplace_back([this, mode, &k, &bad] {
      for (int round = 0; round < 10; ++round) {
        auto c = cache(mode);
        auto r = c->get_or_build(k, copy_build(golden, nullptr, 4, 100));
        if (!r.ok() || read_bytes(r->so_path) != golden) ++bad;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0) << "a thread was handed a broken shared object";
  auto c = cache(CacheMode::kEnable);
  EXPECT_EQ(folder_problems(c->soc_dir()), "");
  EXPECT_EQ(count_files(c->soc_dir()), 2);
}

// OPT-op_compiler_cache_mode-14 / docs/FORMATS.md, "Compile cache": over the limit, entries unused for 30
// minutes are removed, least recently used first, down to the kept share of the limit; entries
// used within 30 minutes stay even when the folder is still over the limit.
TEST_F(OpCacheFaults, OPT_op_compiler_cache_mode_14_SizeLimitAgesEntriesUnusedFor30Minutes) {
  CacheLimits limits;
  limits.max_bytes = 1 << 20;  // 1 MB
  limits.remain_ratio_percent = 50;
  auto c = cache(CacheMode::kEnable, limits);
  std::string big = golden;
  big.resize(300 * 1024, '\0');  // 300 KB entries: three fit, the fourth is over 1 MB
  std::vector<KernelKey> keys;
  for (int i = 0; i < 5; ++i) keys.push_back(probe_key("probe_" + std::to_string(i), i));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(c->get_or_build(keys[i], copy_build(big)).ok());
  // Over the limit, but every entry is fresh: nothing goes.
  EXPECT_EQ(count_files(c->soc_dir()), 8);

  // Entries 0, 1, 2 were last used 40, 50 and 35 minutes ago; then entry 2 is used again (a hit).
  const auto now = fs::file_time_type::clock::now();
  const int minutes_ago[] = {40, 50, 35};
  for (int i = 0; i < 3; ++i)
    for (const char* ext : {".so", ".json"})
      fs::last_write_time(c->soc_dir() + "/" + keys[i].digest() + ext, now - std::chrono::minutes(minutes_ago[i]));
  EXPECT_TRUE(c->get_or_build(keys[2], copy_build(big))->hit);

  // The fifth entry: 5 x 300 KB = 1.5 MB > 1 MB. Unused for 30 minutes: 1 (50 min), then 0 (40 min).
  // Removing both leaves 900 KB, above the kept 512 KB, but the rest were used recently and stay.
  ASSERT_TRUE(c->get_or_build(keys[4], copy_build(big)).ok());
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(fs::exists(c->soc_dir() + "/" + keys[i].digest() + ".so"), i >= 2) << "entry " << i;
  EXPECT_EQ(folder_problems(c->soc_dir()), "");
  EXPECT_EQ(count_files(c->soc_dir()), 6);

  // Under the limit, old entries are kept.
  limits.max_bytes = 10 << 20;
  auto roomy = cache(CacheMode::kEnable, limits);
  fs::last_write_time(c->soc_dir() + "/" + keys[3].digest() + ".json", now - std::chrono::hours(5));
  EXPECT_EQ(*roomy->age_entries(), 0);
  EXPECT_EQ(count_files(c->soc_dir()), 6);
}

}  // namespace
}  // namespace openge::compiler::test
