#include "profiling/host_sampler.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "profiling/clock.h"

namespace openge::profiling {
namespace {

// /proc/stat "cpu" line: total and idle (idle + iowait) jiffies.
bool read_system_cpu(uint64_t& total, uint64_t& idle) {
  std::ifstream f("/proc/stat");
  std::string cpu;
  uint64_t v[10] = {};
  if (!(f >> cpu) || cpu != "cpu") return false;
  total = 0;
  for (int i = 0; i < 10 && f >> v[i]; ++i) total += v[i];
  idle = v[3] + v[4];
  return total > 0;
}

// utime + stime of this process (fields 14 and 15 of /proc/self/stat), in jiffies.
uint64_t read_process_cpu() {
  std::ifstream f("/proc/self/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto close = s.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(s.substr(close + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

int64_t meminfo_kb(const std::string& text, const char* key) {
  const auto p = text.find(key);
  if (p == std::string::npos) return -1;
  return std::atoll(text.c_str() + p + std::char_traits<char>::length(key));
}

}  // namespace

HostSampler::HostSampler(bool cpu, bool mem, int freq_hz)
    : cpu_(cpu), mem_(mem), period_ns_(1000000000LL / std::max(1, freq_hz)) {
  sample_now();  // baseline for the first CPU percentage
  thread_ = std::thread([this] { loop(); });
}

HostSampler::~HostSampler() { stop(); }

void HostSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HostSampler::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::nanoseconds(period_ns_), [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    HostSample s = sample_now();
    lock.lock();
    samples_.push_back(s);
  }
}

HostSample HostSampler::sample_now() {
  HostSample s;
  s.time_ns = steady_now_ns();
  if (cpu_) {
    uint64_t total = 0, idle = 0;
    const uint64_t proc = read_process_cpu();
    if (read_system_cpu(total, idle)) {
      if (last_total_ && total > last_total_) {
        const double dt = static_cast<double>(total - last_total_);
        s.cpu_total_percent = 100.0 * (dt - static_cast<double>(idle - last_idle_)) / dt;
        // Process share of all CPUs' time (100 % = every core busy for this process).
        s.cpu_process_percent = 100.0 * static_cast<double>(proc - last_proc_) / dt;
      }
      last_total_ = total;
      last_idle_ = idle;
      last_proc_ = proc;
    }
  }
  if (mem_) {
    std::ifstream f("/proc/meminfo");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const int64_t total = meminfo_kb(text, "MemTotal:"), avail = meminfo_kb(text, "MemAvailable:");
    if (total > 0 && avail >= 0) s.mem_used_percent = 100.0 * static_cast<double>(total - avail) / static_cast<double>(total);
    std::ifstream st("/proc/self/status");
    std::string status((std::istreambuf_iterator<char>(st)), std::istreambuf_iterator<char>());
    s.process_rss_kb = meminfo_kb(status, "VmRSS:");
  }
  last_time_ns_ = s.time_ns;
  return s;
}

std::vector<HostSample> HostSampler::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<HostSample> out;
  out.swap(samples_);
  return out;
}

}  // namespace openge::profiling
