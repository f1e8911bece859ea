// `openge compare A B`: op-by-op comparison of two Data Dumps of the same
// model (e.g. float32 against allow_mix_precision). Dump files are matched by iteration and op
// name (task ids shift when the precision pass inserts Casts); each output slot present in both
// is compared as float64: cosine similarity, max absolute error, and max relative error
// = max |a - b| / max |a| (relative to A's magnitude, so elements near zero do not dominate).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::dump {

struct OpComparison {
  std::string iteration, op_name, op_type;
  int task_id = 0;  // in A
  int output = 0;
  std::string shape;
  std::string note;  // why the slot was not compared ("" when it was)
  double cosine = 0, max_abs_error = 0, max_rel_error = 0;
  bool exceeds = false;  // max_rel_error > threshold, or not comparable
};

struct CompareResult {
  std::string dir_a, dir_b;
  double threshold = 0;
  std::vector<OpComparison> rows;         // in A's iteration, then task order
  std::optional<size_t> first_exceeding;  // index into rows
  int only_in_a = 0, only_in_b = 0;       // dump files without a partner
  // Those ops by name, "<op_type> '<op_name>' (iteration <i>)", in iteration then task order.
  std::vector<std::string> ops_only_in_a, ops_only_in_b;
  // Empty, or one line naming what makes the comparison doubtful: a dump path that holds several
  // runs (timestamp folders: only the newest is compared), or files of several processes,
  // sessions or models (several <model_id> folders, whose ops are matched across them).
  std::string warning;
};

Result<CompareResult> compare_dumps(const std::string& dir_a, const std::string& dir_b, double threshold);

std::string comparison_csv(const CompareResult& result);

// The HTML page of `openge compare`, written beside its CSV: a per-op plot of
// cosine similarity and max relative error in execution order with the threshold and the first
// op over it marked, and the per-op table. Self-contained (inline CSS and SVG, no script, no
// network), so it opens from a copied folder or an archive.
std::string comparison_html(const CompareResult& result);

// Where the page goes, as `openge compare --output CSV [--html PAGE]` decides: `html_path` when
// given, else beside the CSV (FILE.csv -> FILE.html, another name gets ".html" appended), else
// nowhere ("").
std::string comparison_html_path(const std::string& csv_path, const std::string& html_path);

// Writes the CSV to `csv_path` (unless "") and the page to comparison_html_path(csv_path,
// html_path) (unless ""), each atomically; when the page cannot be written the CSV is removed
// again, so a failed call leaves neither. Returns the page's path ("" when none was asked for).
Result<std::string> write_comparison_files(const CompareResult& result, const std::string& csv_path,
                                           const std::string& html_path);

}  // namespace openge::dump
