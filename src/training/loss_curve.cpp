#include "openge/loss_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/atomic_file.h"
#include "io/html_text.h"

namespace openge::training {
namespace {

std::string number(double v, const char* format = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

Status LossCurve::write_csv(const std::string& path) const {
  std::string out = "epoch,step,loss,samples_per_s\n";
  for (const StepRecord& r : steps_)
    out += std::to_string(r.epoch) + "," + std::to_string(r.step) + "," + number(r.loss, "%.9g") + "," +
           number(r.samples_per_second, "%.1f") + "\n";
  return write_file_atomically(path, out);
}

Status LossCurve::write_html(const std::string& path, const std::string& title) const {
  constexpr double kWidth = 800, kHeight = 320, kPad = 40;
  double lo = 0, hi = 1;
  bool first = true;
  for (const StepRecord& r : steps_) {
    if (!std::isfinite(r.loss)) continue;
    lo = first ? r.loss : std::min(lo, r.loss);
    hi = first ? r.loss : std::max(hi, r.loss);
    first = false;
  }
  if (hi <= lo) hi = lo + 1;
  const double n = std::max<double>(1, static_cast<double>(steps_.size()) - 1);
  std::string points;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (!std::isfinite(steps_[i].loss)) continue;
    const double x = kPad + (kWidth - 2 * kPad) * static_cast<double>(i) / n;
    const double y = kHeight - kPad - (kHeight - 2 * kPad) * (steps_[i].loss - lo) / (hi - lo);
    points += number(x, "%.1f") + "," + number(y, "%.1f") + " ";
  }
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
                     " training</title>\n<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;"
                     "text-align:right}</style></head><body>\n<h1>" +
                     html_escape(title) + ": loss per step</h1>\n";
  html += "<svg width=\"" + number(kWidth) + "\" height=\"" + number(kHeight) +
          "\" role=\"img\" aria-label=\"loss curve\">\n";
  html += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n";
  html += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"" + points + "\"/>\n";
  html += "<text x=\"4\" y=\"" + number(kPad) + "\" font-size=\"12\">" + number(hi) + "</text>\n";
  html += "<text x=\"4\" y=\"" + number(kHeight - kPad) + "\" font-size=\"12\">" + number(lo) + "</text>\n";
  html += "<text x=\"" + number(kWidth / 2) + "\" y=\"" + number(kHeight - 8) + "\" font-size=\"12\">step (" +
          std::to_string(steps_.size()) + " steps)</text>\n</svg>\n";
  html += "<h2>Epochs</h2>\n<table><tr><th>epoch</th><th>mean loss</th><th>accuracy</th></tr>\n";
  for (const EpochRecord& e : epochs_)
    html += "<tr><td>" + std::to_string(e.epoch) + "</td><td>" + number(e.mean_loss) + "</td><td>" +
            (e.accuracy < 0 ? std::string("-") : number(100 * e.accuracy, "%.2f %%")) + "</td></tr>\n";
  html += "</table>\n</body></html>\n";
  return write_file_atomically(path, html);
}

}  // namespace openge::training
