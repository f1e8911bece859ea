#include "profiling/clock.h"

#include <cstdio>

namespace openge::profiling {

std::string format_us(int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t a = negative ? static_cast<uint64_t>(-ns) : static_cast<uint64_t>(ns);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "", static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  return buf;
}

}  // namespace openge::profiling
