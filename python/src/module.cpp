// The _openge extension module: one thin layer over the C++ API (include/openge/session.h and
// src/options, src/paths). The pure-Python package (openge/) builds the user-facing API on it.
#include "binding.h"

#include "openge/bounded_text.h"

namespace openge::python {
namespace {
ErrorClasses* g_errors = nullptr;
}  // namespace

const ErrorClasses& errors() { return *g_errors; }

void load_error_classes() {
  py::module_ e = py::module_::import("openge._errors");
  // Leaked on purpose: Python objects must not be released by static destructors after the
  // interpreter is gone.
  g_errors = new ErrorClasses{e.attr("OptionError"), e.attr("ModelError"), e.attr("InputError"), e.attr("RunError"),
                              e.attr("DumpError")};
}

py::str text(const std::string& s) {
  PyObject* decoded = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!decoded) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

void raise(const py::object& cls, const std::string& message) {
  PyErr_SetObject(cls.ptr(), text(bound_text(message)).ptr());
  throw py::error_already_set();
}

}  // namespace openge::python

PYBIND11_MODULE(_openge, m) {
  m.doc() = "Native core of the openge package (use `import openge`, not this module).";
  openge::python::load_error_classes();
  openge::python::bind_options(m);
  openge::python::bind_session(m);
  openge::python::bind_trainer(m);
  openge::python::bind_profiling(m);
  openge::python::bind_dump(m);
}
