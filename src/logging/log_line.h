// CANN's log line and log file names (docs/FORMATS.md, "Logs: plog and atrace"), apart from the logger's state so that
// the format has one home.
#pragma once
#include <chrono>
#include <string>
#include <string_view>

#include "logging/log.h"

namespace openge::logging {

// "ERROR", "WARNING", "INFO", "DEBUG".
const char* level_name(Level level);

// `[Level] Module(PID,PName):yyyy-mm-dd-hh:mm:ss.fff.zzz [file:line]message` in local time; the
// file is the caller's path inside src/ (or from tools/ on). Control characters of the message
// are escaped so that one record is one line.
std::string format_line(Level level, std::string_view module, const char* file, int line, std::string_view message,
                        std::chrono::system_clock::time_point when);

// yyyymmddhhmmssfff, the timestamp of plog-<pid>_<timestamp>.log.
std::string file_timestamp(std::chrono::system_clock::time_point when);

// This process's short name (CANN's PName).
const char* process_name();

}  // namespace openge::logging
