// `openge compare A B`: op-by-op comparison of two Data Dumps of the same model (e.g. float32
// against allow_mix_precision), of their `openge dump convert` output, or of one of them against
// a golden folder of .npy files from another framework ({op_name}.{output_index}[.{timestamp}].npy
// after the model's nodes, docs/FORMATS.md "Golden data for compare"). Dumps meet dumps by
// iteration, op name and output slot (task ids shift when the precision pass inserts Casts);
// golden data meets a dump's first iteration by model node name and output index (a fused op
// stands for the merged model node whose output it computes). Each output present on both sides is compared
// as float64: cosine similarity, max absolute error, and max relative error = max |a - b| / max |a|
// (relative to A's magnitude, so elements near zero do not dominate).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::dump {

struct OpComparison {
  std::string iteration, op_name, op_type;
  std::string model_node;  // the model's node this output belongs to (a fused op's merged node)
  int task_id = 0;         // in the dump (A's when both are dumps)
  int output = 0;
  std::string shape;
  std::string note;  // why the slot was not compared ("" when it was)
  double cosine = 0, max_abs_error = 0, max_rel_error = 0;
  bool exceeds = false;  // max_rel_error > threshold, or not comparable
};

struct CompareResult {
  std::string dir_a, dir_b;
  std::string kind_a, kind_b;  // "Data Dump", "converted Data Dump (.npy)" or "golden .npy folder"
  double threshold = 0;
  std::vector<OpComparison> rows;         // in the dump's iteration, then task order (A's when both are dumps)
  std::optional<size_t> first_exceeding;  // index into rows
  int only_in_a = 0, only_in_b = 0;       // ops (golden: node outputs) without a partner
  // Those ops by name, "<op_type> '<op_name>' (iteration <i>)" (with "(model node '<n>')" for a
  // fused op compared with golden data), or "'<node>' output <k>" in a golden folder; in
  // iteration then task order (a golden folder's by name).
  std::vector<std::string> ops_only_in_a, ops_only_in_b;
  // Empty, or one line naming what makes the comparison doubtful: a dump path that holds several
  // runs (timestamp folders: only the newest is compared), files of several processes, sessions
  // or models (several <model_id> folders, whose ops are matched across them), a dump of several
  // iterations compared with golden data (the first is), or .npy files a golden folder's names
  // do not fit.
  std::string warning;
};

Result<CompareResult> compare_dumps(const std::string& dir_a, const std::string& dir_b, double threshold);

// One line on the first op over the threshold, by its model node name, with the error of the
// output before it (where the error jumps); "" when no op exceeds the threshold.
std::string first_deviation_line(const CompareResult& result);

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
