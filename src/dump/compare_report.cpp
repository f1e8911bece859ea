#include "openge/dump_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "io/atomic_file.h"
#include "io/html_text.h"

namespace openge::dump {
namespace {

// Plot geometry (SVG user units = CSS px): two panels sharing the x axis (one point per
// compared output, in the order of the rows).
constexpr double kLeft = 80, kPlotWidth = 1000, kRight = 30;
constexpr double kPanelHeight = 180, kTop = 28, kGap = 56, kBottom = 44;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
// Errors with 6 significant digits; cosines with 10, since float16 against float32 differs in
// the 7th or 8th ("1" would hide it).
std::string num(double v, const char* format = "%.6g") {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return fmt(format, v);
}
std::string cos_num(double v) { return num(v, "%.10g"); }
std::string px(double v) { return fmt("%.2f", v); }

// A label that fits beside the marker however long the model's names are (the table has them whole).
std::string clipped(const std::string& text) {
  if (text.size() <= 60) return text;
  size_t n = 57;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // not inside a UTF-8 character
  return text.substr(0, n) + "...";
}

double x_of(size_t i, size_t n) { return kLeft + (n <= 1 ? kPlotWidth / 2 : kPlotWidth * i / (n - 1)); }

// Cosine panel: linear from `lo` to 1 (a little room below the lowest point).
struct CosineAxis {
  double lo = 0.99, hi = 1.0;
  explicit CosineAxis(const CompareResult& r) {
    double low = 1;
    for (const auto& row : r.rows)
      if (std::isfinite(row.cosine)) low = std::min(low, row.cosine);
    if (low < 1) lo = std::max(-1.0, low - std::max((1 - low) * 0.08, 1e-12));
    hi = 1 + (1 - lo) * 0.02;
  }
  double y(double c, double top) const {
    if (!std::isfinite(c)) c = lo;
    return top + kPanelHeight * (hi - std::clamp(c, lo, hi)) / (hi - lo);
  }
};

// Relative-error panel: log10 scale over whole decades covering every finite non-zero error and
// the threshold, with one decade more below so that the smallest of them stays off the bottom
// edge, where 0 sits; Inf (and "not comparable") sit on the top edge.
struct ErrorAxis {
  int lo = -8, hi = 0;
  explicit ErrorAxis(const CompareResult& r) {
    double smallest = INFINITY, largest = 0;
    auto take = [&](double v) {
      if (std::isfinite(v) && v > 0) smallest = std::min(smallest, v), largest = std::max(largest, v);
    };
    take(r.threshold);
    for (const auto& row : r.rows) take(row.max_rel_error);
    if (largest > 0) {
      lo = static_cast<int>(std::floor(std::log10(smallest))) - 1;
      hi = std::max(static_cast<int>(std::ceil(std::log10(largest))), lo + 2);
      lo = std::max(lo, hi - 17);  // errors below 1e-16 of the largest are drawn on the floor
    }
  }
  double y(double e, double top) const {
    if (std::isinf(e) || std::isnan(e)) return top;
    if (e <= 0) return top + kPanelHeight;
    const double t = (std::log10(e) - lo) / (hi - lo);
    return top + kPanelHeight * (1 - std::clamp(t, 0.0, 1.0));
  }
};

std::string point_label(const OpComparison& row, size_t i) {
  return "#" + std::to_string(i + 1) + " iteration " + row.iteration + ", " + row.op_type + " '" + row.op_name +
         "' output " + std::to_string(row.output) + ": cosine " + cos_num(row.cosine) + ", max rel error " +
         num(row.max_rel_error) + ", max abs error " + num(row.max_abs_error) +
         (row.note.empty() ? "" : " (" + row.note + ")");
}

std::string panel_frame(double top, const std::string& title) {
  return "<rect class=frame x=\"" + px(kLeft) + "\" y=\"" + px(top) + "\" width=\"" + px(kPlotWidth) + "\" height=\"" +
         px(kPanelHeight) + "\"/><text class=ptitle x=\"" + px(kLeft) + "\" y=\"" + px(top - 8) + "\">" + title +
         "</text>";
}

std::string y_tick(double y, const std::string& label) {
  return "<line class=grid x1=\"" + px(kLeft) + "\" y1=\"" + px(y) + "\" x2=\"" + px(kLeft + kPlotWidth) + "\" y2=\"" +
         px(y) + "\"/><text class=tick x=\"" + px(kLeft - 6) + "\" y=\"" + px(y + 4) + "\" text-anchor=\"end\">" +
         label + "</text>";
}

// One panel's polyline and points (each a link to its table row, with its values as tooltip).
template <typename YOf>
std::string series(const CompareResult& r, double top, YOf y_of) {
  const size_t n = r.rows.size();
  std::string line = "<polyline class=series points=\"", points;
  for (size_t i = 0; i < n; ++i) {
    const auto& row = r.rows[i];
    const double x = x_of(i, n), y = y_of(row, top);
    line += (i ? " " : "") + px(x) + "," + px(y);
    points += "<a href=\"#r" + std::to_string(i) + "\"><circle class=\"" + (row.exceeds ? "pt over" : "pt") +
              "\" cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"3\"><title>" + html_escape(point_label(row, i)) +
              "</title></circle></a>";
  }
  return line + "\"/>" + points;
}

std::string plot(const CompareResult& r) {
  const size_t n = r.rows.size();
  const CosineAxis cos_axis(r);
  const ErrorAxis err_axis(r);
  const double top1 = kTop, top2 = kTop + kPanelHeight + kGap;
  const double height = top2 + kPanelHeight + kBottom;
  std::string s = "<svg id=error-plot width=\"" + px(kLeft + kPlotWidth + kRight) + "\" height=\"" + px(height) +
                  "\" font-size=\"11\">";
  s += panel_frame(top1, "cosine similarity (1 = same direction)");
  // Tick labels with as many decimals as tell the ticks apart (0.9999990 .. 1.0000000).
  // The top tick is 1 (the axis reaches a little above it so that points at 1 stay visible).
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10((1 - cos_axis.lo) / 4))) + 1, 2, 15);
  for (int k = 0; k <= 4; ++k) {
    const double c = cos_axis.lo + (1 - cos_axis.lo) * k / 4.0;
    char label[48];
    std::snprintf(label, sizeof label, "%.*f", decimals, c);
    s += y_tick(cos_axis.y(c, top1), label);
  }
  s += panel_frame(
      top2, "max relative error (max |a-b| / max |a|, log scale; 0 on the floor, Inf/not comparable on the ceiling)");
  for (int e = err_axis.lo; e <= err_axis.hi; ++e)  // the floor also holds 0 and what is below it
    if ((err_axis.hi - err_axis.lo) <= 8 || (e - err_axis.lo) % 2 == 0)
      s += y_tick(err_axis.y(std::pow(10.0, e), top2), (e == err_axis.lo ? "&le;1e" : "1e") + std::to_string(e));
  const double ty = err_axis.y(r.threshold, top2);
  s += "<line id=threshold class=threshold x1=\"" + px(kLeft) + "\" y1=\"" + px(ty) + "\" x2=\"" +
       px(kLeft + kPlotWidth) + "\" y2=\"" + px(ty) + "\"/><text class=tlabel x=\"" + px(kLeft + kPlotWidth - 4) +
       "\" y=\"" + px(ty - 4) + "\" text-anchor=\"end\">threshold " + num(r.threshold) + "</text>";
  // x ticks: op numbers (1-based, as the table's # column).
  const size_t ticks = std::min<size_t>(n, 10);
  for (size_t k = 0; k < ticks; ++k) {
    const size_t i = ticks == 1 ? 0 : k * (n - 1) / (ticks - 1);
    s += "<text class=tick x=\"" + px(x_of(i, n)) + "\" y=\"" + px(top2 + kPanelHeight + 16) +
         "\" text-anchor=\"middle\">" + std::to_string(i + 1) + "</text>";
  }
  s += "<text class=tick x=\"" + px(kLeft + kPlotWidth / 2) + "\" y=\"" + px(top2 + kPanelHeight + 34) +
       "\" text-anchor=\"middle\">compared output # in execution order (hover a point for its op, click for its "
       "row)</text>";
  if (r.first_exceeding) {
    const double x = x_of(*r.first_exceeding, n);
    const auto& row = r.rows[*r.first_exceeding];
    s += "<g id=first-exceeding><line class=first x1=\"" + px(x) + "\" y1=\"" + px(top1) + "\" x2=\"" + px(x) +
         "\" y2=\"" + px(top2 + kPanelHeight) + "\"/><text class=flabel x=\"" +
         px(std::min(x + 4, kLeft + kPlotWidth - 4)) + "\" y=\"" + px(top2 - 26) + "\" text-anchor=\"" +
         (x > kLeft + kPlotWidth * 0.6 ? "end" : "start") +
         "\">first over the threshold: " + html_escape(clipped(row.op_type + " '" + row.op_name + "'")) + "</text></g>";
  }
  s += series(r, top1, [&](const OpComparison& row, double top) { return cos_axis.y(row.cosine, top); });
  s += series(r, top2, [&](const OpComparison& row, double top) {
    return err_axis.y(row.note.empty() ? row.max_rel_error : INFINITY, top);
  });
  return s + "</svg>";
}

