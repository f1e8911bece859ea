#include "openge/profiling_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/path_util.h"
#include "io/html_text.h"

namespace openge::profiling {
namespace fs = std::filesystem;
namespace {

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
  std::string h = std::string("<table><tr><th>") + label + "</th><th>ms</th><th>%</th><th></th></tr>";
  for (const auto& [name, ns] : rows)
    h += "<tr><td>" + html_escape(name) + "</td><td class=n>" + ms(ns) + "</td><td class=n>" + pct(ns, all) +
         "</td><td class=b><div class=bar style=\"width:" + pct(ns, top) + "%\"></div></td></tr>";
  return h + "</table>";
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cur += c;
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

// {model_id, iter_id} of "<stem>_<device>_<model>_<iter>.<ext>" (zeros for other names).
std::array<uint64_t, 2> model_and_iteration(const fs::path& file) {
  const std::string stem = file.stem().string();
  const size_t b = stem.rfind('_');
  if (b == std::string::npos || b == 0) return {0, 0};
  const size_t a = stem.rfind('_', b - 1);
  if (a == std::string::npos) return {0, 0};
  return {std::strtoull(stem.c_str() + a + 1, nullptr, 10), std::strtoull(stem.c_str() + b + 1, nullptr, 10)};
}

int64_t us_text_to_ns(const std::string& s) { return static_cast<int64_t>(std::strtod(s.c_str(), nullptr) * 1000.0); }

int64_t median_of(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string us(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e3);
  return buf;
}

// A folder the user gave that holds the collection one level down (the profiling output folder).
Result<fs::path> single_collection_inside(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind("PROF_", 0) == 0) found.push_back(e.path());
  if (found.size() == 1) return found.front();
  if (found.empty()) return invalid_argument("'" + dir.string() + "' holds no profiling collection (no PROF_* folder)");
  std::sort(found.begin(), found.end());
  std::string names;
  for (const auto& f : found) names += " " + f.filename().string();
  return invalid_argument("'" + dir.string() + "' holds " + std::to_string(found.size()) +
                          " profiling collections; give one of them:" + names);
}

// The model and profiling options the collection recorded (a collection without them still reports).
void read_model_and_options(const fs::path& info_json, ReportData& d) {
  std::ifstream f(info_json);
  const auto j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  if (j.contains("model") && j["model"].is_string()) d.model = j["model"].get<std::string>();
  if (j.contains("options") && j["options"].is_object())
    for (const auto& [k, v] : j["options"].items())
      if (v.is_string()) d.options.push_back({k, v.get<std::string>()});
}

}  // namespace

OpSteadyStats steady_stats(const ReportOp& op) {
  OpSteadyStats s;
  std::vector<int64_t> steady;
  for (const auto& [iteration, ns] : op.per_iteration_ns) {
    if (iteration == 1)
      s.first_ns = (s.first_ns < 0 ? 0 : s.first_ns) + ns;
    else
      steady.push_back(ns);
  }
  s.steady_iterations = steady.size();
  if (steady.empty() && s.first_ns >= 0) steady.push_back(s.first_ns);  // nothing but the warm-up
  if (steady.empty()) return s;
  s.median_ns = median_of(steady);
  s.min_ns = *std::min_element(steady.begin(), steady.end());
  return s;
}

std::vector<std::pair<ReportOp, OpSteadyStats>> ops_by_steady_median(const std::vector<ReportOp>& ops) {
  std::vector<std::pair<ReportOp, OpSteadyStats>> v;
  for (const auto& o : ops) v.push_back({o, steady_stats(o)});
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.second.median_ns > b.second.median_ns; });
  return v;
}

int64_t steady_median_step_ns(const std::vector<std::pair<uint32_t, int64_t>>& step_times) {
  std::vector<int64_t> steady, all;
  for (const auto& [iteration, ns] : step_times) (iteration == 1 ? all : steady).push_back(ns);
  return median_of(steady.empty() ? all : steady);
}

// Timeline colours: the op types with the most time on the timeline get one each (distinct
// hues, readable with white text), the rest share grey as "other".
constexpr const char* kTypeColours[] = {"#4a7fd6", "#e08a3c", "#3aa35b", "#c94f4f", "#8a63c9",
                                        "#2a9fa8", "#b5892a", "#d15ca6", "#6b7a8f", "#7fa33a"};
constexpr const char* kOtherColour = "#b0b0b0";

