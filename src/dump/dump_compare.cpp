#include "openge/dump_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "dump/dump_convert.h"
#include "dump/dump_file.h"
#include "ir/dispatch.h"

namespace openge::dump {
namespace fs = std::filesystem;

namespace {

struct DumpEntry {
  std::string path, op_type, op_name, iteration;
  int task_id = 0;
};

// The run a dump file belongs to: the timestamp folder (YYYYMMDDhhmmss, or YYYYMMDDhhmmss_<pid>
// for a process that found the second's folder taken) each run of a dump path gets, when `dir`
// is the dump path; "" when `dir` is inside one run.
std::string run_folder_of(const fs::path& file, const std::string& dir) {
  const fs::path rel = file.lexically_relative(dir);
  if (rel.empty() || std::distance(rel.begin(), rel.end()) < 2) return "";
  const std::string first = rel.begin()->string();
  auto digits = [](std::string_view t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string_view stamp = std::string_view(first).substr(0, 14);
  const bool is_run = first.size() >= 14 && digits(stamp) &&
                      (first.size() == 14 || (first[14] == '_' && digits(std::string_view(first).substr(15))));
  return is_run ? first : "";
}

using DumpIndex = std::map<std::pair<std::string, std::string>, DumpEntry>;

// Dump files under `dir`, keyed by iteration folder and op name; of a dump path holding several
// runs only the newest run's files, with `warning` naming the runs. `models` gets the folders of
// the chosen files that hold iteration folders (one per process, session or model: <model_id>).
Result<DumpIndex> index_dumps(const char* which, const std::string& dir, std::string& warning,
                              std::set<std::string>& models) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return invalid_argument(dir + " is not a folder (give a Data Dump folder)");
  std::map<std::string, std::vector<DumpEntry>> by_run;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file() || !looks_like_dump_file(name)) continue;
    const auto f = dump_name_fields(name);
    DumpEntry e{it->path().string(), f[0], f[1], it->path().parent_path().filename().string(), std::stoi(f[2])};
    by_run[run_folder_of(it->path(), dir)].push_back(std::move(e));
  }
  if (ec) return io_error("cannot list " + dir + ": " + ec.message());
  std::map<std::pair<std::string, std::string>, DumpEntry> out;
  if (by_run.empty())
    return invalid_argument("no dump files under " + dir +
                            " (dump with dump_config.enable_dump=True, dump_data=tensor)");
  if (by_run.size() > 1) {
    std::string runs;
    for (const auto& [run, entries] : by_run)
      runs += " " + (run.empty() ? std::string("(files outside a run folder)") : run);
    warning = std::string(which) + " (" + dir + ") holds the dumps of " + std::to_string(by_run.size()) + " runs (" +
              runs.substr(1) + "); compared the newest, " + by_run.rbegin()->first +
              " (give that run's folder to choose another)";
  }
  for (auto& e : by_run.rbegin()->second) {
    models.insert(fs::path(e.path).parent_path().parent_path().string());
    out[{e.iteration, e.op_name}] = std::move(e);
  }
  return out;
}

// "A (DIR) holds the dumps of 3 runs: ..." with at most two folders named, so the line stays short.
std::string several_models_warning(const char* which, const std::string& dir, const std::set<std::string>& models) {
  if (models.size() < 2) return "";
  return std::string(which) + " (" + dir + ") holds the dumps of " + std::to_string(models.size()) +
         " runs (processes, sessions or models), e.g. " + *models.begin() + " and " + *std::next(models.begin()) +
         "; ops are matched across them, so the first deviating op may be wrong: give one run's folder";
}

// Iterations in numeric order, then execution (task) order.
bool in_execution_order(const DumpEntry* x, const DumpEntry* y) {
  if (x->iteration.size() != y->iteration.size()) return x->iteration.size() < y->iteration.size();
  return x->iteration != y->iteration ? x->iteration < y->iteration : x->task_id < y->task_id;
}

std::string described(const DumpEntry& e) { return e.op_type + " '" + e.op_name + "' (iteration " + e.iteration + ")"; }

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        v[i] = p[i] ? 1.0 : 0.0;
      else
        v[i] = static_cast<double>(static_cast<float_or_self_t<T>>(p[i]));
    }
  });
  return v;
}

