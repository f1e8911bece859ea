// openge.Session's native part: opens a model (path or bytes) with a configuration built from
// option assignments, maps a feed of NumPy arrays onto the model's inputs without copying what
// can be read in place, runs with the GIL released and hands the outputs back as NumPy arrays
// that own the engine's buffers.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>

#include "binding.h"
#include "openge/compile.h"
#include "openge/session.h"
#include "openge/options.h"
#include "openge/explain_precision.h"

namespace openge::python {
namespace {

// NumPy's view of each DType: kind character and item size. bfloat16 has no NumPy type and
// travels as its bits in uint16 (documented in openge/__init__.pyi).
struct DTypeRow {
  DType dtype;
  char kind;
  int size;
  const char* numpy;
};
constexpr DTypeRow kDTypes[] = {
    {DType::kFloat32, 'f', 4, "float32"}, {DType::kFloat64, 'f', 8, "float64"}, {DType::kFloat16, 'f', 2, "float16"},
    {DType::kInt8, 'i', 1, "int8"},       {DType::kInt16, 'i', 2, "int16"},     {DType::kInt32, 'i', 4, "int32"},
    {DType::kInt64, 'i', 8, "int64"},     {DType::kUInt8, 'u', 1, "uint8"},     {DType::kUInt16, 'u', 2, "uint16"},
    {DType::kUInt32, 'u', 4, "uint32"},   {DType::kUInt64, 'u', 8, "uint64"},   {DType::kBool, 'b', 1, "bool"},
    {DType::kBFloat16, 'u', 2, "uint16"},
};

}  // namespace

DType dtype_of(const py::dtype& dt, DType declared) {
  const char kind = dt.kind();
  const int size = static_cast<int>(dt.itemsize());
  if (declared == DType::kBFloat16 && kind == 'u' && size == 2) return DType::kBFloat16;
  for (const auto& r : kDTypes)
    if (r.kind == kind && r.size == size) return r.dtype;
  return DType::kUndefined;
}

// The NumPy dtype object of a DType (None for types NumPy cannot hold), made once: building one
// from its name on every output costs a noticeable part of a small model's run.
py::object numpy_dtype(DType t) {
  static const auto* cache = [] {
    auto* m = new std::map<DType, py::object>();  // leaked: outlives the interpreter's teardown
    for (const auto& r : kDTypes) m->emplace(r.dtype, py::dtype(r.numpy));
    return m;
  }();
  auto it = cache->find(t);
  return it == cache->end() ? py::object(py::none()) : it->second;
}

py::tuple info_tuple(const TensorInfo& t) {
  py::list shape;
  for (int64_t d : t.shape) shape.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
  return py::make_tuple(text(t.name), dtype_name(t.dtype), numpy_dtype(t.dtype), py::tuple(shape));
}

// An output as a NumPy array over the tensor's own buffer (kept alive by the array's base).
py::array to_numpy(Tensor t) {
  py::object dt = numpy_dtype(t.dtype());
  if (dt.is_none())
    raise(errors().run_error, std::string("output dtype ") + dtype_name(t.dtype()) + " has no NumPy type");
  if (!t.owns_storage()) t = t.clone();
  auto* kept = new Tensor(std::move(t));
  py::capsule base(kept, [](void* p) { delete static_cast<Tensor*>(p); });
  std::vector<py::ssize_t> shape(kept->shape().begin(), kept->shape().end());
  return py::array(py::reinterpret_borrow<py::dtype>(dt), shape, {}, kept->raw(), base);
}

SessionOptions session_options(const Assignments& assignments, const std::vector<std::string>& option_files,
                               std::optional<int> threads, std::vector<std::string>* warnings) {
  // The CLI's bound: a thread team that size is a typo, and far more threads ask OpenMP for more
  // stacks than the process can map.
  if (threads && (*threads < 0 || *threads > 1024))
    throw py::value_error("threads must be in [0, 1024] (0: one per core), got " + std::to_string(*threads));
  options::OptionInputs in;
  for (const auto& [name, value, origin] : assignments) in.flags.push_back({name, value, origin});
  in.option_files = option_files;
  in.env = options::capture_process_environment();
  auto config = options::build_session_config(in);
  if (!config.ok()) raise(errors().option_error, config.status().message());
  *warnings = options::option_warnings(**config);
  SessionOptions so;
  so.num_threads = threads.value_or(0);
  so.config = std::move(config.value());
  return so;
}

namespace {

// openge.compile: the model compiled into a .oge (include/openge/compile.h); returns the
// configuration's warnings and the options that shaped the graph.
py::dict compile_to_file(const std::string& model, const std::string& output, const Assignments& assignments,
                         const std::vector<std::string>& option_files, const std::map<std::string, Shape>& input_shapes,
                         std::optional<int> threads) {
  std::vector<std::string> warnings;
  const SessionOptions so = session_options(assignments, option_files, threads, &warnings);
  Result<CompileSummary> summary = Status::Ok();
  {
    py::gil_scoped_release unlocked;
    summary = compile_model(model, output, so, input_shapes);
  }
  if (!summary.ok())
    raise(summary.status().code() == StatusCode::kInvalidArgument ? errors().option_error : errors().model_error,
          summary.status().message());
  py::dict out;
  py::list w;
  for (const auto& s : warnings) w.append(text(s));
  out["warnings"] = w;
  py::dict shaped;
  for (const auto& [name, value] : summary->options) shaped[text(name)] = text(value);
  out["options"] = shaped;
  out["model_nodes"] = summary->model_nodes;
  out["compiled_nodes"] = summary->compiled_nodes;
  return out;
}

constexpr int kReadableInPlace = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;

class PySession {
 public:
  PySession(py::object model, const Assignments& assignments, const std::vector<std::string>& option_files,
            std::optional<int> threads) {
    const SessionOptions so = session_options(assignments, option_files, threads, &warnings_);

    Result<std::unique_ptr<Session>> opened = Status::Ok();
    // bytes and bytearray are contiguous; openge.Session turns a memoryview into bytes first.
    if (PyBytes_Check(model.ptr()) || PyByteArray_Check(model.ptr())) {
      py::buffer_info bytes = model.cast<py::buffer>().request();
      const size_t size = static_cast<size_t>(bytes.size * bytes.itemsize);
      py::gil_scoped_release unlocked;
      opened = Session::open_from_memory(bytes.ptr, size, so);
    } else {
      const std::string path = py::module_::import("os").attr("fspath")(model).cast<std::string>();
      py::gil_scoped_release unlocked;
      opened = Session::open(path, so);
    }
    if (!opened.ok()) {
      // Configurations the session itself refuses (profiling) are option problems.
      const bool options_problem = opened.status().code() == StatusCode::kInvalidArgument;
      raise(options_problem ? errors().option_error : errors().model_error, opened.status().message());
    }
    session_ = std::move(opened.value());
    for (size_t i = 0; i < session_->inputs().size(); ++i) input_index_[session_->inputs()[i].name] = i;
    for (size_t i = 0; i < session_->outputs().size(); ++i) output_index_[session_->outputs()[i].name] = i;
  }