// One iteration's tasks: one lane per engine, each bar coloured by its op type and labelled with
// its op name where it is wide enough, a time axis, and the legend of the colours.
static std::string timeline_svg(const ReportData& d) {
  double end = 1;
  std::map<std::string, double> type_time;
  for (const auto& t : d.timeline) end = std::max(end, t.start_us + t.dur_us), type_time[t.type] += t.dur_us;
  std::vector<std::pair<std::string, double>> types(type_time.begin(), type_time.end());
  std::stable_sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const size_t coloured = std::size(kTypeColours);
  std::map<std::string, const char*> colour;
  for (size_t i = 0; i < types.size(); ++i) colour[types[i].first] = i < coloured ? kTypeColours[i] : kOtherColour;
  const int left = 70, width = 1000, lane = 22, axis_y = 10 + 2 * lane + 6, legend_y = axis_y + 40;
  const size_t per_row = 5, legend_entries = std::min(types.size(), coloured + 1);
  const int rows = static_cast<int>((legend_entries + per_row - 1) / per_row);
  std::string h = "<h2>Timeline: " + html_escape(d.timeline_label) + "</h2><svg id=timeline width=\"" +
                  std::to_string(left + width + 40) + "\" height=\"" + std::to_string(legend_y + rows * 18 + 8) +
                  "\" font-size=\"11\">";
  char buf[512];
  for (const auto& [name, y] : {std::pair{"AI_CORE", 10}, std::pair{"AI_CPU", 10 + lane}}) {
    std::snprintf(buf, sizeof buf, "<text x=\"6\" y=\"%d\">%s</text>", y + lane / 2 + 4, name);
    h += buf;
  }
  for (const auto& t : d.timeline) {
    const int y = t.engine == "AI_CORE" ? 10 : 10 + lane;
    const double x = left + t.start_us / end * width, w = std::max(0.5, t.dur_us / end * width);
    std::snprintf(buf, sizeof buf, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", x, y,
                  w, lane - 4, colour[t.type]);
    char dur[32];
    std::snprintf(dur, sizeof dur, "%.1f", t.dur_us);
    h += "<g class=task data-type=\"" + html_escape(t.type) + "\">" + buf +
         html_escape(t.name + " (" + t.type + ", " + t.engine + ", " + dur + " us)") + "</title></rect>";
    // A label only where about six characters fit; the tooltip has every name.
    const size_t fits = static_cast<size_t>((w - 4) / 6.2);
    if (fits >= 6) {
      const std::string label = t.name.size() <= fits ? t.name : t.name.substr(0, fits - 1) + "~";
      std::snprintf(buf, sizeof buf, "<text class=label x=\"%.2f\" y=\"%d\" fill=\"#fff\">", x + 2, y + lane - 9);
      h += buf + html_escape(label) + "</text>";
    }
    h += "</g>";
  }
  std::snprintf(buf, sizeof buf, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left, axis_y,
                left + width, axis_y);
  h += buf;
  for (int k = 0; k <= 5; ++k) {
    const double x = left + width * k / 5.0;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>"
                  "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f us</text>",
                  x, axis_y, x, axis_y + 5, x, axis_y + 18, end * k / 5.0);
    h += buf;
  }
  h += "<g id=legend>";
  for (size_t i = 0; i < legend_entries; ++i) {
    const bool other = i == coloured;
    const std::string name =
        other ? "other (" + std::to_string(types.size() - coloured) + " op types)" : types[i].first;
    const int x = left + static_cast<int>(i % per_row) * 200, y = legend_y + static_cast<int>(i / per_row) * 18;
    std::snprintf(buf, sizeof buf,
                  "<g class=legend-entry><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  "<text x=\"%d\" y=\"%d\">",
                  x, y, other ? kOtherColour : kTypeColours[i], x + 16, y + 10);
    h += buf + html_escape(name) + "</text></g>";
  }
  return h + "</g></svg>";
}

