// Leftovers of killed writers (io/stale_temporaries.h): a real child process writing a file with
// write_file_atomically is killed with SIGKILL while it writes; its "<name>.tmp.<pid>" stays
// (nothing in a killed process can remove it), and the next process that writes into the folder
// removes it, while the temporaries of live processes and files of other forms stay.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string_view>
#include <thread>
#include <vector>

#include "io/atomic_file.h"
#include "io/stale_temporaries.h"
#include "options/options_test_util.h"

namespace openge {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// A child that writes a 4 GiB file through write_file_atomically (it is killed long before).
pid_t start_endless_writer(const std::string& path) {
  static const std::string block(1 << 20, 'x');
  const std::vector<std::string_view> pieces(4096, std::string_view(block));
  const pid_t pid = ::fork();
  if (pid == 0) {
    (void)write_file_atomically(path, pieces);
    ::_exit(0);
  }
  return pid;
}

TEST(StaleTemporaries, NameFormsAndLiveness) {
  EXPECT_EQ(temporary_owner_pid("model.oge.tmp.1234"), 1234);
  EXPECT_EQ(temporary_owner_pid("model.oge.tmp."), -1);
  EXPECT_EQ(temporary_owner_pid("model.oge.tmp.12x"), -1);
  EXPECT_EQ(temporary_owner_pid("model.oge"), -1);
  EXPECT_EQ(temporary_owner_pid(".tmp.host.12.0.abcd"), -1) << "the compile cache's own form ages elsewhere";
  EXPECT_EQ(temporary_owner_pid("x.tmp.99999999999999999999"), -1) << "no overflow";
  EXPECT_TRUE(process_alive(::getpid()));
  EXPECT_FALSE(process_alive(-1));
}

TEST(StaleTemporaries, TemporaryOfAWriterKilledWithSigkillIsRemovedByTheNextWrite) {
  TempDir d;
  const std::string target = d.path() + "/model.oge";
  const pid_t child = start_endless_writer(target);
  ASSERT_GT(child, 0);
  const std::string leftover = target + ".tmp." + std::to_string(child);
  bool writing = false;
  for (int i = 0; i < 30000 && !writing; ++i) {  // up to 30 s on a loaded machine
    std::error_code ec;
    writing = exists(leftover) && fs::file_size(leftover, ec) > 0;
    if (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(writing) << "the child never started writing " << leftover;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  ASSERT_TRUE(exists(leftover)) << "SIGKILL runs no handler: the temporary must be left";
  EXPECT_FALSE(exists(target)) << "a killed writer never publishes a partial file";

  // A temporary of a live process (a sleeping child), and a file that only looks similar.
  const pid_t sleeper = ::fork();
  if (sleeper == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::string live = d.file("other.bin.tmp." + std::to_string(sleeper), "live");
  const std::string unrelated = d.file("notes.tmp.txt", "keep");

  ASSERT_TRUE(write_file_atomically(d.path() + "/next.bin", "next run").ok());
  EXPECT_FALSE(exists(leftover)) << "the killed writer's temporary outlived the next write into the folder";
  EXPECT_TRUE(exists(live)) << "a live writer's temporary was removed";
  EXPECT_TRUE(exists(unrelated));
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, &status, 0);
}

}  // namespace
}  // namespace openge
