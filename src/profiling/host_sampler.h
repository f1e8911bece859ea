// host_sys / host_sys_usage: system and per-process CPU and memory read from /proc at
// host_sys_usage_freq Hz (host_sys_usage also every process of the system, from /proc/<pid>/stat),
// and sys_io_sampling_freq: every network interface's counters of
// /proc/net/dev at its own rate, by one sleeping background thread (it does no compute, so it
// does not compete with the OpenMP pool).
#pragma once
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profiling/records.h"

namespace openge::profiling {

// One process of the system at one sample (host_sys_usage): its CPU share of all CPUs' time
// since the previous sample (-1 for its first sample or without cpu) and its resident memory.
struct ProcessSample {
  int64_t time_ns = 0;
  long pid = 0;
  std::string name;
  double cpu_percent = -1;
  int64_t rss_kb = -1;
};

class HostSampler {
 public:
  // nic_freq_hz 0: no NIC samples; all_processes: each sample also reads every process.
  HostSampler(bool cpu, bool mem, int freq_hz, int nic_freq_hz = 0, bool all_processes = false);
  ~HostSampler();
  void stop();
  // Samples taken since the last call.
  std::vector<HostSample> take();
  std::vector<NicSample> take_nic();
  std::vector<ProcessSample> take_processes();
  // One sample relative to the previous one (exposed for tests).
  HostSample sample_now();
  std::vector<ProcessSample> sample_processes_now();
  std::vector<NicSample> sample_nic_now();

 private:
  void loop();
  bool cpu_, mem_, all_processes_;
  int64_t period_ns_, nic_period_ns_;
  int64_t next_host_ns_ = 0, next_nic_ns_ = 0;
  struct NicCounters {
    uint64_t rx_bytes = 0, rx_packets = 0, rx_errors = 0, rx_dropped = 0;
    uint64_t tx_bytes = 0, tx_packets = 0, tx_errors = 0, tx_dropped = 0;
  };
  std::map<std::string, NicCounters> last_nic_;
  int64_t last_nic_time_ns_ = 0;
  std::vector<NicSample> nic_samples_;
  uint64_t last_total_ = 0, last_idle_ = 0, last_proc_ = 0;
  uint64_t processes_last_total_ = 0;              // system jiffies at the last process scan
  std::map<long, uint64_t> last_process_jiffies_;  // pid -> utime + stime then
  std::vector<ProcessSample> process_samples_;
  int64_t last_time_ns_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<HostSample> samples_;
  std::thread thread_;
};

}  // namespace openge::profiling
