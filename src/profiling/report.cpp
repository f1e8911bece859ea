#include "profiling/report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace openge::profiling {
namespace fs = std::filesystem;
namespace {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

std::string pct(int64_t part, int64_t all) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", all ? 100.0 * static_cast<double>(part) / static_cast<double>(all) : 0.0);
  return buf;
}

// A table with a proportional bar in the last column.
std::string bar_table(const std::vector<std::pair<std::string, int64_t>>& rows, const char* label) {
  int64_t all = 0, top = 1;
  for (const auto& r : rows) all += r.second, top = std::max(top, r.second);
  std::string h = std::string("<table><tr><th>") + label + "</th><th>total ms</th><th>%</th><th></th></tr>";
  for (const auto& [name, ns] : rows)
    h += "<tr><td>" + html_escape(name) + "</td><td class=n>" + ms(ns) + "</td><td class=n>" + pct(ns, all) +
         "</td><td><div class=bar style=\"width:" + pct(ns, top) + "%\"></div></td></tr>";
  return h + "</table>";
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.push_back(cur);
  return cells;
}

int64_t us_text_to_ns(const std::string& s) { return static_cast<int64_t>(std::strtod(s.c_str(), nullptr) * 1000.0); }

}  // namespace

std::string render_report_html(const ReportData& d, const std::vector<std::string>& files) {
  std::vector<ReportOp> ops = d.ops;
  std::sort(ops.begin(), ops.end(), [](const ReportOp& a, const ReportOp& b) { return a.total_ns > b.total_ns; });
  std::map<std::string, int64_t> by_type, by_engine;
  int64_t all = 0;
  for (const auto& o : ops) by_type[o.type] += o.total_ns, by_engine[o.engine] += o.total_ns, all += o.total_ns;
  auto sorted = [](const std::map<std::string, int64_t>& m) {
    std::vector<std::pair<std::string, int64_t>> v(m.begin(), m.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
  };
  std::string h =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>OpenGE profile " + html_escape(d.title) +
      "</title><style>body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px "
      "0 20px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}td.n{text-align:right}"
      ".bar{background:#4a7fd6;height:10px;min-width:1px}svg{border:1px solid #ccc;background:#fafafa}"
      "h2{margin-top:28px}</style></head><body><h1>OpenGE profile " + html_escape(d.title) + "</h1>";
  h += "<p>" + std::to_string(d.step_times.size()) + " iterations, " + std::to_string(ops.size()) +
       " operators, total task time " + ms(all) + " ms.</p>";
  h += "<h2>Top operators by total time</h2><table id=top-ops><tr><th>#</th><th>op name</th><th>type</th><th>engine</th>"
       "<th>count</th><th>total ms</th><th>avg us</th><th>%</th></tr>";
  for (size_t i = 0; i < ops.size() && i < 20; ++i) {
    const auto& o = ops[i];
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.3f", o.count ? static_cast<double>(o.total_ns) / 1e3 / static_cast<double>(o.count) : 0.0);
    h += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + html_escape(o.name) + "</td><td>" + html_escape(o.type) +
         "</td><td>" + html_escape(o.engine) + "</td><td class=n>" + std::to_string(o.count) + "</td><td class=n>" +
         ms(o.total_ns) + "</td><td class=n>" + avg + "</td><td class=n>" + pct(o.total_ns, all) + "</td></tr>";
  }
  h += "</table><h2>Time by op type</h2>" + bar_table(sorted(by_type), "op type");
  h += "<h2>Time by engine</h2>" + bar_table(sorted(by_engine), "engine");
  h += "<h2>Step time per iteration</h2>";
  std::vector<std::pair<std::string, int64_t>> steps;
  for (const auto& [id, ns] : d.step_times) steps.push_back({"iteration " + std::to_string(id), ns});
  h += bar_table(steps, "iteration");
  if (!d.timeline.empty()) {
    double end = 1;
    for (const auto& t : d.timeline) end = std::max(end, t.start_us + t.dur_us);
    const int width = 1000, lane = 22;
    h += "<h2>Timeline: " + html_escape(d.timeline_label) + "</h2><svg id=timeline width=\"" + std::to_string(width + 20) +
         "\" height=\"" + std::to_string(2 * lane + 30) + "\">";
    char buf[512];
    for (const auto& t : d.timeline) {
      const int y = t.engine == "AI_CORE" ? 10 : 10 + lane;
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
                    10 + t.start_us / end * width, y, std::max(0.5, t.dur_us / end * width), lane - 4,
                    t.engine == "AI_CORE" ? "#4a7fd6" : "#e08a3c");
      h += buf + html_escape(t.name + " (" + t.type + ", " + t.engine + ")") + "</title></rect>";
    }
    std::snprintf(buf, sizeof buf,
                  "<text x=\"10\" y=\"%d\" font-size=\"11\">AI_CORE (blue) / AI_CPU (orange), 0 .. %.1f us</text>",
                  2 * lane + 24, end);
    h += std::string(buf) + "</svg>";
  }
  if (!files.empty()) {
    h += "<h2>Files</h2><ul>";
    for (const auto& f : files) h += "<li>" + html_escape(fs::path(f).filename().string()) + "</li>";
    h += "</ul>";
  }
  return h + "</body></html>\n";
}

