// host_sys / host_sys_usage: system and per-process CPU and memory read from /proc at
// host_sys_usage_freq Hz by one sleeping background thread (it does no compute, so it does not
// compete with the OpenMP pool).
#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "profiling/records.h"

namespace openge::profiling {

class HostSampler {
 public:
  HostSampler(bool cpu, bool mem, int freq_hz);
  ~HostSampler();
  void stop();
  // Samples taken since the last call.
  std::vector<HostSample> take();
  // One sample relative to the previous one (exposed for tests).
  HostSample sample_now();

 private:
  void loop();
  bool cpu_, mem_;
  int64_t period_ns_;
  uint64_t last_total_ = 0, last_idle_ = 0, last_proc_ = 0;
  int64_t last_time_ns_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<HostSample> samples_;
  std::thread thread_;
};

}  // namespace openge::profiling