  py::list inputs() const { return infos(session_->inputs()); }
  py::list outputs() const { return infos(session_->outputs()); }
  py::list warnings() const {
    py::list out;
    for (const auto& w : warnings_) out.append(text(w));
    return out;
  }

  // The feed's arrays as tensors in the model's input order, reading in place what can be read
  // in place; `arrays` keeps the fed (or copied) arrays alive. Inputs the feed lacks stay
  // undefined (an error unless `allow_missing`).
  std::vector<Tensor> tensors_of(const py::dict& feed, std::vector<py::object>& arrays, bool allow_missing) const {
    const auto& declared = session_->inputs();
    arrays.assign(declared.size(), py::object());
    std::vector<Tensor> tensors(declared.size());
    for (const auto& [key, value] : feed) {
      if (!PyUnicode_Check(key.ptr()))
        raise(errors().input_error, "input names must be str, got " + std::string(py::str(py::type::of(key))));
      Py_ssize_t length = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(key.ptr(), &length);
      if (!utf8) throw py::error_already_set();
      const std::string name(utf8, static_cast<size_t>(length));
      auto it = input_index_.find(name);
      if (it == input_index_.end())
        raise(errors().input_error, "unknown input '" + name + "'; the model's inputs are " + names(declared));
      const TensorInfo& info = declared[it->second];
      py::array a =
          py::isinstance<py::array>(value) ? py::reinterpret_borrow<py::array>(value) : py::array::ensure(value);
      if (!a) {
        PyErr_Clear();
        raise(errors().input_error,
              "input '" + name + "': expected a numpy.ndarray, got " + std::string(py::str(py::type::of(value))));
      }
      if (a.dtype().byteorder() == '>' || (a.flags() & kReadableInPlace) != kReadableInPlace)
        a = py::module_::import("numpy").attr("ascontiguousarray")(a, a.dtype().attr("newbyteorder")("="));
      const DType dtype = dtype_of(a.dtype(), info.dtype);
      if (dtype == DType::kUndefined)
        raise(errors().input_error, "input '" + name + "': NumPy dtype " + std::string(py::str(a.dtype())) +
                                        " is not supported; the model takes " + dtype_name(info.dtype));
      Shape shape(a.shape(), a.shape() + a.ndim());
      tensors[it->second] = Tensor::borrow(dtype, std::move(shape), const_cast<void*>(a.data()));
      arrays[it->second] = std::move(a);
    }
    for (size_t i = 0; i < declared.size() && !allow_missing; ++i)
      if (!arrays[i].ptr()) raise(errors().input_error, "missing input '" + declared[i].name + "'");
    return tensors;
  }

