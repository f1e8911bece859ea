// openge.Trainer's native part (include/openge/trainer.h): a feed of NumPy arrays by name onto the
// trainer's feeds (the model's inputs, then the labels), steps with the GIL released, parameters
// and evaluation outputs back as NumPy arrays.
#include <pybind11/stl.h>

#include <map>

#include "binding.h"
#include "openge/trainer.h"

namespace openge::python {
namespace {

constexpr int kReadableInPlace = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;

class PyTrainer {
 public:
  PyTrainer(const std::string& model, const Assignments& assignments, const std::vector<std::string>& option_files,
            std::optional<int> threads, const std::string& loss, const std::string& loss_output,
            const std::string& optimizer, float lr, float momentum, float weight_decay, float beta1, float beta2,
            float epsilon, const std::vector<std::string>& trainable, const std::string& loss_scale,
            const std::vector<int64_t>& split_by_index, const std::vector<double>& split_by_size, int64_t seed) {
    TrainerOptions o;
    o.session = session_options(assignments, option_files, threads, &warnings_);
    o.loss = loss;
    o.loss_output = loss_output;
    o.optimizer = optimizer;
    o.learning_rate = lr;
    o.momentum = momentum;
    o.weight_decay = weight_decay;
    o.beta1 = beta1;
    o.beta2 = beta2;
    o.epsilon = epsilon;
    o.trainable = trainable;
    o.loss_scale = loss_scale;
    o.split_by_index = split_by_index;
    o.split_by_size = split_by_size;
    o.seed = seed;
    Result<std::unique_ptr<Trainer>> opened = Status::Ok();
    {
      py::gil_scoped_release unlocked;
      opened = Trainer::open(model, o);
    }
    if (!opened.ok())
      raise(opened.status().code() == StatusCode::kInvalidArgument ? errors().option_error : errors().model_error,
            opened.status().message());
    trainer_ = std::move(opened.value());
  }

  // The feed's arrays in the order of the first `count` feeds; `arrays` keeps them alive.
  std::vector<Tensor> tensors_of(const py::dict& feed, size_t count, std::vector<py::object>& arrays) const {
    const auto& declared = trainer_->feeds();
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < count; ++i) index[declared[i].name] = i;
    std::vector<Tensor> tensors(count);
    arrays.assign(count, py::object());
    for (const auto& [key, value] : feed) {
      const std::string name = py::str(key);
      auto it = index.find(name);
      if (it == index.end()) {
        std::string all;
        for (size_t i = 0; i < count; ++i) all += (i ? ", " : "") + declared[i].name;
        raise(errors().input_error, "unknown feed '" + name + "'; this call takes " + all);
      }
      py::array a = py::array::ensure(value);
      if (!a) {
        PyErr_Clear();
        raise(errors().input_error, "'" + name + "': expected a numpy.ndarray");
      }
      if (a.dtype().byteorder() == '>' || (a.flags() & kReadableInPlace) != kReadableInPlace)
        a = py::module_::import("numpy").attr("ascontiguousarray")(a, a.dtype().attr("newbyteorder")("="));
      const DType dt = dtype_of(a.dtype(), declared[it->second].dtype);
      if (dt == DType::kUndefined)
        raise(errors().input_error,
              "'" + name + "': NumPy dtype " + std::string(py::str(a.dtype())) + " is not supported");
      tensors[it->second] = Tensor::borrow(dt, Shape(a.shape(), a.shape() + a.ndim()), const_cast<void*>(a.data()));
      arrays[it->second] = std::move(a);
    }
    for (size_t i = 0; i < count; ++i)
      if (!arrays[i].ptr()) raise(errors().input_error, "missing feed '" + declared[i].name + "'");
    return tensors;
  }

  float step(const py::dict& feed) {
    std::vector<py::object> arrays;
    const std::vector<Tensor> tensors = tensors_of(feed, trainer_->feeds().size(), arrays);
    Result<float> loss = Status::Ok();
    {
      py::gil_scoped_release unlocked;
      loss = trainer_->step(tensors);
    }
    if (!loss.ok()) raise(errors().run_error, loss.status().message());
    return *loss;
  }

  py::list evaluate(const py::dict& feed) {
    std::vector<py::object> arrays;
    const std::vector<Tensor> tensors = tensors_of(feed, trainer_->inputs().size(), arrays);
    Result<std::vector<Tensor>> out = Status::Ok();
    {
      py::gil_scoped_release unlocked;
      out = trainer_->evaluate(tensors);
    }
    if (!out.ok()) raise(errors().run_error, out.status().message());
    py::list list;
    for (Tensor& t : *out) list.append(to_numpy(std::move(t)));
    return list;
  }

  py::array parameter(const std::string& name) const {
    auto p = trainer_->parameter(name);
    if (!p.ok()) raise(errors().input_error, p.status().message());
    return to_numpy(std::move(p.value()));
  }

  void save(const std::string& path) const {
    Status s = trainer_->save(path);
    if (!s.ok()) raise(errors().run_error, s.message());
  }

  py::list feeds() const {
    py::list out;
    for (const auto& t : trainer_->feeds()) out.append(info_tuple(t));
    return out;
  }
  py::list outputs() const {
    py::list out;
    for (const auto& t : trainer_->outputs()) out.append(info_tuple(t));
    return out;
  }
  std::vector<std::string> trainable() const { return trainer_->trainable(); }
  int64_t steps() const { return trainer_->steps(); }
  const Trainer& get() const { return *trainer_; }
  float loss_scale() const { return trainer_->loss_scale(); }
  int64_t skipped_steps() const { return trainer_->skipped_steps(); }
  void set_learning_rate(float lr) { trainer_->set_learning_rate(lr); }
  py::list warnings() const {
    py::list out;
    for (const auto& w : warnings_) out.append(text(w));
    return out;
  }

 private:
  std::unique_ptr<Trainer> trainer_;
  std::vector<std::string> warnings_;
};

}  // namespace

void bind_trainer(py::module_& m) {
  py::class_<PyTrainer>(m, "Trainer")
      .def(py::init<const std::string&, const Assignments&, const std::vector<std::string>&, std::optional<int>,
                    const std::string&, const std::string&, const std::string&, float, float, float, float, float,
                    float, const std::vector<std::string>&, const std::string&, const std::vector<int64_t>&,
                    const std::vector<double>&, int64_t>())
      .def("step", &PyTrainer::step)
      .def("evaluate", &PyTrainer::evaluate)
      .def("parameter", &PyTrainer::parameter)
      .def("save", &PyTrainer::save)
      .def("set_learning_rate", &PyTrainer::set_learning_rate)
      .def_property_readonly("trainable", &PyTrainer::trainable)
      .def_property_readonly("steps", &PyTrainer::steps)
      .def_property_readonly("rank", [](const PyTrainer& t) { return t.get().rank(); })
      .def_property_readonly("world_size", [](const PyTrainer& t) { return t.get().world_size(); })
      .def_property_readonly("loss_scale", &PyTrainer::loss_scale)
      .def_property_readonly("skipped_steps", &PyTrainer::skipped_steps)
      .def_property_readonly("option_warnings", &PyTrainer::warnings)
      .def("_feeds", &PyTrainer::feeds)
      .def("_outputs", &PyTrainer::outputs);
}

}  // namespace openge::python