Result<ReportData> load_report_data(const std::string& dir) {
  fs::path out = dir;
  std::error_code ec;
  if (fs::is_directory(out / "mindstudio_profiler_output", ec)) out /= "mindstudio_profiler_output";
  if (!fs::is_directory(out, ec)) return invalid_argument("'" + dir + "' is not a profiling collection folder");
  ReportData d;
  d.title = fs::path(dir).filename().string();
  std::map<std::string, ReportOp> ops;
  size_t summaries = 0;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(out, ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string name = path.filename().string();
    const bool summary = name.rfind("op_summary_", 0) == 0, step = name.rfind("step_trace_", 0) == 0;
    if ((!summary && !step) || path.extension() != ".csv") continue;
    std::ifstream f(path);
    std::string line;
    if (!std::getline(f, line)) continue;
    const auto header = split_csv_line(line);
    auto col = [&](const char* n) {
      return static_cast<size_t>(std::find(header.begin(), header.end(), n) - header.begin());
    };
    std::vector<ReportTask> tasks;
    int64_t first_start = -1;
    while (std::getline(f, line)) {
      const auto c = split_csv_line(line);
      if (summary) {
        const size_t n = col("Op Name"), t = col("OP Type"), e = col("Task Type"), du = col("Task Duration(us)"),
                     st = col("Task Start Time(us)");
        if (std::max({n, t, e, du, st}) >= c.size()) continue;
        ReportOp& o = ops[c[n]];
        o.name = c[n], o.type = c[t], o.engine = c[e];
        ++o.count;
        o.total_ns += us_text_to_ns(c[du]);
        const int64_t start = us_text_to_ns(c[st]);
        if (first_start < 0) first_start = start;
        tasks.push_back({c[n], c[t], c[e], static_cast<double>(start - first_start) / 1e3,
                         static_cast<double>(us_text_to_ns(c[du])) / 1e3});
      } else {
        const size_t it = col("Iteration ID"), tt = col("Iteration Time(us)");
        if (std::max(it, tt) >= c.size()) continue;
        d.step_times.push_back({static_cast<uint32_t>(std::stoul(c[it])), us_text_to_ns(c[tt])});
      }
    }
    if (summary) {
      ++summaries;
      d.timeline = std::move(tasks);
      d.timeline_label = name;
    }
  }
  if (summaries == 0 && d.step_times.empty()) return invalid_argument("no op_summary_*.csv or step_trace_*.csv in " + out.string());
  for (auto& [k, o] : ops) d.ops.push_back(std::move(o));
  return d;
}

}  // namespace openge::profiling
