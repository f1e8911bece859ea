// Modes of what the engine creates do not depend on the umask (base/file_modes.h): under umask 000,
// set in this test process and inherited by the CLI it starts, folders are 0750, data files 0640,
// compiled kernels 0750, dumps and external weights 0700 / 0600, and nothing any of them creates
// is writable by group or others.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../compiler/cache_test_util.h"
#include "base/file_modes.h"
#include "io/atomic_file.h"
#include "io/file_lock.h"
#include "options/options_test_util.h"

namespace openge {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

mode_t mode_of(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

// Sets the umask for the scope of one test.
class Umask {
 public:
  explicit Umask(mode_t mask) : previous_(::umask(mask)) {}
  ~Umask() { ::umask(previous_); }

 private:
  mode_t previous_;
};

// Every file and folder below `root` that group or others may write, with its mode.
std::vector<std::string> writable_by_others(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const mode_t m = mode_of(it->path().string());
    if (!it->is_symlink() && (m & (S_IWGRP | S_IWOTH))) {
      char octal[8];
      std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(m));
      out.push_back(it->path().string() + " " + octal);
    }
  }
  return out;
}

TEST(FileModes, HelpersSetExplicitModesUnderUmask000) {
  TempDir d;
  Umask open_umask(0);
  ASSERT_TRUE(make_directories(d.path() + "/a/b/c").ok());
  for (const char* f : {"/a", "/a/b", "/a/b/c"}) EXPECT_EQ(mode_of(d.path() + f), 0750u) << f;
  ASSERT_TRUE(make_directories(d.path() + "/p/q", kPrivateFolderMode).ok());
  EXPECT_EQ(mode_of(d.path() + "/p/q"), 0700u);
  ASSERT_TRUE(write_file_atomically(d.path() + "/a/data.json", "{}").ok());
  EXPECT_EQ(mode_of(d.path() + "/a/data.json"), 0640u);
  ASSERT_TRUE(write_file_atomically(d.path() + "/a/dump.bin", "t", kPrivateFileMode).ok());
  EXPECT_EQ(mode_of(d.path() + "/a/dump.bin"), 0600u);
  {
    auto lock = FileLock::acquire(d.path() + "/a/.lock", true);
    ASSERT_TRUE(lock.ok());
  }
  EXPECT_EQ(mode_of(d.path() + "/a/.lock"), 0640u);
}

TEST(FileModes, CompileCacheEntriesUnderUmask000) {
  TempDir d;
  Umask open_umask(0);
  const std::string root = d.path() + "/cache/kernel_cache";
  auto cache = compiler::OpCache::at(root, compiler::CacheMode::kEnable, "Ascend910B1", {});
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  // g++ creates its output with 0777 minus the umask: 0777 here, until the cache sets the mode.
  const compiler::KernelKey k = compiler::test::probe_key("mode_probe", 3);
  auto built = cache->get_or_build(k, compiler::test::gxx_build(k, d.dir("scratch")));
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_EQ(mode_of(built->so_path), kSharedObjectMode);
  EXPECT_EQ(mode_of(fs::path(built->so_path).replace_extension(".json").string()), kDataFileMode);
  EXPECT_EQ(mode_of(fs::path(built->so_path).parent_path().string()), kFolderMode);
  EXPECT_EQ(writable_by_others(d.path() + "/cache"), std::vector<std::string>{});
  // And the cache loads what it made (its own trust check accepts its own modes).
  auto again = cache->get_or_build(k, compiler::test::gxx_build(k, d.path() + "/scratch"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->hit);
}

// The CLI, started from this process under umask 000, with every artifact it can write at once:
// plogs, graph dumps, Data Dump, profiling, external weights, outputs, and the compiled model.
TEST(FileModes, NothingTheCliCreatesIsWritableByOthersUnderUmask000) {
  TempDir d;
  const std::string work = d.dir("work");
  d.dir("work/prof");  // the profiling output and dump folders must exist (the options' rules)
  d.dir("work/dump");
  auto start = [&](const std::vector<std::string>& args) {
    Umask open_umask(0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::chdir(work.c_str()) != 0) ::_exit(125);
      std::vector<char*> argv{const_cast<char*>(OPENGE_CLI)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      const std::string home = "HOME=" + work, log = "ASCEND_PROCESS_LOG_PATH=" + work + "/logs",
                        graphs = "DUMP_GRAPH_PATH=" + work + "/graphs";
      char* envp[] = {const_cast<char*>(home.c_str()),
                      const_cast<char*>("PATH=/usr/bin:/bin"),
                      const_cast<char*>(log.c_str()),
                      const_cast<char*>("DUMP_GE_GRAPH=2"),
                      const_cast<char*>(graphs.c_str()),
                      const_cast<char*>("ASCEND_GLOBAL_LOG_LEVEL=1"),
                      nullptr};
      const int null_fd = ::open("/dev/null", O_WRONLY);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
      ::execve(OPENGE_CLI, argv.data(), envp);
      ::_exit(126);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
  };
  const std::string model = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";
  int status = start({"run",
                      "--model",
                      model,
                      "--threads",
                      "1",
                      "--outputs",
                      work + "/out/deep",
                      "--profile",
                      "--profile-options",
                      "{\"output\":\"" + work + "/prof\",\"task_trace\":\"on\",\"training_trace\":\"on\"}",
                      "--option",
                      "external_weight=True",
                      "--option",
                      "dump_config.enable_dump=True",
                      "--option",
                      "dump_config.dump_path=" + work + "/dump",
                      "--option",
                      "jit_compile=true",
                      "--option",
                      "op_compiler_cache_dir=" + work + "/cache"});
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  status = start({"compile", "--model", model, "--output", work + "/demo.oge"});
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // What the runs must have made, so the check below is not vacuous.
  for (const char* made : {"/out/deep", "/prof", "/dump", "/logs", "/graphs"})
    EXPECT_TRUE(fs::is_directory(work + made) && !fs::is_empty(work + made)) << made;
  EXPECT_TRUE(fs::exists(work + "/demo.oge"));
  EXPECT_EQ(writable_by_others(work), std::vector<std::string>{});
}

}  // namespace
}  // namespace openge
