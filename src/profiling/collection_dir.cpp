#include "profiling/collection_dir.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <system_error>

#include "io/atomic_file.h"
#include "io/stale_temporaries.h"
#include "base/file_modes.h"

namespace openge::profiling {
namespace fs = std::filesystem;

std::string collection_dir_name() {
  static std::atomic<int> job{0};
  const int number = ++job % 1000000;
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const int ms =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm local{};
  localtime_r(&secs, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &local);
  static const char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::random_device rd;
  std::string random;
  for (int i = 0; i < 10; ++i) random += kLetters[rd() % 26];
  char name[96];
  std::snprintf(name, sizeof name, "PROF_%06d_%s%03d_%s", number, stamp, ms, random.c_str());
  return name;
}

Result<std::string> create_collection_dir(const std::string& parent, int device_id, const std::string& start_info) {
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    return invalid_argument("profiling output folder '" + parent + "' does not exist; create it first");
  if (::access(parent.c_str(), R_OK | W_OK | X_OK) != 0)
    return invalid_argument("profiling output folder '" + parent +
                            "' is not writable by this user: " + std::strerror(errno));
  const std::string name = collection_dir_name();
  // "<name>.tmp.<pid>": a run killed before the rename leaves a temporary the next run removes,
  // as it removes the temporaries a killed run left inside its PROF_ folders (their files are
  // written atomically, and no later process writes into another's PROF_ folder).
  remove_dead_temporaries_below(parent, 4);
  const fs::path tmp = fs::path(parent) / ("." + name + ".tmp." + std::to_string(::getpid()));
  const fs::path final_path = fs::path(parent) / name;
  const std::string device = "device_" + std::to_string(device_id);
  auto fail = [&](const std::string& what) -> Status {
    fs::remove_all(tmp, ec);
    return io_error("cannot create the profiling folder " + final_path.string() + ": " + what);
  };
  for (const fs::path& sub : {tmp / device / "data", tmp / "host" / "data", tmp / "mindstudio_profiler_output",
                              tmp / "mindstudio_profiler_log"}) {
    if (Status made = make_directories(sub.string(), kFolderMode); !made.ok()) return fail(made.message());
  }
  Status s = write_file_atomically((tmp / device / ("start_info." + std::to_string(device_id))).string(), start_info);
  if (s.ok()) s = write_file_atomically((tmp / "host" / "start_info").string(), start_info);
  if (!s.ok()) return fail(s.message());
  fs::rename(tmp, final_path, ec);
  if (ec) return fail(ec.message());
  return final_path.string();
}

}  // namespace openge::profiling
