#include "profiling/host_sampler.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <climits>
#include <optional>
#include <utility>
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

// One /proc/<pid>/stat: the name (comm), utime + stime (fields 14, 15) and rss (field 24, pages).
bool read_process_stat(const std::string& path, std::string& name, uint64_t& jiffies, int64_t& rss_pages) {
  std::ifstream f(path);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto open = s.find('('), close = s.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open || close + 2 > s.size()) return false;
  name = s.substr(open + 1, close - open - 1);
  std::istringstream rest(s.substr(close + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  rss_pages = -1;
  for (int i = 3; i <= 24 && rest >> field; ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 24) rss_pages = std::strtoll(field.c_str(), nullptr, 10);
  }
  jiffies = utime + stime;
  return rss_pages >= 0;
}

int64_t meminfo_kb(const std::string& text, const char* key) {
  const auto p = text.find(key);
  if (p == std::string::npos) return -1;
  return std::atoll(text.c_str() + p + std::char_traits<char>::length(key));
}

}  // namespace

HostSampler::HostSampler(bool cpu, bool mem, int freq_hz, int nic_freq_hz, bool all_processes)
    : cpu_(cpu),
      mem_(mem),
      all_processes_(all_processes && (cpu || mem)),
      period_ns_(cpu || mem ? 1000000000LL / std::max(1, freq_hz) : 0),
      nic_period_ns_(nic_freq_hz > 0 ? 1000000000LL / nic_freq_hz : 0) {
  if (period_ns_) sample_now();  // baseline for the first CPU percentage
  if (all_processes_) sample_processes_now();
  if (nic_period_ns_) sample_nic_now();  // baseline for the first rates
  next_host_ns_ = steady_now_ns() + period_ns_;
  next_nic_ns_ = steady_now_ns() + nic_period_ns_;
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
    // Wake for whichever of the two samples is due first.
    int64_t next = INT64_MAX;
    if (period_ns_) next = std::min(next, next_host_ns_);
    if (nic_period_ns_) next = std::min(next, next_nic_ns_);
    if (next == INT64_MAX) break;
    wake_.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(0, next - steady_now_ns())),
                   [this] { return stopping_; });
    if (stopping_) break;
    const int64_t now = steady_now_ns();
    lock.unlock();
    std::optional<HostSample> host;
    std::vector<NicSample> nic;
    std::vector<ProcessSample> processes;
    if (period_ns_ && now >= next_host_ns_) {
      host = sample_now();
      if (all_processes_) processes = sample_processes_now();
      next_host_ns_ = now + period_ns_;
    }
    if (nic_period_ns_ && now >= next_nic_ns_) {
      nic = sample_nic_now();
      next_nic_ns_ = now + nic_period_ns_;
    }
    lock.lock();
    if (host) samples_.push_back(*host);
    process_samples_.insert(process_samples_.end(), std::make_move_iterator(processes.begin()),
                            std::make_move_iterator(processes.end()));
    nic_samples_.insert(nic_samples_.end(), nic.begin(), nic.end());
  }
}

