#include "logging/log_line.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

namespace openge::logging {
namespace {

std::tm local_time(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  return tm;
}

long micros_of_second(std::chrono::system_clock::time_point when) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(when.time_since_epoch()).count();
  return static_cast<long>(((us % 1000000) + 1000000) % 1000000);
}

// The caller's path inside src/ ("session/session.cpp", as CANN's "graph/manager.cc"), or from
// tools/ on, so lines do not carry the build machine's paths.
std::string_view short_path(const char* file) {
  std::string_view f = file ? file : "";
  if (const auto at = f.rfind("src/"); at != std::string_view::npos && (at == 0 || f[at - 1] == '/'))
    return f.substr(at + 4);
  if (const auto at = f.rfind("tools/"); at != std::string_view::npos && (at == 0 || f[at - 1] == '/'))
    return f.substr(at);
  return f;
}

void append_escaped(std::string& out, std::string_view text) {
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 && c != '\t') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
}

}  // namespace

const char* level_name(Level level) {
  switch (level) {
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO";
    case Level::kWarning:
      return "WARNING";
    case Level::kError:
      return "ERROR";
  }
  return "?";
}

const char* process_name() { return program_invocation_short_name; }

std::string format_line(Level level, std::string_view module, const char* file, int line, std::string_view message,
                        std::chrono::system_clock::time_point when) {
  const std::tm tm = local_time(when);
  const long us = micros_of_second(when);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us / 1000, us % 1000);
  std::string out;
  out.reserve(64 + message.size());
  out += '[';
  out += level_name(level);
  out += "] ";
  out += module;
  out += '(' + std::to_string(::getpid()) + ',' + process_name() + "):" + stamp + " [";
  out += short_path(file);
  out += ':' + std::to_string(line) + ']';
  append_escaped(out, message);
  return out;
}

std::string file_timestamp(std::chrono::system_clock::time_point when) {
  const std::tm tm = local_time(when);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d%02d%02d%02d%02d%02d%03ld", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, micros_of_second(when) / 1000);
  return stamp;
}

}  // namespace openge::logging
