#include "profiling/counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace openge::profiling {
namespace {

struct Event {
  const char* name;
  uint32_t type;
  uint64_t config;
};

constexpr uint64_t cache_event(uint64_t cache, uint64_t op, uint64_t result) {
  return cache | (op << 8) | (result << 16);
}

// One row per aic_metrics set: the CPU events that stand in for the AI Core PMU and the columns
// derived from them (docs/PROFILING.md explains each mapping).
struct MetricRow {
  const char* set;
  std::vector<Event> events;
  std::vector<std::string> columns;  // after aicore_time(us), aic_total_cycles
};

const std::vector<MetricRow>& metric_table() {
  static const std::vector<MetricRow> table = {
      {"PipeUtilization",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND}},
       {"aic_instructions", "aic_ipc", "aic_backend_stall_ratio"}},
      {"ArithmeticUtilization",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS}},
       {"aic_instructions", "aic_ipc", "aic_branch_ratio"}},
      {"Memory",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
        {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES}},
       {"aic_cache_references", "aic_cache_misses", "aic_cache_miss_ratio"}},
      {"MemoryL0",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"L1-dcache-loads", PERF_TYPE_HW_CACHE,
         cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
        {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
         cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)}},
       {"aic_l1d_loads", "aic_l1d_load_misses", "aic_l1d_miss_ratio"}},
      {"MemoryUB",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"LLC-loads", PERF_TYPE_HW_CACHE,
         cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
        {"LLC-load-misses", PERF_TYPE_HW_CACHE,
         cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)}},
       {"aic_llc_loads", "aic_llc_load_misses", "aic_llc_miss_ratio"}},
      {"ResourceConflictRatio",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
        {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND}},
       {"aic_frontend_stall_cycles", "aic_backend_stall_cycles", "aic_stall_ratio"}},
      {"L2Cache",
       {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"LLC-loads", PERF_TYPE_HW_CACHE,
         cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
        {"LLC-load-misses", PERF_TYPE_HW_CACHE,
         cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)}},
       {"l2_read_accesses", "l2_read_misses", "l2_read_hit_ratio"}},
  };
  return table;
}

long perf_event_open(perf_event_attr* attr, int group_fd) {
  return syscall(SYS_perf_event_open, attr, 0 /* this thread */, -1 /* any cpu */, group_fd, 0);
}

std::string ratio(uint64_t a, uint64_t b) {
  if (b == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(a) / static_cast<double>(b));
  return buf;
}

}  // namespace

std::unique_ptr<CounterSet> CounterSet::open(const std::string& metric_set, const std::vector<int>& custom) {
  std::unique_ptr<CounterSet> c(new CounterSet());
  c->metric_set_ = metric_set;
  c->columns_ = {"aicore_time(us)", "aic_total_cycles"};
  std::vector<Event> events;
  if (metric_set == "Custom") {
    c->kind_ = -1;
    events.push_back({"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES});
    for (int r : custom) {
      char name[32];
      std::snprintf(name, sizeof name, "aic_custom_0x%x", r);
      events.push_back({"raw", PERF_TYPE_RAW, static_cast<uint64_t>(r)});
      c->columns_.emplace_back(name);
    }
  } else {
    const auto& table = metric_table();
    size_t k = 0;
    while (k < table.size() && metric_set != table[k].set) ++k;
    if (k == table.size()) k = 0;  // PipeUtilization is the default set
    c->kind_ = static_cast<int>(k);
    events = table[k].events;
    c->columns_.insert(c->columns_.end(), table[k].columns.begin(), table[k].columns.end());
  }
  for (const Event& e : events) c->event_names_.emplace_back(e.name);
  for (const Event& e : events) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = e.type;
    attr.config = e.config;
    attr.exclude_kernel = 1;  // perf_event_paranoid=2 allows user-space counting of our own threads
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_GROUP;
    const long fd = perf_event_open(&attr, c->group_fd_);
    if (fd < 0) {
      c->status_ =
          std::string("perf_event_open(") + e.name + ") failed: " + std::strerror(errno) +
          (errno == ENOENT || errno == EOPNOTSUPP ? " (this CPU or virtual machine exposes no such hardware counter)"
           : errno == EACCES || errno == EPERM    ? " (see /proc/sys/kernel/perf_event_paranoid)"
                                                  : "");
      for (int f : c->fds_) ::close(f);
      c->fds_.clear();
      c->group_fd_ = -1;
      return c;
    }
    if (c->group_fd_ < 0) c->group_fd_ = static_cast<int>(fd);
    c->fds_.push_back(static_cast<int>(fd));
  }
  std::vector<uint64_t> probe;
  c->read(probe);
  if (probe.size() != events.size()) {
    c->status_ = "hardware counters opened but cannot be read";
    for (int f : c->fds_) ::close(f);
    c->fds_.clear();
    c->group_fd_ = -1;
  }
  return c;
}

CounterSet::~CounterSet() {
  for (int f : fds_) ::close(f);
}

void CounterSet::read(std::vector<uint64_t>& out) const {
  out.clear();
  if (group_fd_ < 0) return;
  uint64_t buf[1 + 16];
  const ssize_t n = ::read(group_fd_, buf, sizeof buf);
  if (n < static_cast<ssize_t>(sizeof(uint64_t)) || buf[0] != fds_.size()) return;
  out.assign(buf + 1, buf + 1 + buf[0]);
}

void CounterSet::read_delta(std::vector<uint64_t>& counts) const {
  std::vector<uint64_t> now;
  read(now);
  if (now.size() != counts.size()) {
    counts.clear();
    return;
  }
  for (size_t i = 0; i < now.size(); ++i) counts[i] = now[i] - counts[i];
}

std::vector<std::string> CounterSet::cells(const std::vector<uint64_t>& d, int64_t duration_ns) const {
  std::vector<std::string> out;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(duration_ns) / 1000.0);
  if (!available() || d.size() != fds_.size()) {
    // aicore_time is the task's own duration: known even where no counter is.
    out.assign(columns_.size(), "N/A");
    out[0] = buf;
    return out;
  }
  out.emplace_back(buf);
  out.push_back(std::to_string(d[0]));
  if (kind_ < 0) {
    for (size_t i = 1; i < d.size(); ++i) out.push_back(std::to_string(d[i]));
    return out;
  }
  // Every set is (cycles, a, b): the two counts and one ratio. The ratio's meaning per set: b/a
  // for the instruction sets is replaced by a/cycles (IPC) for the first two columns' sets.
  const std::string& set = metric_table()[static_cast<size_t>(kind_)].set;
  if (set == "PipeUtilization") {
    out = {out[0], out[1], std::to_string(d[1]), ratio(d[1], d[0]), ratio(d[2], d[0])};
  } else if (set == "ArithmeticUtilization") {
    out = {out[0], out[1], std::to_string(d[1]), ratio(d[1], d[0]), ratio(d[2], d[1])};
  } else if (set == "ResourceConflictRatio") {
    out = {out[0], out[1], std::to_string(d[1]), std::to_string(d[2]), ratio(d[1] + d[2], d[0])};
  } else if (set == "L2Cache") {
    out = {out[0], out[1], std::to_string(d[1]), std::to_string(d[2]), ratio(d[1] >= d[2] ? d[1] - d[2] : 0, d[1])};
  } else {  // Memory, MemoryL0, MemoryUB: accesses, misses, miss ratio
    out = {out[0], out[1], std::to_string(d[1]), std::to_string(d[2]), ratio(d[2], d[1])};
  }
  return out;
}

}  // namespace openge::profiling
