// `openge dump convert` and `openge compare` as Python values: the same src/dump functions the
// CLI calls (convert_dumps_to_npy, compare_dumps, write_comparison_files), nothing else.
#include <pybind11/stl.h>

#include <cmath>

#include "binding.h"
#include "openge/dump_compare.h"
#include "openge/dump_convert.h"

namespace openge::python {
namespace {

py::dict row_dict(const dump::OpComparison& r) {
  py::dict d;
  d["iteration"] = text(r.iteration);
  d["op_name"] = text(r.op_name);
  d["op_type"] = text(r.op_type);
  d["task_id"] = r.task_id;
  d["output"] = r.output;
  d["shape"] = text(r.shape);
  d["cosine"] = r.cosine;
  d["max_abs_error"] = r.max_abs_error;
  d["max_rel_error"] = r.max_rel_error;
  d["exceeds"] = r.exceeds;
  d["note"] = text(r.note);
  return d;
}

py::dict compare(const std::string& dir_a, const std::string& dir_b, double threshold, const std::string& csv_path,
                 const std::string& html_path) {
  if (!(threshold >= 0))
    raise(errors().dump_error, "threshold must be a number >= 0, got " + std::to_string(threshold));
  Result<dump::CompareResult> result = Status::Ok();
  Result<std::string> page = std::string();
  {
    py::gil_scoped_release unlocked;
    result = dump::compare_dumps(dir_a, dir_b, threshold);
    if (result.ok()) page = dump::write_comparison_files(*result, csv_path, html_path);
  }
  if (!result.ok()) raise(errors().dump_error, result.status().message());
  if (!page.ok()) raise(errors().dump_error, page.status().message());
  py::list rows;
  for (const auto& r : result->rows) rows.append(row_dict(r));
  py::dict out;
  out["rows"] = rows;
  out["first_exceeding"] =
      result->first_exceeding ? py::object(py::int_(*result->first_exceeding)) : py::object(py::none());
  out["only_in_a"] = result->only_in_a;
  out["only_in_b"] = result->only_in_b;
  for (const auto& [key, names] :
       {std::pair{"ops_only_in_a", &result->ops_only_in_a}, std::pair{"ops_only_in_b", &result->ops_only_in_b}}) {
    py::list list;
    for (const std::string& n : *names) list.append(text(n));
    out[key] = list;
  }
  out["warning"] = text(result->warning);
  out["threshold"] = threshold;
  out["html_path"] = page->empty() ? py::object(py::none()) : py::object(text(*page));
  out["csv"] = text(dump::comparison_csv(*result));
  out["html"] = text(dump::comparison_html(*result));
  return out;
}

}  // namespace

void bind_dump(py::module_& m) {
  m.def(
      "dump_convert",
      [](const std::string& dir, const std::string& output_dir) {
        Result<dump::ConvertSummary> summary = Status::Ok();
        {
          py::gil_scoped_release unlocked;
          summary = dump::convert_dumps_to_npy(dir, output_dir);
        }
        if (!summary.ok()) raise(errors().dump_error, summary.status().message());
        return py::make_tuple(summary->dump_files, summary->npy_files);
      },
      py::arg("dir"), py::arg("output_dir"),
      "Converts every Data Dump file under dir into .npy files (output_dir '' : beside each dump file) -> "
      "(dump files, .npy files). Raises DumpError.");
  m.def("compare_dumps", &compare, py::arg("dir_a"), py::arg("dir_b"), py::arg("threshold"), py::arg("csv_path"),
        py::arg("html_path"),
        "Compares two Data Dumps op by op and writes the CSV to csv_path and the page beside it or to html_path "
        "('' : not written), as `openge compare --output --html` -> {'rows', 'first_exceeding', 'only_in_a', "
        "'only_in_b', 'ops_only_in_a', 'ops_only_in_b', 'warning', 'threshold', 'html_path', 'csv', 'html'}. Raises "
        "DumpError.");
}

}  // namespace openge::python