std::string render_report_html(const ReportData& d, const std::vector<std::string>& files) {
  const auto ranked = ops_by_steady_median(d.ops);
  std::map<std::string, int64_t> by_type, by_engine;
  int64_t all = 0, steady_all = 0, first_all = 0;
  for (const auto& [o, st] : ranked) {
    by_type[o.type] += st.median_ns, by_engine[o.engine] += st.median_ns, steady_all += st.median_ns;
    all += o.total_ns, first_all += std::max<int64_t>(st.first_ns, 0);
  }
  auto sorted = [](const std::map<std::string, int64_t>& m) {
    std::vector<std::pair<std::string, int64_t>> v(m.begin(), m.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
  };
  const std::string heading = d.model.empty() ? d.title : d.model;
  std::string h =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>OpenGE profile " + html_escape(heading) +
      "</title><style>body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px "
      "0 20px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}td.n{text-align:right}"
      ".bar{background:#4a7fd6;height:10px;min-width:1px}td.b{width:240px}svg{border:1px solid #ccc;background:#fafafa}"
      "h2{margin-top:28px}</style></head><body><h1>OpenGE profile: " +
      html_escape(heading) + "</h1>";
  // The header: what was profiled, how, and the steady step time it settled at.
  h += "<table id=header><tr><th>model</th><td>" + html_escape(d.model.empty() ? "(not recorded)" : d.model) +
       "</td></tr><tr><th>collection</th><td>" + html_escape(d.title) + "</td></tr><tr><th>options</th><td>";
  for (size_t i = 0; i < d.options.size(); ++i)
    h += std::string(i ? ", " : "") + html_escape(d.options[i].first + "=" + d.options[i].second);
  // The steady iterations' numbers: 2..N, or from the first recorded one where the runs before
  // it were left out (bench's warm-up).
  uint32_t first_steady = 0, last_steady = 0;
  bool has_first = false;
  for (const auto& [id, ns] : d.step_times) {
    if (id == 1) has_first = true;
    if (id != 1 && (!first_steady || id < first_steady)) first_steady = id;
    if (id != 1) last_steady = std::max(last_steady, id);
  }
  const bool steady = first_steady != 0;
  const std::string range = std::to_string(first_steady) + ".." + std::to_string(last_steady);
  h += "</td></tr><tr><th>median step time</th><td id=median-step>" + ms(steady_median_step_ns(d.step_times)) + " ms" +
       (!steady     ? std::string(" (one iteration: no steady state)")
        : has_first ? " (iterations " + range + ")"
                    : " (iterations " + range + "; the runs before were not recorded)") +
       "</td></tr>";
  for (const auto& [id, ns] : d.step_times)
    if (id == 1) h += "<tr><th>iteration 1 (compile and warm-up)</th><td id=first-step>" + ms(ns) + " ms</td></tr>";
  h += "</table><p>" + std::to_string(d.step_times.size()) + " iterations, " + std::to_string(ranked.size()) +
       " operators, task time " + ms(all) + " ms in all, of which iteration 1 " + ms(first_all) + " ms.</p>";
  h += "<h2>Top operators by median time per iteration" + (steady ? " (iterations " + range + ")" : std::string()) +
       "</h2><table id=top-ops><tr><th>#</th><th>op name</th><th>type</th><th>engine</th>"
       "<th>median us</th><th>min us</th><th>iteration 1 us</th><th>%</th></tr>";
  for (size_t i = 0; i < ranked.size() && i < 20; ++i) {
    const auto& [o, st] = ranked[i];
    h += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + html_escape(o.name) + "</td><td>" + html_escape(o.type) +
         "</td><td>" + html_escape(o.engine) + "</td><td class=n>" + us(st.median_ns) + "</td><td class=n>" +
         us(st.min_ns) + "</td><td class=n>" + (st.first_ns < 0 ? std::string("-") : us(st.first_ns)) +
         "</td><td class=n>" + pct(st.median_ns, steady_all) + "</td></tr>";
  }
  h += "</table><h2>Median time per iteration by op type</h2>" + bar_table(sorted(by_type), "op type");
  h += "<h2>Median time per iteration by engine</h2>" + bar_table(sorted(by_engine), "engine");
  h += "<h2>Step time per iteration</h2>";
  std::vector<std::pair<std::string, int64_t>> steps;
  for (const auto& [id, ns] : d.step_times) steps.push_back({"iteration " + std::to_string(id), ns});
  h += bar_table(steps, "iteration");
  if (!d.timeline.empty()) h += timeline_svg(d);
  if (!files.empty()) {
    h += "<h2>Files</h2><ul>";
    for (const auto& f : files) {
      const std::string name = html_escape(fs::path(f).filename().string());
      h += "<li><a href=\"" + name + "\">" + name + "</a></li>";  // beside the report
    }
    h += "</ul>";
  }
  return h + "</body></html>\n";
}

// "; <why>" when the profiler recorded in an info.json of `prof_dir` that it wrote no file
// (a full disk, storage_limit), so that the error names the cause; "" otherwise.
static std::string why_not_written(const fs::path& prof_dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(prof_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename().string().rfind("info.json", 0) != 0 || !it->is_regular_file(ec)) continue;
    std::ifstream in(it->path());
    std::string line;
    while (std::getline(in, line)) {
      const size_t at = line.find("not written (");
      if (at == std::string::npos) continue;
      const size_t end = line.find("; nothing older", at);
      return "; the profiler wrote none: " + line.substr(at + 13, end == std::string::npos ? 200 : end - at - 13);
    }
  }
  return "";
}