std::string table(const CompareResult& r) {
  std::string t =
      "<table id=per-op><tr><th>#</th><th>iteration</th><th>op name</th><th>model node</th><th>op "
      "type</th><th>task</th>"
      "<th>output</th>"
      "<th>shape</th><th>cosine</th><th>max abs error</th><th>max rel error</th><th>over</th><th>note</th></tr>";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const bool first = r.first_exceeding && *r.first_exceeding == i;
    t += "<tr id=r" + std::to_string(i) +
         (first         ? " class=\"over first\""
          : row.exceeds ? " class=over"
                        : "") +
         "><td class=n>" + std::to_string(i + 1) + "</td><td class=n>" + html_escape(row.iteration) + "</td><td>" +
         html_escape(row.op_name) + "</td><td>" + html_escape(row.model_node) + "</td><td>" + html_escape(row.op_type) +
         "</td><td class=n>" + std::to_string(row.task_id) + "</td><td class=n>" + std::to_string(row.output) +
         "</td><td>" + html_escape(row.shape) + "</td><td class=n>" + cos_num(row.cosine) + "</td><td class=n>" +
         num(row.max_abs_error) + "</td><td class=n>" + num(row.max_rel_error) + "</td><td>" +
         (first         ? "first"
          : row.exceeds ? "yes"
                        : "") +
         "</td><td>" + html_escape(row.note) + "</td></tr>";
  }
  return t + "</table>";
}

}  // namespace

