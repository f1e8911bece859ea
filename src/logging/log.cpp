// The logger's state: the settings of the last configure(), the spdlog logger writing the plog
// file (created with its folder on the first record that passes the level, so a healthy run at the
// default level leaves nothing behind), and the atrace ring.
#include "logging/log.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "base/file_modes.h"
#include "io/atomic_file.h"
#include "logging/log_line.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"

namespace openge::logging {
namespace {

constexpr int kLevelNull = 4;  // ASCEND_GLOBAL_LOG_LEVEL=4: nothing is logged

struct Settings {
  int level = static_cast<int>(Level::kError);  // CANN's default
  bool to_stdout = false;
  paths::ResolvedPath log_dir;  // .path "" until configured: records only enter the ring
  paths::ResolvedPath trace_dir;
  std::shared_ptr<const options::OptionSet> options;  // for prepare_artifact_directory
  Limits limits;

  // Settings that need a new destination when they change (the level does not).
  bool same_destination(const Settings& o) const {
    return to_stdout == o.to_stdout && log_dir.path == o.log_dir.path &&
           limits.max_file_bytes == o.limits.max_file_bytes && limits.max_files == o.limits.max_files;
  }
};

// The last `capacity` records, oldest first when read.
class TraceRing {
 public:
  void resize(size_t capacity) {
    if (capacity == lines_.size()) return;
    std::vector<std::string> kept = contents();
    lines_.assign(capacity, {});
    next_ = count_ = 0;
    const size_t skip = kept.size() > capacity ? kept.size() - capacity : 0;
    for (size_t i = skip; i < kept.size(); ++i) push(std::move(kept[i]));
  }
  void push(std::string line) {
    if (lines_.empty()) return;
    lines_[next_] = std::move(line);
    next_ = (next_ + 1) % lines_.size();
    if (count_ < lines_.size()) ++count_;
  }
  std::vector<std::string> contents() const {
    std::vector<std::string> out;
    out.reserve(count_);
    const size_t start = (next_ + lines_.size() - count_) % std::max<size_t>(lines_.size(), 1);
    for (size_t i = 0; i < count_; ++i) out.push_back(lines_[(start + i) % lines_.size()]);
    return out;
  }