Result<ReportData> load_report_data(const std::string& dir) {
  fs::path out = fs::path(dir).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();  // "PROF_x/" names PROF_x
  std::error_code ec;
  if (fs::is_directory(out, ec) && !fs::is_directory(out / "mindstudio_profiler_output", ec) &&
      out.filename() != "mindstudio_profiler_output") {
    auto inside = single_collection_inside(out);
    if (!inside.ok()) return inside.status();
    out = *inside;
  }
  if (fs::is_directory(out / "mindstudio_profiler_output", ec)) out /= "mindstudio_profiler_output";
  if (!fs::is_directory(out, ec)) return invalid_argument("'" + dir + "' is not a profiling collection folder");
  ReportData d;
  d.title = out.parent_path().filename().string();  // the PROF_* folder's name
  d.folder = out.string();
  std::map<std::string, ReportOp> ops;
  size_t summaries = 0;
  // Files in (model, iteration) order, not name order (iteration 10 after 9).
  std::vector<std::pair<std::array<uint64_t, 2>, fs::path>> files;
  for (const auto& e : fs::directory_iterator(out, ec)) files.push_back({model_and_iteration(e.path()), e.path()});
  std::sort(files.begin(), files.end());
  std::map<std::array<uint64_t, 2>, int64_t> iteration_start_ns;
  std::array<uint64_t, 2> timeline_key{};
  for (const auto& [key, path] : files) {
    const std::string name = path.filename().string();
    const bool summary = name.rfind("op_summary_", 0) == 0, step = name.rfind("step_trace_", 0) == 0;
    if ((!summary && !step) || path.extension() != ".csv") continue;
    // A FIFO would block the read until a writer came; a device would never end.
    OPENGE_RETURN_IF_ERROR(require_regular_file(path.string(), "profiling file"));
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
        const auto iteration = static_cast<uint32_t>(key[1]);
        if (o.per_iteration_ns.empty() || o.per_iteration_ns.back().first != iteration)
          o.per_iteration_ns.push_back({iteration, 0});
        o.per_iteration_ns.back().second += us_text_to_ns(c[du]);
        const int64_t start = us_text_to_ns(c[st]);
        if (first_start < 0) first_start = start;
        tasks.push_back({c[n], c[t], c[e], static_cast<double>(start - first_start) / 1e3,
                         static_cast<double>(us_text_to_ns(c[du])) / 1e3});
      } else {
        const size_t it = col("Iteration ID"), tt = col("Iteration Time(us)"), ie = col("Iteration End(us)");
        if (std::max({it, tt, ie}) >= c.size()) continue;
        d.step_times.push_back({static_cast<uint32_t>(std::strtoul(c[it].c_str(), nullptr, 10)), us_text_to_ns(c[tt])});
        iteration_start_ns[key] = us_text_to_ns(c[ie]) - us_text_to_ns(c[tt]);
      }
    }
    if (summary) {
      ++summaries;
      d.timeline = std::move(tasks);
      d.timeline_first_start_ns = first_start;
      timeline_key = key;
      d.timeline_label = "model " + std::to_string(key[0]) + ", iteration " + std::to_string(key[1]);
    }
  }
  // Timeline times from the iteration's start, as the profiler's own report draws them.
  if (auto s = iteration_start_ns.find(timeline_key); s != iteration_start_ns.end() && !d.timeline.empty())
    for (auto& t : d.timeline) t.start_us += static_cast<double>(d.timeline_first_start_ns - s->second) / 1e3;
  if (summaries == 0 && d.step_times.empty())
    return invalid_argument("no op_summary_*.csv or step_trace_*.csv in " + out.string() +
                            why_not_written(out.parent_path()));
  for (auto& [k, o] : ops) d.ops.push_back(std::move(o));
  read_model_and_options(out.parent_path() / "host" / "info.json", d);
  return d;
}

}  // namespace openge::profiling
