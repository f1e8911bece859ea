// The engine's one logger (CANN's application log, "plog", docs/FORMATS.md, "Logs: plog and atrace"). Every component
// logs through this small interface; spdlog stays inside log.cpp so that including this header
// costs nothing.
//
//   OPENGE_LOG_INFO("GE", "node " + name + " runs on AI CPU: no AI Core kernel");
//   OPENGE_LOG_ERROR("GE", status.message());
//
// Records go to plog-<pid>_<timestamp>.log under ASCEND_PROCESS_LOG_PATH > ASCEND_WORK_PATH/log >
// $HOME/ascend/log (ENV-5/6), one line each in CANN's format, at or above ASCEND_GLOBAL_LOG_LEVEL
// (0 debug … 3 error, the default, 4 nothing), or to stdout instead with
// ASCEND_SLOG_PRINT_TO_STDOUT=1. Every record, whatever its level, also enters the in-memory trace
// ring (atrace, ENV-7/8) that is written out only when an error is logged. Logging never fails a
// run: a folder that cannot be written is said once on stderr and the run goes on.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace openge::options {
class OptionSet;
}

namespace openge::logging {

// CANN's levels; the numbers are ASCEND_GLOBAL_LOG_LEVEL's.
enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Size cap of one log file and how many rotated files are kept beside it.
struct Limits {
  size_t max_file_bytes = size_t{20} << 20;
  size_t max_files = 10;
  size_t trace_events = 1000;  // the atrace ring's capacity
};

// Points the process's logger at the folders, level and destination that `options` resolve to.
// Sessions call it when they open; a later call with other settings switches to them (one
// process may open sessions with different options). A call with the settings already in use
// changes nothing. Never fails (see above).
void configure(const options::OptionSet& options, const Limits& limits = {});

// Writes one record (and enters it into the trace ring). `module` is CANN's module name ("GE",
// "FE", "DUMP"); `file` and `line` are the caller's (the macros pass them).
void write(Level level, std::string_view module, const char* file, int line, std::string_view message);

// Back to the state before the first configure(): records only enter the trace ring. For tests,
// whose folders disappear when they end.
void unconfigure();

// Would a record of `level` reach the log file or the screen?
bool enabled(Level level);

// The log file records go to now ("" before the first record, when printing to stdout, or when
// the folder cannot be written).
std::string current_log_file();

}  // namespace openge::logging

#define OPENGE_LOG(level, module, message) ::openge::logging::write(level, module, __FILE__, __LINE__, message)
#define OPENGE_LOG_DEBUG(module, message) OPENGE_LOG(::openge::logging::Level::kDebug, module, message)
#define OPENGE_LOG_INFO(module, message) OPENGE_LOG(::openge::logging::Level::kInfo, module, message)
#define OPENGE_LOG_WARNING(module, message) OPENGE_LOG(::openge::logging::Level::kWarning, module, message)
#define OPENGE_LOG_ERROR(module, message) OPENGE_LOG(::openge::logging::Level::kError, module, message)