 private:
  std::vector<std::string> lines_ = std::vector<std::string>(Limits{}.trace_events);
  size_t next_ = 0, count_ = 0;
};

struct State {
  std::mutex mutex;
  Settings settings;
  std::shared_ptr<spdlog::logger> logger;  // null until the first record that passes the level
  std::string log_file;
  bool destination_failed = false;  // the current destination could not be written: records are dropped
  TraceRing ring;
  std::string trace_file;          // this process's atrace file, named at the first flush
  std::set<std::string> reported;  // problems already said on stderr (each once)
};

State& state() {
  static State* s = new State();  // never destroyed: sessions may log from static destructors
  return *s;
}

// Says a problem once per process on stderr; the run goes on.
void report_once(State& s, const std::string& problem) {
  if (!s.reported.insert(problem).second) return;
  std::fprintf(stderr, "openge: %s; the run goes on without it\n", problem.c_str());
}

// Opens the destination for the current settings; false when it cannot be written.
bool open_destination(State& s) {
  if (s.logger) return true;
  if (s.destination_failed) return false;
  try {
    std::shared_ptr<spdlog::sinks::sink> sink;
    if (s.settings.to_stdout) {
      sink = std::make_shared<spdlog::sinks::stdout_sink_st>();
    } else {
      if (s.settings.log_dir.path.empty()) return false;  // not configured: the ring only
      paths::ResolvedPath plog = s.settings.log_dir;
      plog.path = (std::filesystem::path(plog.path) / "debug" / "plog").string();
      Status ready = paths::prepare_artifact_directory(plog, *s.settings.options);
      if (!ready.ok()) {
        s.destination_failed = true;
        report_once(s, "cannot write the log: " + ready.message());
        return false;
      }
      s.log_file = (std::filesystem::path(plog.path) / ("plog-" + std::to_string(::getpid()) + "_" +
                                                        file_timestamp(std::chrono::system_clock::now()) + ".log"))
                       .string();
      // Each file it opens (rotation too) gets the data file mode, whatever the umask.
      spdlog::file_event_handlers on_open;
      on_open.after_open = [](const spdlog::filename_t&, std::FILE* file) { ::fchmod(::fileno(file), kDataFileMode); };
      sink = std::make_shared<spdlog::sinks::rotating_file_sink_st>(
          s.log_file, s.settings.limits.max_file_bytes, s.settings.limits.max_files, /*rotate_on_open=*/false, on_open);
    }
    auto logger = std::make_shared<spdlog::logger>("openge", std::move(sink));
    logger->set_pattern("%v");  // the line is CANN's, formatted by format_line
    logger->set_level(spdlog::level::trace);
    logger->flush_on(spdlog::level::trace);  // low volume (compile events, errors): nothing is lost on a crash
    const std::string where = s.settings.to_stdout ? std::string("stdout") : s.log_file;
    logger->set_error_handler([where](const std::string& why) {
      State& st = state();  // called inside write(), which holds the mutex
      st.destination_failed = true;
      report_once(st, "cannot write the log " + where + ": " + why);
    });
    s.logger = std::move(logger);
    return true;
  } catch (const std::exception& e) {
    s.destination_failed = true;
    s.log_file.clear();
    report_once(s, std::string("cannot open the log file: ") + e.what());
    return false;
  }
}

std::string flush_trace_locked(State& s) {
  if (s.settings.trace_dir.path.empty()) return "";
  Status ready = paths::prepare_artifact_directory(s.settings.trace_dir, *s.settings.options);
  if (!ready.ok()) {
    report_once(s, "cannot write the trace log: " + ready.message());
    return "";
  }
  if (s.trace_file.empty() || std::filesystem::path(s.trace_file).parent_path() != s.settings.trace_dir.path)
    s.trace_file =
        (std::filesystem::path(s.settings.trace_dir.path) /
         ("atrace-" + std::to_string(::getpid()) + "_" + file_timestamp(std::chrono::system_clock::now()) + ".log"))
            .string();
  std::string text;
  for (const std::string& line : s.ring.contents()) text += line + '\n';
  Status written = write_file_atomically(s.trace_file, text);
  if (!written.ok()) {
    report_once(s, "cannot write the trace log: " + written.message());
    return "";
  }
  return s.trace_file;
}

}  // namespace

void configure(const options::OptionSet& options, const Limits& limits) {
  Settings next;
  next.level = static_cast<int>(options.get_int("ASCEND_GLOBAL_LOG_LEVEL", static_cast<int>(Level::kError)));
  next.to_stdout = options.get_int("ASCEND_SLOG_PRINT_TO_STDOUT", 0) == 1;
  const auto ids = paths::RunIds::current();
  next.log_dir = paths::resolve_artifact(paths::ArtifactKind::kLog, options, ids);
  next.trace_dir = paths::resolve_artifact(paths::ArtifactKind::kAtrace, options, ids);
  next.options = std::make_shared<const options::OptionSet>(options);
  next.limits = limits;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!next.same_destination(s.settings)) {
    s.logger.reset();
    s.log_file.clear();
    s.destination_failed = false;
  }
  s.ring.resize(limits.trace_events);
  s.settings = std::move(next);
}

void unconfigure() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.logger.reset();
  s.log_file.clear();
  s.trace_file.clear();
  s.destination_failed = false;
  s.settings = Settings{};
  s.ring = TraceRing{};
}

bool enabled(Level level) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.settings.level != kLevelNull && static_cast<int>(level) >= s.settings.level;
}

void write(Level level, std::string_view module, const char* file, int line, std::string_view message) {
  std::string text = format_line(level, module, file, line, message, std::chrono::system_clock::now());
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const bool passes = s.settings.level != kLevelNull && static_cast<int>(level) >= s.settings.level;
  if (passes && open_destination(s)) {
    s.logger->log(spdlog::level::info, text);    // the level is in the text; spdlog's own is not used
    if (s.destination_failed) s.logger.reset();  // the error handler ran: stop trying this destination
  }
  s.ring.push(std::move(text));
  if (level == Level::kError) flush_trace_locked(s);
}

std::string current_log_file() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.logger && !s.settings.to_stdout ? s.log_file : "";
}

}  // namespace openge::logging
