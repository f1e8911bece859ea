// The HTML page of `openge compare`, written beside its CSV: a per-op plot of
// cosine similarity and max relative error in execution order with the threshold and the first
// op over it marked, and the per-op table. Self-contained (inline CSS and SVG, no script, no
// network), so it opens from a copied folder or an archive.
#pragma once
#include <string>

#include "dump/dump_compare.h"
#include "openge/status.h"

namespace openge::dump {

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
