// Shared pieces of the _openge extension module: the Python exception classes (defined in
// openge/_errors.py) and the raise helpers every binding file uses.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "openge/session.h"
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

// Between NumPy and the engine (session_binding.cpp).
// The engine dtype of an array fed to an input declared as `declared` (kUndefined: none fits).
DType dtype_of(const py::dtype& dt, DType declared);
// (name, dtype name, NumPy dtype, shape with None for unknown dims).
py::tuple info_tuple(const TensorInfo& t);
// An output as a NumPy array over the tensor's own buffer (kept alive by the array's base).
py::array to_numpy(Tensor t);
// The SessionOptions of option assignments (name, value, origin), options files and the process
// environment; OptionError listing every problem; the configuration's warnings in `warnings`.
using Assignments = std::vector<std::tuple<std::string, std::string, std::string>>;
SessionOptions session_options(const Assignments& assignments, const std::vector<std::string>& option_files,
                               std::optional<int> threads, std::vector<std::string>* warnings);

void bind_options(py::module_& m);
void bind_trainer(py::module_& m);
void bind_session(py::module_& m);
void bind_profiling(py::module_& m);
void bind_dump(py::module_& m);

}  // namespace openge::python