  py::list run(const std::optional<std::vector<std::string>>& output_names, const py::dict& feed) {
    std::vector<py::object> arrays;
    const std::vector<Tensor> tensors = tensors_of(feed, arrays, /*allow_missing=*/false);
    std::vector<size_t> wanted;
    if (output_names && !output_names->empty()) {
      for (const auto& n : *output_names) {
        auto it = output_index_.find(n);
        if (it == output_index_.end())
          raise(errors().input_error,
                "unknown output '" + n + "'; the model's outputs are " + names(session_->outputs()));
        wanted.push_back(it->second);
      }
    } else {
      for (size_t i = 0; i < session_->outputs().size(); ++i) wanted.push_back(i);
    }

    Result<std::vector<Tensor>> result = Status::Ok();
    {
      py::gil_scoped_release unlocked;
      result = session_->run(tensors);
    }
    if (!result.ok())
      raise(result.status().code() == StatusCode::kInvalidArgument ? errors().input_error : errors().run_error,
            result.status().message());
    py::list out;
    for (size_t i : wanted) out.append(to_numpy(std::move(result.value()[i])));
    return out;
  }

  py::str profiling_dir() const { return text(session_->profiling_dir()); }
  void finish_profiling() {
    Status s = Status::Ok();
    {
      py::gil_scoped_release unlocked;
      s = session_->finish_profiling();
    }
    if (!s.ok()) raise(errors().run_error, s.message());
  }
  void range_push(const std::string& message) { session_->range_push(message); }
  void range_pop() {
    Status s = session_->range_pop();
    if (!s.ok()) raise(errors().run_error, s.message());
  }
  void mark(const std::string& message) { session_->mark(message); }

  py::list precision_report() const { return records_list(session_->precision_report()); }

  // explain_precision(): runs once on the feed (inputs it lacks get the CLI's seeded random
  // data) and returns (records, warnings, input notes).
  py::tuple explain_precision(const py::dict& feed) {
    std::vector<py::object> arrays;
    std::vector<Tensor> tensors = tensors_of(feed, arrays, /*allow_missing=*/true);
    Result<PrecisionExplanation> explained = Status::Ok();
    {
      py::gil_scoped_release unlocked;
      explained = openge::explain_precision(*session_, std::move(tensors));
    }
    if (!explained.ok())
      raise(explained.status().code() == StatusCode::kInvalidArgument ? errors().input_error : errors().run_error,
            explained.status().message());
    py::list warnings, notes;
    for (const auto& w : explained->warnings) warnings.append(text(w));
    for (const auto& n : explained->input_notes) notes.append(text(n));
    return py::make_tuple(records_list(explained->records), warnings, notes);
  }