void compare_tensors(const Tensor& a, const Tensor& b, OpComparison& row) {
  for (int64_t d : a.shape()) row.shape += (row.shape.empty() ? "" : ",") + std::to_string(d);
  if (a.shape() != b.shape()) {
    row.note = "shapes differ";
    row.exceeds = true;
    return;
  }
  const auto x = as_doubles(a), y = as_doubles(b);
  double dot = 0, nx = 0, ny = 0, max_abs = 0, max_a = 0;
  bool non_finite = false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      non_finite = non_finite || !(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])));
      continue;
    }
    dot += x[i] * y[i];
    nx += x[i] * x[i];
    ny += y[i] * y[i];
    max_abs = std::max(max_abs, std::fabs(x[i] - y[i]));
    max_a = std::max(max_a, std::fabs(x[i]));
  }
  // Two all-zero tensors are identical; one zero tensor against another is not similar at all.
  // sqrt(nx * ny) gives exactly 1 for identical tensors; the split form only where the product overflows.
  const double norms = std::isfinite(nx * ny) ? std::sqrt(nx * ny) : std::sqrt(nx) * std::sqrt(ny);
  row.cosine = nx == 0 && ny == 0 ? 1.0 : nx == 0 || ny == 0 ? 0.0 : dot / norms;
  row.max_abs_error = max_abs;
  row.max_rel_error = max_abs == 0 ? 0 : max_a == 0 ? INFINITY : max_abs / max_a;
  if (non_finite) {
    row.note = "Inf/NaN differ";
    row.max_abs_error = row.max_rel_error = INFINITY;
  }
}

// RFC 4180 cell: names may hold commas or quotes.
std::string cell(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

Result<CompareResult> compare_dumps(const std::string& dir_a, const std::string& dir_b, double threshold) {
  std::string warning_a, warning_b;
  std::set<std::string> models_a, models_b;
  auto a = index_dumps("A", dir_a, warning_a, models_a);
  if (!a.ok()) return a.status();
  auto b = index_dumps("B", dir_b, warning_b, models_b);
  if (!b.ok()) return b.status();
  std::vector<const DumpEntry*> order;
  for (const auto& [key, entry] : *a) order.push_back(&entry);
  std::sort(order.begin(), order.end(), in_execution_order);
  CompareResult result;
  result.dir_a = dir_a;
  result.dir_b = dir_b;
  result.threshold = threshold;
  std::vector<std::string> warnings;
  for (const std::string& w : {warning_a, warning_b, several_models_warning("A", dir_a, models_a),
                               several_models_warning("B", dir_b, models_b)})
    if (!w.empty()) warnings.push_back(w);
  for (const std::string& w : warnings) result.warning += (result.warning.empty() ? "" : "; ") + w;
  std::vector<const DumpEntry*> b_alone;
  for (const auto& [key, entry] : *b)
    if (!a->count(key)) b_alone.push_back(&entry);
  std::sort(b_alone.begin(), b_alone.end(), in_execution_order);
  for (const DumpEntry* e : b_alone) result.ops_only_in_b.push_back(described(*e));
  result.only_in_b = static_cast<int>(b_alone.size());
  for (const DumpEntry* e : order) {
    auto partner = b->find({e->iteration, e->op_name});
    if (partner == b->end()) {
      ++result.only_in_a;
      result.ops_only_in_a.push_back(described(*e));
      continue;
    }
    auto ra = read_dump_file(e->path);
    if (!ra.ok()) return ra.status();
    auto rb = read_dump_file(partner->second.path);
    if (!rb.ok()) return rb.status();
    for (size_t o = 0; o < ra->outputs.size() && o < rb->outputs.size(); ++o) {
      if (!ra->outputs[o].defined() || !rb->outputs[o].defined()) continue;
      OpComparison row;
      row.iteration = e->iteration;
      row.op_name = e->op_name;
      row.op_type = e->op_type;
      row.task_id = e->task_id;
      row.output = static_cast<int>(o);
      compare_tensors(ra->outputs[o], rb->outputs[o], row);
      row.exceeds = row.exceeds || !(row.max_rel_error <= threshold);
      if (row.exceeds && !result.first_exceeding) result.first_exceeding = result.rows.size();
      result.rows.push_back(std::move(row));
    }
  }
  if (result.rows.empty())
    return invalid_argument("no op of " + dir_a + " has outputs dumped under " + dir_b +
                            " with the same iteration and op name (dump_mode output or all in both)");
  return result;
}

std::string comparison_csv(const CompareResult& r) {
  std::string out =
      "Iteration,Op Name,Op Type,Task ID,Output,Shape,Cosine Similarity,Max Abs Error,Max Rel Error,Exceeds,Note\n";
  for (const auto& row : r.rows)
    out += row.iteration + "," + cell(row.op_name) + "," + cell(row.op_type) + "," + std::to_string(row.task_id) + "," +
           std::to_string(row.output) + "," + cell(row.shape) + "," + number(row.cosine) + "," +
           number(row.max_abs_error) + "," + number(row.max_rel_error) + "," + (row.exceeds ? "yes" : "no") + "," +
           row.note + "\n";
  return out;
}

}  // namespace openge::dump
