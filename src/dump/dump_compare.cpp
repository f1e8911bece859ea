#include "openge/dump_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "dump/compare_sources.h"
#include "ir/dispatch.h"
#include "paths/data_dump_layout.h"

namespace openge::dump {
namespace {

// "<op_type> '<op_name>' (iteration <i>)" for a dump's op, with the model node it stands for when
// that differs (a fused op); "'<node>' output <k>" for golden data.
std::string described(const SourceOutput& o) {
  if (o.op_type.empty()) return "'" + o.model_node + "' output " + std::to_string(o.model_output);
  std::string text = o.op_type + " '" + o.op_name + "'";
  if (paths::data_dump_safe_name(o.model_node) != o.op_name) text += " (model node '" + o.model_node + "')";
  return text + " (iteration " + o.iteration + ")";
}

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
  auto a = read_compare_source("A", dir_a);
  if (!a.ok()) return a.status();
  auto b = read_compare_source("B", dir_b);
  if (!b.ok()) return b.status();
  // Golden data has no iterations or task ids: outputs meet by model node and output index, and a
  // dump's first iteration stands for the inference the golden data came from.
  const bool by_model_node = a->kind == SourceKind::kGolden || b->kind == SourceKind::kGolden;
  if (by_model_node) {
    keep_first_iteration("A", dir_a, *a);
    keep_first_iteration("B", dir_b, *b);
  }
  auto key_of = [&](const SourceOutput& o) {
    return by_model_node ? paths::data_dump_safe_name(o.model_node) + "\n" + std::to_string(o.model_output)
                         : o.iteration + "\n" + o.op_name + "\n" + std::to_string(o.slot);
  };
  CompareResult result;
  result.dir_a = dir_a;
  result.dir_b = dir_b;
  result.kind_a = source_kind_name(a->kind);
  result.kind_b = source_kind_name(b->kind);
  result.threshold = threshold;
  for (const std::string& w : {a->warning, b->warning})
    if (!w.empty()) result.warning += (result.warning.empty() ? "" : "; ") + w;
  // Rows follow a dump's execution order (A's unless A is golden data).
  const bool a_leads = a->kind != SourceKind::kGolden || b->kind == SourceKind::kGolden;
  const CompareSource& lead = a_leads ? *a : *b;
  const CompareSource& other = a_leads ? *b : *a;
  std::map<std::string, size_t> other_index;
  for (size_t i = 0; i < other.outputs.size(); ++i) other_index.emplace(key_of(other.outputs[i]), i);
  std::set<std::string> lead_keys;
  std::vector<std::string>& lead_alone = a_leads ? result.ops_only_in_a : result.ops_only_in_b;
  std::vector<std::string>& other_alone = a_leads ? result.ops_only_in_b : result.ops_only_in_a;
  auto note_alone = [](std::vector<std::string>& list, const std::string& what) {
    if (std::find(list.begin(), list.end(), what) == list.end()) list.push_back(what);
  };
  OutputReader lead_reader, other_reader;
  for (const SourceOutput& o : lead.outputs) {
    lead_keys.insert(key_of(o));
    auto partner = other_index.find(key_of(o));
    if (partner == other_index.end()) {
      note_alone(lead_alone, described(o));
      continue;
    }
    const SourceOutput& p = other.outputs[partner->second];
    auto lead_tensor = lead_reader.read(o);
    if (!lead_tensor.ok()) return lead_tensor.status();
    auto other_tensor = other_reader.read(p);
    if (!other_tensor.ok()) return other_tensor.status();
    if (!lead_tensor->defined() || !other_tensor->defined()) continue;
    OpComparison row;
    row.iteration = o.iteration.empty() ? p.iteration : o.iteration;
    row.op_name = o.op_name;
    row.op_type = o.op_type;
    row.model_node = o.model_node;
    row.task_id = o.task_id;
    row.output = o.slot;
    compare_tensors(a_leads ? *lead_tensor : *other_tensor, a_leads ? *other_tensor : *lead_tensor, row);
    row.exceeds = row.exceeds || !(row.max_rel_error <= threshold);
    if (row.exceeds && !result.first_exceeding) result.first_exceeding = result.rows.size();
    result.rows.push_back(std::move(row));
  }
  for (const SourceOutput& o : other.outputs)
    if (!lead_keys.count(key_of(o))) note_alone(other_alone, described(o));
  result.only_in_a = static_cast<int>(result.ops_only_in_a.size());
  result.only_in_b = static_cast<int>(result.ops_only_in_b.size());
  if (result.rows.empty())
    return invalid_argument("no output of " + dir_a + " has a partner under " + dir_b +
                            (by_model_node ? std::string(" with the same model node name and output index (golden "
                                                         "files are named {op_name}.{output_index}.npy)")
                                           : std::string(" with the same iteration and op name (dump_mode output or "
                                                         "all in both)")));
  return result;
}

std::string comparison_csv(const CompareResult& r) {
  std::string out =
      "Iteration,Op Name,Op Type,Task ID,Output,Shape,Cosine Similarity,Max Abs Error,Max Rel Error,Exceeds,Note,"
      "Model Node\n";
  for (const auto& row : r.rows)
    out += row.iteration + "," + cell(row.op_name) + "," + cell(row.op_type) + "," + std::to_string(row.task_id) + "," +
           std::to_string(row.output) + "," + cell(row.shape) + "," + number(row.cosine) + "," +
           number(row.max_abs_error) + "," + number(row.max_rel_error) + "," + (row.exceeds ? "yes" : "no") + "," +
           row.note + "," + cell(row.model_node) + "\n";
  return out;
}

std::string first_deviation_line(const CompareResult& r) {
  if (!r.first_exceeding) return "";
  const size_t i = *r.first_exceeding;
  const OpComparison& row = r.rows[i];
  std::string line = "first op over the threshold " + number(r.threshold) + ": model node '" + row.model_node + "'";
  if (paths::data_dump_safe_name(row.model_node) != row.op_name) line += " (op '" + row.op_name + "')";
  line += " " + row.op_type + (row.op_type.empty() ? "" : " ") + "output " + std::to_string(row.output) +
          (row.iteration.empty() ? "" : ", iteration " + row.iteration) + ": max rel error " +
          number(row.max_rel_error) + ", cosine " + number(row.cosine) + ", max abs error " + number(row.max_abs_error);
  if (i > 0)
    line += "; the output before it ('" + r.rows[i - 1].model_node + "') had max rel error " +
            number(r.rows[i - 1].max_rel_error);
  else
    line += "; it is the first output compared";
  if (!row.note.empty()) line += " (" + row.note + ")";
  return line;
}

}  // namespace openge::dump
