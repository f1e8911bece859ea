// `openge profile-report` as Python values: a collection folder's exported data read back
// (top operators, step times, one iteration's timeline) and the self-contained HTML report.
#include <pybind11/stl.h>

#include "binding.h"
#include "openge/profiling_report.h"

namespace openge::python {

void bind_profiling(py::module_& m) {
  m.def(
      "profile_report",
      [](const std::string& dir) {
        Result<profiling::ReportData> data = Status::Ok();
        {
          py::gil_scoped_release unlocked;
          data = profiling::load_report_data(dir);
        }
        if (!data.ok()) raise(errors().run_error, data.status().message());
        py::list ops, steps, timeline;
        for (const auto& op : data->ops)
          ops.append(py::dict(py::arg("name") = text(op.name), py::arg("type") = text(op.type),
                              py::arg("engine") = op.engine, py::arg("count") = op.count,
                              py::arg("total_ns") = op.total_ns));
        for (const auto& [iteration, ns] : data->step_times) steps.append(py::make_tuple(iteration, ns));
        for (const auto& t : data->timeline)
          timeline.append(py::dict(py::arg("name") = text(t.name), py::arg("type") = text(t.type),
                                   py::arg("engine") = t.engine, py::arg("start_us") = t.start_us,
                                   py::arg("dur_us") = t.dur_us));
        py::dict out;
        out["title"] = text(data->title);
        out["ops"] = ops;
        out["step_times_ns"] = steps;
        out["timeline"] = timeline;
        out["timeline_label"] = data->timeline_label;
        out["html"] = text(profiling::render_report_html(data.value(), {}));
        return out;
      },
      py::arg("dir"),
      "Reads a profiling collection (a PROF_* folder or its output folder) back: {'title', 'ops': [{name, type, "
      "engine, count, total_ns}] (per op name over all iterations), 'step_times_ns': [(iteration, ns)], 'timeline': "
      "[{name, type, engine, start_us, dur_us}] (one iteration), 'timeline_label', 'html': the report page}. "
      "Raises RunError when the folder holds no readable collection.");
}

}  // namespace openge::python
