// The profiler's time base: a steady clock for every measurement (durations never jump), and an
// anchor that maps it onto the wall clock once per collection, so timestamps in the files are
// microseconds since the epoch as CANN writes them while staying monotonic.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace openge::profiling {

inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct ClockAnchor {
  int64_t steady_ns = 0;
  int64_t epoch_ns = 0;
  static ClockAnchor now() {
    ClockAnchor a;
    a.steady_ns = steady_now_ns();
    a.epoch_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    return a;
  }
  int64_t to_epoch_ns(int64_t steady) const { return epoch_ns + (steady - steady_ns); }
};

// Nanoseconds as microseconds with three decimals ("1736413971558972.912"), exact (no double).
std::string format_us(int64_t ns);

}  // namespace openge::profiling
