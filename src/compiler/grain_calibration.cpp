#include "compiler/grain_calibration.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "base/cpu_features.h"
#include "base/omp_threads.h"
#include "compiler/op_cache.h"
#include "compiler/op_grain.h"
#include "logging/log.h"
#include "openge/files.h"
#include "options/option_set.h"

namespace openge::compiler {
namespace {

constexpr const char* kModule = "GE";
constexpr const char* kFormatLine = "openge thread calibration 1";

// The tenth percentile of empty parallel regions run back to back for `probe`: the regions whose
// workers were on a core, which a probe on a loaded machine still sees.
double low_fork_join_us(int threads, std::chrono::microseconds probe) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> us;
  us.reserve(2048);
  const Clock::time_point start = Clock::now();
  for (Clock::time_point t0 = start; t0 - start < probe;) {
#pragma omp parallel num_threads(threads)
    { [[maybe_unused]] volatile int touch = omp_get_thread_num(); }
    const Clock::time_point t1 = Clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    t0 = t1;
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 10];
}

std::string read_text(const std::string& path, bool& exists) {
  std::ifstream in(path, std::ios::binary);
  exists = static_cast<bool>(in);
  if (!exists) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string cpu_identity() {
  std::string model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
    break;
  }
  std::string identity = model + " |";
  for (const std::string& f : cpu_features()) identity += " " + f;
  return identity;
}

std::string calibration_path(const std::string& cache_root, int threads) {
  return cache_root + "/thread_calibration_" + std::to_string(threads) + ".txt";
}

std::string calibration_text(const std::string& cpu, int threads, double fork_join_us) {
  char us[32];
  std::snprintf(us, sizeof us, "%.3f", fork_join_us);
  return std::string(kFormatLine) + "\ncpu " + cpu + "\nthreads " + std::to_string(threads) + "\nfork_join_us " + us +
         "\n";
}

Result<double> parse_calibration(const std::string& text, const std::string& cpu, int threads) {
  std::istringstream in(text);
  std::string format, cpu_line, threads_line, us_line;
  std::getline(in, format);
  std::getline(in, cpu_line);
  std::getline(in, threads_line);
  std::getline(in, us_line);
  if (format != kFormatLine) return invalid_argument("its first line is not '" + std::string(kFormatLine) + "'");
  if (cpu_line != "cpu " + cpu) return invalid_argument("it was made on another CPU (" + cpu_line + ")");
  if (threads_line != "threads " + std::to_string(threads))
    return invalid_argument("it was made for another thread count (" + threads_line + ")");
  const std::string prefix = "fork_join_us ";
  if (us_line.rfind(prefix, 0) != 0) return invalid_argument("it has no 'fork_join_us' line");
  const std::string number = us_line.substr(prefix.size());
  char* end = nullptr;
  const double us = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(us) || us <= 0 || us > 1e6)
    return invalid_argument("its fork_join_us '" + number + "' is not a number of microseconds in (0, 1e6]");
  return us;
}

double calibrate_fork_join_us(int threads) {
  // Several short probes with pauses between them, each's tenth percentile: a probe that ran while
  // other processes held the cores measures their slices in most regions (the lowest median of 8
  // probes, at a load average of 20 on 2 cores, was over 350 us and put the grain at its top); the
  // lowest percentile is the cost of the team itself.
  constexpr int kProbes = 8;
  constexpr auto kProbe = std::chrono::microseconds(5000);
  constexpr auto kPause = std::chrono::milliseconds(2);
  ScopedNumThreads scoped(threads);
  // The first regions start the team's workers: not what a run between two nodes pays.
  for (int i = 0; i < 2; ++i) {
#pragma omp parallel num_threads(threads)
    { [[maybe_unused]] volatile int touch = omp_get_thread_num(); }
  }
  double lowest = 0;
  for (int p = 0; p < kProbes; ++p) {
    const double low = low_fork_join_us(threads, kProbe);
    lowest = p == 0 ? low : std::min(lowest, low);
    std::this_thread::sleep_for(kPause);
  }
  return lowest;
}

namespace {

ThreadingGrain grain_of(double fork_join_us) {
  ThreadingGrain grain;
  grain.fork_join_us = fork_join_us;
  grain.cycles = grain_for_fork_join(fork_join_us);
  return grain;
}

// The calibration in `root` for `threads`, made and written there when missing or unusable.
double read_or_calibrate(const std::string& root, int threads) {
  const std::string path = calibration_path(root, threads);
  const std::string cpu = cpu_identity();
  bool exists = false;
  const std::string text = read_text(path, exists);
  if (exists) {
    auto us = parse_calibration(text, cpu, threads);
    if (us.ok()) return *us;
    OPENGE_LOG_WARNING(kModule, "thread calibration " + path + " ignored: " + us.status().message() +
                                    "; calibrating this machine again");
  }
  const double us = calibrate_fork_join_us(threads);
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  const Status written = write_file_atomically(path, calibration_text(cpu, threads, us));
  if (written.ok()) {
    OPENGE_LOG_INFO(kModule, "thread calibration: a team fork/join of " + std::to_string(threads) + " threads costs " +
                                 std::to_string(us) + " us on this machine, kept in " + path);
  } else {
    OPENGE_LOG_WARNING(kModule, "thread calibration not kept (" + written.message() +
                                    "): the next process calibrates again and may plan differently");
  }
  return us;
}

}  // namespace

std::string grain_cache_root(const options::OptionSet& options) {
  auto settings = OpCache::settings_from_options(options);
  // A cache setting that does not resolve is the online compiler's error to report.
  return settings.ok() && settings->mode != CacheMode::kDisable ? settings->root : "";
}

ThreadingGrain calibrated_threading_grain(int threads, const std::string& root) {
  if (root.empty()) return grain_of(kDefaultForkJoinUs);
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, double> known;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(root, threads);
  auto it = known.find(key);
  if (it == known.end()) it = known.emplace(key, read_or_calibrate(root, threads)).first;
  return grain_of(it->second);
}

}  // namespace openge::compiler