std::vector<NicSample> HostSampler::sample_nic_now() {
  // /proc/net/dev: two header lines, then "iface: rx bytes packets errs drop fifo frame compressed
  // multicast tx bytes packets errs drop ...".
  std::ifstream f("/proc/net/dev");
  std::string line;
  std::vector<NicSample> out;
  const int64_t now = steady_now_ns();
  const double seconds = last_nic_time_ns_ ? static_cast<double>(now - last_nic_time_ns_) / 1e9 : 0;
  for (int n = 0; std::getline(f, line); ++n) {
    const auto colon = line.find(':');
    if (n < 2 || colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    std::istringstream fields(line.substr(colon + 1));
    uint64_t v[16] = {};
    int got = 0;
    while (got < 16 && fields >> v[got]) ++got;
    if (got < 12) continue;
    const NicCounters c{v[0], v[1], v[2], v[3], v[8], v[9], v[10], v[11]};
    auto last = last_nic_.find(name);
    if (last != last_nic_.end() && seconds > 0) {
      const NicCounters& p = last->second;
      auto delta = [](uint64_t a, uint64_t b) { return a >= b ? static_cast<double>(a - b) : 0.0; };
      auto percent = [](double part, double all) { return all > 0 ? 100.0 * part / all : 0.0; };
      NicSample s;
      s.time_ns = now;
      s.interface = name;
      s.rx_mb_per_s = delta(c.rx_bytes, p.rx_bytes) / seconds / 1e6;
      s.tx_mb_per_s = delta(c.tx_bytes, p.tx_bytes) / seconds / 1e6;
      const double rx_packets = delta(c.rx_packets, p.rx_packets), tx_packets = delta(c.tx_packets, p.tx_packets);
      s.rx_packets_per_s = rx_packets / seconds;
      s.tx_packets_per_s = tx_packets / seconds;
      s.rx_error_percent = percent(delta(c.rx_errors, p.rx_errors), rx_packets);
      s.rx_dropped_percent = percent(delta(c.rx_dropped, p.rx_dropped), rx_packets);
      s.tx_error_percent = percent(delta(c.tx_errors, p.tx_errors), tx_packets);
      s.tx_dropped_percent = percent(delta(c.tx_dropped, p.tx_dropped), tx_packets);
      out.push_back(std::move(s));
    }
    last_nic_[name] = c;
  }
  last_nic_time_ns_ = now;
  return out;
}

std::vector<NicSample> HostSampler::take_nic() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(nic_samples_, {});
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
    if (total > 0 && avail >= 0)
      s.mem_used_percent = 100.0 * static_cast<double>(total - avail) / static_cast<double>(total);
    std::ifstream st("/proc/self/status");
    std::string status((std::istreambuf_iterator<char>(st)), std::istreambuf_iterator<char>());
    s.process_rss_kb = meminfo_kb(status, "VmRSS:");
  }
  last_time_ns_ = s.time_ns;
  return s;
}

// Every numeric folder of /proc: a process of the system (those that end while being read are
// skipped). The CPU share is against all CPUs' time, as the process column of host_cpu_usage.
std::vector<ProcessSample> HostSampler::sample_processes_now() {
  std::vector<ProcessSample> out;
  const int64_t now = steady_now_ns();
  uint64_t total = 0, idle = 0;
  const bool have_total = cpu_ && read_system_cpu(total, idle);
  const double dt = have_total && processes_last_total_ && total > processes_last_total_
                        ? static_cast<double>(total - processes_last_total_)
                        : 0.0;
  const int64_t page_kb = std::max<long>(1, ::sysconf(_SC_PAGESIZE) / 1024);
  std::map<long, uint64_t> jiffies_now;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    ProcessSample s;
    s.time_ns = now;
    s.pid = std::atol(name.c_str());
    uint64_t jiffies = 0;
    int64_t rss_pages = -1;
    if (!read_process_stat(entry.path().string() + "/stat", s.name, jiffies, rss_pages)) continue;
    if (cpu_) {
      jiffies_now[s.pid] = jiffies;
      auto last = last_process_jiffies_.find(s.pid);
      if (dt > 0 && last != last_process_jiffies_.end() && jiffies >= last->second)
        s.cpu_percent = 100.0 * static_cast<double>(jiffies - last->second) / dt;
    }
    if (mem_) s.rss_kb = rss_pages * page_kb;
    out.push_back(std::move(s));
  }
  last_process_jiffies_ = std::move(jiffies_now);
  if (have_total) processes_last_total_ = total;
  return out;
}

std::vector<ProcessSample> HostSampler::take_processes() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(process_samples_, {});
}

std::vector<HostSample> HostSampler::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<HostSample> out;
  out.swap(samples_);
  return out;
}

}  // namespace openge::profiling