  static py::list records_list(const std::vector<PrecisionRecord>& records) {
    py::list out;
    for (const PrecisionRecord& r : records) {
      py::dict d;
      d["node"] = text(r.node);
      d["op_type"] = text(r.op_type);
      d["ascend_type"] = text(r.ascend_type);
      d["original_dtype"] = r.original_dtype;
      d["input_dtype"] = r.input_dtype;
      d["output_dtype"] = r.output_dtype;
      d["engine"] = r.engine;
      d["rule"] = text(r.rule);
      d["impl_mode"] = r.impl_mode;
      d["impl_rule"] = text(r.impl_rule);
      out.append(d);
    }
    return out;
  }
  py::list precision_warnings() const {
    py::list out;
    for (const auto& w : session_->precision_warnings()) out.append(text(w));
    return out;
  }

 private:
  static py::list infos(const std::vector<TensorInfo>& list) {
    py::list out;
    for (const auto& t : list) out.append(info_tuple(t));
    return out;
  }
  static std::string names(const std::vector<TensorInfo>& list) {
    std::string out;
    for (const auto& t : list) out += (out.empty() ? "'" : ", '") + t.name + "'";
    return out;
  }

  std::unique_ptr<Session> session_;
  std::vector<std::string> warnings_;
  std::map<std::string, size_t> input_index_, output_index_;
};

}  // namespace

void bind_session(py::module_& m) {
  m.def("compile", &compile_to_file, py::arg("model"), py::arg("output"), py::arg("assignments"),
        py::arg("option_files"), py::arg("input_shapes"), py::arg("threads"),
        "Compiles an ONNX model into a .oge; use openge.compile.");
  py::class_<PySession>(m, "Session", "Native session; use openge.Session.")
      .def(py::init<py::object, const Assignments&, const std::vector<std::string>&, std::optional<int>>(),
           py::arg("model"), py::arg("assignments"), py::arg("option_files"), py::arg("threads"))
      .def("_inputs", &PySession::inputs, "[(name, dtype name, numpy dtype, shape)] of the model's inputs")
      .def("_outputs", &PySession::outputs, "[(name, dtype name, numpy dtype, shape)] of the model's outputs")
      .def_property_readonly("option_warnings", &PySession::warnings,
                             "Warnings of the configuration (deprecations, overrides, ignored settings).")
      .def("run", &PySession::run, py::arg("output_names"), py::arg("input_feed"),
           "run(output_names, input_feed) -> list of numpy.ndarray\n\n"
           "output_names: names of the outputs to return, in that order (None or []: all).\n"
           "input_feed: {input name: numpy.ndarray}. C-contiguous, aligned, native-endian arrays are read in place;\n"
           "others are copied first. bfloat16 inputs take uint16 arrays holding the bits.\n"
           "Releases the GIL while the model runs, so several threads can run one Session.\n"
           "Raises InputError (unknown/missing name, unsupported dtype, dtype or shape the model refuses)\n"
           "or RunError (any other failure).")
      .def_property_readonly("profiling_dir", &PySession::profiling_dir,
                             "The profiling collection folder PROF_*, or '' when profiling is off.")
      .def("finish_profiling", &PySession::finish_profiling,
           "Writes all pending profiling data, the info files and report.html; later runs are not recorded.")
      .def("range_push", &PySession::range_push, py::arg("message"),
           "Opens an msproftx range on this thread (profiling_options msproftx=on; no-op otherwise).")
      .def("range_pop", &PySession::range_pop,
           "Closes the innermost msproftx range of this thread (RunError without one).")
      .def("mark", &PySession::mark, py::arg("message"), "An msproftx instant marker on this thread.")
      .def("precision_report", &PySession::precision_report,
           "The precision pass's decision per node of the graph compiled by the first run (empty before it): "
           "[{node, op_type, ascend_type, original_dtype, input_dtype, output_dtype, engine, rule, impl_mode, "
           "impl_rule}], rule naming the setting that decided.")
      .def("_explain_precision", &PySession::explain_precision, py::arg("input_feed"),
           "Runs once on the feed (missing inputs: seeded random data) -> (records, warnings, input notes).")
      .def("precision_warnings", &PySession::precision_warnings,
           "Settings the precision pass ignored, and why (after the first run).");
}

}  // namespace openge::python
