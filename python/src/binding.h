// Shared pieces of the _openge extension module: the Python exception classes (defined in
// openge/_errors.py) and the raise helpers every binding file uses.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "openge/status.h"

namespace openge::python {

namespace py = pybind11;

// The exception classes of openge._errors, looked up once when the module loads.
struct ErrorClasses {
  py::object option_error, model_error, input_error, run_error, dump_error;
};
const ErrorClasses& errors();
void load_error_classes();

// Engine text as a Python str. Model files are untrusted: names and messages quoting them may
// hold bytes that are not UTF-8, which become U+FFFD instead of a decoding error.
py::str text(const std::string& s);

// Raises `cls(message)` (a C++ exception pybind11 turns back into the Python one).
[[noreturn]] void raise(const py::object& cls, const std::string& message);

void bind_options(py::module_& m);
void bind_session(py::module_& m);
void bind_profiling(py::module_& m);
void bind_dump(py::module_& m);

}  // namespace openge::python