std::string comparison_html(const CompareResult& r) {
  const std::string title = "OpenGE dump comparison: " + r.dir_a + " vs " + r.dir_b;
  std::string h =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
      "</title><style>body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px 0 "
      "20px}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}td.n{text-align:right}tr.over td{background:#fde8e8}"
      "tr.first td{background:#f8b4b4;font-weight:bold}tr:target td{outline:2px solid #4a7fd6}"
      "svg{border:1px solid #ccc;background:#fafafa}.frame{fill:#fff;stroke:#999}.grid{stroke:#e4e4e4}"
      ".ptitle{font-weight:bold}.tick{fill:#555}.series{fill:none;stroke:#4a7fd6;stroke-width:1}"
      ".pt{fill:#4a7fd6}.pt.over{fill:#d63a3a}.threshold{stroke:#d63a3a;stroke-dasharray:6 4}.tlabel{fill:#d63a3a}"
      ".first{stroke:#d63a3a;stroke-width:1.5}.flabel{fill:#d63a3a;font-weight:bold}"
      "#verdict.bad{color:#b00000;font-weight:bold}#verdict.good{color:#1a7a1a;font-weight:bold}dt{float:left;width:"
      "90px;"
      "color:#555}dd{margin:0 0 4px 90px}</style></head><body><h1>OpenGE dump comparison</h1><dl><dt>A</dt><dd>" +
      html_escape(r.dir_a) + "</dd><dt>B</dt><dd>" + html_escape(r.dir_b) + "</dd>" +
      (r.kind_a.empty() ? std::string()
                        : "<dt>kinds</dt><dd>A: " + html_escape(r.kind_a) + ", B: " + html_escape(r.kind_b) + "</dd>") +
      "<dt>threshold</dt><dd>max rel error &gt; " + num(r.threshold) +
      " (or not comparable) deviates</dd><dt>compared</dt><dd>" + std::to_string(r.rows.size()) + " outputs (" +
      std::to_string(r.only_in_a) + " ops only in A, " + std::to_string(r.only_in_b) + " only in B)</dd>";
  for (const auto& [side, names] : {std::pair{"A", &r.ops_only_in_a}, std::pair{"B", &r.ops_only_in_b}}) {
    if (names->empty()) continue;
    h += std::string("<dt>only in ") + side + "</dt><dd class=only-in-" + side + ">";
    for (size_t i = 0; i < names->size(); ++i) h += (i ? ", " : "") + html_escape((*names)[i]);
    h += "</dd>";
  }
  h += "</dl>";
  if (r.first_exceeding) {
    const auto& row = r.rows[*r.first_exceeding];
    h += "<p id=verdict class=bad>First op over the threshold: <a href=\"#r" + std::to_string(*r.first_exceeding) +
         "\">#" + std::to_string(*r.first_exceeding + 1) + "</a>, iteration " + html_escape(row.iteration) + ", " +
         html_escape(row.op_type) + " '" + html_escape(row.op_name) + "' output " + std::to_string(row.output) +
         (row.model_node.empty() ? std::string() : " (model node '" + html_escape(row.model_node) + "')") +
         ": cosine " + cos_num(row.cosine) + ", max rel error " + num(row.max_rel_error) + ", max abs error " +
         num(row.max_abs_error) + (row.note.empty() ? "" : " (" + html_escape(row.note) + ")") + "</p>";
  } else {
    h += "<p id=verdict class=good>No op exceeds the threshold " + num(r.threshold) + ".</p>";
  }
  h += "<h2>Per-op error in execution order</h2>" + plot(r) + "<h2>Every compared output</h2>" + table(r);
  return h + "</body></html>\n";
}

std::string comparison_html_path(const std::string& csv_path, const std::string& html_path) {
  if (!html_path.empty() || csv_path.empty()) return html_path;
  std::filesystem::path p(csv_path);
  if (p.extension() == ".csv") return p.replace_extension(".html").string();
  return csv_path + ".html";
}

Result<std::string> write_comparison_files(const CompareResult& result, const std::string& csv_path,
                                           const std::string& html_path) {
  const std::string page = comparison_html_path(csv_path, html_path);
  if (!csv_path.empty() && page == csv_path)
    return invalid_argument("the CSV and the HTML page cannot both be " + csv_path);
  if (!csv_path.empty()) OPENGE_RETURN_IF_ERROR(write_file_atomically(csv_path, comparison_csv(result)));
  if (page.empty()) return page;
  if (Status s = write_file_atomically(page, comparison_html(result)); !s.ok()) {
    std::error_code ec;
    if (!csv_path.empty()) std::filesystem::remove(csv_path, ec);
    return s;
  }
  return page;
}

}  // namespace openge::dump
