// The Trainer (include/openge/trainer.h): composes autodiff (the training graph), the compile
// pipeline (one Executable per batch shape) and the optimizer, and owns the parameters, running
// statistics and optimizer state between steps.
#include "openge/trainer.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include <omp.h>

#include "base/guard.h"
#include "base/omp_threads.h"
#include "distributed/world.h"
#include "frontend/model_writer.h"
#include "frontend/onnx_loader.h"
#include "logging/log.h"
#include "options/option_set.h"
#include "precision/precision_mode.h"
#include "profiling/clock.h"
#include "session/compile_config_resolver.h"
#include "session/observed_run.h"
#include "session/trainer_impl.h"

namespace openge {
namespace {

Result<autodiff::LossKind> parse_loss(const std::string& name) {
  if (name == "model" || name.empty()) return autodiff::LossKind::kModelOutput;
  if (name == "cross_entropy") return autodiff::LossKind::kCrossEntropy;
  if (name == "mse") return autodiff::LossKind::kMse;
  return invalid_argument("unknown loss '" + name + "'; choose model, cross_entropy or mse");
}

// Whether every gradient element is finite (the overflow check of dynamic loss scaling).
bool all_finite(const std::vector<Tensor>& grads) {
  for (const Tensor& g : grads) {
    if (g.dtype() != DType::kFloat32) continue;
    const float* p = g.data<float>();
    bool finite = true;
    for (int64_t i = 0; i < g.numel(); ++i) finite &= std::isfinite(p[i]);
    if (!finite) return false;
  }
  return true;
}

// The loss scaling TrainerOptions::loss_scale asks for under the session's precision mode.
Result<LossScaler> loss_scaler(const TrainerOptions& options) {
  LossScaler ls;
  const std::string& v = options.loss_scale;
  bool dynamic = v == "dynamic";
  if (v == "auto" && options.session.config) {
    auto mode = precision::effective_precision_mode(*options.session.config);
    if (!mode.ok()) return mode.status();
    dynamic = !mode->keeps_origin() && mode->low == DType::kFloat16;
  }
  if (dynamic) {
    ls.dynamic = true;
    ls.scale = LossScaler::kInitial;
  } else if (v != "auto" && v != "none") {
    try {
      size_t used = 0;
      ls.scale = std::stof(v, &used);
      if (used != v.size() || !(ls.scale > 0) || !std::isfinite(ls.scale)) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      return invalid_argument("loss_scale must be auto, dynamic, none or a positive number, got '" + v + "'");
    }
  }
  return ls;
}

// Declared input shapes with every unknown dim taken as 1: what open() builds the training graph
// for once, to learn which parameters train before the first batch arrives.
std::vector<Shape> probe_shapes(const Graph& g) {
  std::vector<Shape> shapes;
  for (int v : g.inputs) {
    Shape s = g.values[static_cast<size_t>(v)].shape.value_or(Shape{});
    for (int64_t& d : s)
      if (d < 0) d = 1;
    shapes.push_back(s);
  }
  return shapes;
}

}  // namespace

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::~Trainer() = default;

Result<std::unique_ptr<Trainer>> Trainer::open(const std::string& model_path, const TrainerOptions& options) {
  auto opened = guard_exceptions(
      [&]() -> Result<std::unique_ptr<Trainer>> {
        if (options.session.config && options.session.config->graph_run_mode() != 1)
          return invalid_argument("graph_run_mode is " + std::to_string(options.session.config->graph_run_mode()) +
                                  " (online inference), and a Trainer trains: set graph_run_mode=1 (its default) or "
                                  "run the model with a Session");
        const DataParallelSettings dps =
            data_parallel_settings(options.session.config.get(), options.split_by_index, options.split_by_size);
        // Under mpirun: joining the world and receiving rank 0's weights, within HCCL_CONNECT_TIMEOUT.
        distributed::SetupDeadline setup(dps.timeouts.connect_ms);
        auto world = distributed::join_world();
        if (!world.ok()) return world.status();
        auto loss = parse_loss(options.loss);
        if (!loss.ok()) return loss.status();
        auto kind = training::parse_optimizer(options.optimizer);
        if (!kind.ok()) return kind.status();
        if (!(options.learning_rate > 0))
          return invalid_argument("the learning rate must be > 0, got " + std::to_string(options.learning_rate));
        // Profiling and dump configurations fail before the model is read, as for a Session.
        std::unique_ptr<profiling::Profiler> profiler;
        std::optional<dump::DumpConfig> dumping;
        if (options.session.config) {
          if (profiling::profiling_enabled(*options.session.config)) {
            auto pc = profiling::profiler_config_from_options(*options.session.config);
            if (!pc.ok()) return pc.status();
            // Each rank profiles as its device: the local rank, unless device_id says otherwise.
            if (world->data_parallel() && !options.session.config->user_set("device_id"))
              pc->device_id = world->local_rank;
            auto created = profiling::Profiler::create(std::move(pc.value()));
            if (!created.ok()) return created.status();
            profiler = std::move(created.value());
          }
          auto dc = dump::dump_config_from_options(*options.session.config);
          if (!dc.ok()) return dc.status();
          dumping = std::move(dc.value());
          if (dumping && world->data_parallel() && !options.session.config->user_set("device_id"))
            dumping->device_id = world->local_rank;
        }
        auto graph = load_onnx(model_path);
        if (!graph.ok()) return graph.status();

        auto impl = std::make_unique<Impl>();
        if (options.session.config) {
          auto config = resolve_compile_config(*options.session.config,
                                               {.rewrites = true, .run_passes = options.session.run_passes});
          if (!config.ok()) return config.status().with_context("model " + model_path);
          impl->compile_config = std::move(config.value());
        }
        impl->source = model_path;
        impl->model = std::move(graph.value());
        impl->options = options;
        impl->spec.loss = *loss;
        impl->spec.output = options.loss_output;
        impl->spec.trainable = options.trainable;
        impl->hold_weights = hold_weight_formats(options.session.config.get());
        impl->num_threads = options.session.num_threads > 0 ? options.session.num_threads : omp_get_max_threads();
        training::OptimizerConfig oc;
        oc.kind = *kind;
        oc.lr = options.learning_rate;
        oc.momentum = options.momentum;
        oc.weight_decay = options.weight_decay;
        oc.beta1 = options.beta1;
        oc.beta2 = options.beta2;
        oc.epsilon = options.epsilon;
        impl->optimizer = std::make_unique<training::Optimizer>(oc);
        impl->profiler = std::move(profiler);
        if (dumping) {
          const std::string name =
              impl->model.name.empty() ? std::filesystem::path(model_path).stem().string() : impl->model.name;
          impl->dumper = std::make_unique<dump::DataDumper>(std::move(*dumping), name);
        }
        auto scaler = loss_scaler(options);
        if (!scaler.ok()) return scaler.status();
        impl->scaler = *scaler;

        const Graph& g = impl->model;
        for (int v : g.inputs) {
          const Value& value = g.values[static_cast<size_t>(v)];
          impl->feeds.push_back({value.name, value.dtype, value.shape.value_or(Shape{}), value.kind});
        }
        impl->inputs = impl->feeds;
        for (int v : g.outputs) {
          const Value& value = g.values[static_cast<size_t>(v)];
          impl->outputs.push_back({value.name, value.dtype, value.shape.value_or(Shape{}), value.kind});
        }
        std::vector<Shape> probe = probe_shapes(g);
        if (*loss != autodiff::LossKind::kModelOutput) {
          // The labels: class indices per sample for cross entropy, the output's shape for mse.
          const TensorInfo& out = impl->outputs.empty() ? TensorInfo{} : impl->outputs[0];
          Shape labels = out.shape;
          if (*loss == autodiff::LossKind::kCrossEntropy) labels = labels.size() >= 2 ? Shape{labels[0]} : Shape{-1};
          impl->feeds.push_back({impl->spec.labels_input,
                                 *loss == autodiff::LossKind::kCrossEntropy ? DType::kInt64 : out.dtype, labels,
                                 ValueKind::kTensor});
          probe.push_back(Shape{});  // derived from the output's inferred shape
        }
        auto tg = autodiff::build_training_graph(g, probe, impl->spec);
        if (!tg.ok()) return tg.status();
        if (*loss != autodiff::LossKind::kModelOutput) {
          // The labels' dtype as the training graph infers it (an output without a declared type).
          const Value& labels = tg->graph.values[static_cast<size_t>(tg->graph.inputs[tg->data_inputs - 1])];
          impl->feeds.back().dtype = labels.dtype;
        }
        impl->trainable = tg->trainable;
        impl->state_names = tg->state;
        for (const Tensor& t : tg->initial_values) impl->params.push_back(t.clone());
        for (const Tensor& t : tg->initial_state) impl->state.push_back(t.clone());
        for (const Tensor& t : impl->params)
          if (t.dtype() != DType::kFloat32)
            return unsupported(std::string("parameters are trained in float32; the model has ") +
                               dtype_name(t.dtype()) + " ones");
        impl->world = *world;
        if (dps.tune_split && !world->data_parallel())
          OPENGE_LOG_WARNING("GE",
                             "aoe_config.aoe_mode=4 tunes how data-parallel training all-reduces its gradients; "
                             "this process trains alone (start it with mpirun -np N): nothing to tune");
        if (world->data_parallel()) {
          DataParallelSettings settings = dps;
          settings.threads = impl->num_threads;
          settings.model_name = std::filesystem::path(model_path).stem().string();
          auto dp = DataParallel::create(*world, settings, impl->trainable, impl->params, impl->state);
          if (!dp.ok()) return dp.status();
          impl->data_parallel = std::move(dp.value());
          OPENGE_RETURN_IF_ERROR(impl->data_parallel->broadcast_from_root(impl->params, impl->state));
          setup.disarm();
          if (dps.tailing && impl->scaler.dynamic)
            OPENGE_LOG_WARNING("GE",
                               "is_tailing_optimization waits for every bucket under dynamic loss scaling: a step "
                               "whose gradients overflow must be skipped on every parameter");
        }
        OPENGE_LOG_INFO(
            "GE",
            "trainer for " + model_path + ": " + std::to_string(impl->trainable.size()) + " parameters, " +
                std::to_string(impl->state.size()) + " running statistics, optimizer " + options.optimizer +
                (impl->scaler.dynamic ? ", dynamic loss scaling" : "") +
                (world->data_parallel()
                     ? ", rank " + std::to_string(world->rank) + " of " + std::to_string(world->size) + ", " +
                           std::to_string(impl->data_parallel->bucket_count()) + " gradient buckets, hcom_parallel " +
                           (dps.overlap ? "on" : "off") + ", is_tailing_optimization " + (dps.tailing ? "on" : "off")
                     : std::string()));
        return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
      },
      [&] { return "model " + model_path; });
  // A rank that cannot train leaves the others waiting for it: the job ends with it.
  if (!opened.ok() && distributed::started_by_mpi_launcher()) distributed::mark_job_failed();
  return opened;
}

const std::vector<TensorInfo>& Trainer::feeds() const { return impl_->feeds; }
const std::vector<TensorInfo>& Trainer::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Trainer::outputs() const { return impl_->outputs; }
const std::vector<std::string>& Trainer::trainable() const { return impl_->trainable; }
int Trainer::rank() const { return impl_->world.rank; }
int Trainer::world_size() const { return impl_->world.size; }
std::vector<int64_t> Trainer::gradient_split() const {
  return impl_->data_parallel ? impl_->data_parallel->split_by_index() : std::vector<int64_t>{};
}
bool Trainer::tuning_gradient_split() const { return impl_->data_parallel && impl_->data_parallel->tuning_split(); }
int64_t Trainer::steps() const { return impl_->optimizer->steps(); }
float Trainer::loss_scale() const { return impl_->scaler.scale; }
std::string Trainer::profiling_dir() const { return impl_->profiler ? impl_->profiler->collection_dir() : ""; }
Status Trainer::finish_profiling() { return impl_->profiler ? impl_->profiler->finish() : Status::Ok(); }
void Trainer::record_batch_timing(int64_t samples, double gather_seconds, double wait_seconds, bool was_ready) {
  if (!impl_->profiler) return;
  impl_->profiler->record_data_batch({profiling::steady_now_ns(), static_cast<int64_t>(gather_seconds * 1e9),
                                      static_cast<int64_t>(wait_seconds * 1e9), samples, was_ready ? 1 : 0});
}

std::string Trainer::dump_dir() const { return impl_->dumper ? impl_->dumper->session_dir() : ""; }
Status Trainer::flush_dump() { return impl_->dumper ? impl_->dumper->flush() : Status::Ok(); }
int64_t Trainer::skipped_steps() const { return impl_->scaler.skipped; }
void Trainer::set_learning_rate(float lr) { impl_->optimizer->set_learning_rate(lr); }

Result<float> Trainer::step(const std::vector<Tensor>& feed) {
  auto stepped = guard_exceptions(
      [&]() -> Result<float> {
        Impl& im = *impl_;
        OPENGE_RETURN_IF_ERROR(im.check_feed(feed, im.feeds.size(), "a training step"));
        ScopedNumThreads threads(im.num_threads);
        auto step = im.compiled_step(feed);
        if (!step.ok()) return step.status();
        Impl::CompiledStep& s = **step;
        if (!s.loss_scale.defined() || s.loss_scale_value != im.scaler.scale) {
          s.loss_scale = autodiff::loss_scale_tensor(s.executable->graph(), im.scaler.scale);
          s.loss_scale_value = im.scaler.scale;
        }
        DataParallel* dp = im.data_parallel.get();
        RunObserver* hand_over = nullptr;
        if (dp) {
          auto tap = dp->begin_step(*s.executable, feed.empty() || feed[0].rank() == 0 ? 1 : feed[0].dim(0));
          if (!tap.ok()) return tap.status();
          hand_over = *tap;
        }
        std::vector<Tensor> inputs = im.graph_inputs(feed, im.params);
        if (s.step_seed) {
          // Dropout's masks: from the seed and the step's number (skipped steps count: a retried batch
          // draws new masks), so a resumed run draws what the uninterrupted one drew.
          const int64_t attempt = im.optimizer->steps() + im.scaler.skipped;
          inputs.push_back(autodiff::step_seed_tensor(static_cast<int64_t>(im.options.seed * 1000003 + attempt),
                                                      dp ? dp->sample_offset() : 0));
        }
        inputs.push_back(s.loss_scale);
        if (s.update_in_graph) {
          // The step is counted (and the state sized, on the first) before the graph updates.
          im.optimizer->begin_step(im.params);
          s.optimizer_hyper.data<float>()[0] = im.optimizer->config().lr;
          s.optimizer_hyper.data<float>()[1] = 1.0f / im.scaler.scale;
          s.optimizer_step.data<int64_t>()[0] = im.optimizer->steps();
          inputs.push_back(s.optimizer_hyper);
          inputs.push_back(s.optimizer_step);
          inputs.insert(inputs.end(), im.optimizer->state().begin(), im.optimizer->state().end());
        }
        float loss = 0;
        // The update runs inside the step's profiling iteration: its Iteration Refresh.
        auto update = [&]() -> Status {
          const size_t n = im.params.size();
          LossScaler& ls = im.scaler;
          bool overflow = false, begun = false;
          int64_t update_start = -1;
          // Parameters [first, last] from their (mean) gradients; the first call checks for overflow
          // when the loss is scaled dynamically (it then covers every parameter) and counts the step.
          auto apply = [&](size_t first, size_t last, const std::vector<Tensor>& grads) -> Status {
            if (!begun) {
              if (ls.dynamic && !all_finite(grads)) {
                overflow = true;
                return Status::Ok();
              }
              im.optimizer->begin_step(im.params);
              begun = true;
              if (im.profiler) update_start = profiling::steady_now_ns();
            }
            for (size_t i = first; i <= last && i < n; ++i)
              OPENGE_RETURN_IF_ERROR(im.optimizer->update(i, im.params[i], grads[i], 1.0f / ls.scale));
            return Status::Ok();
          };
          if (s.update_in_graph) {
            // The graph updated the parameters and optimizer state; the running statistics remain.
            loss = static_cast<float>(s.outputs[0].scalar_as_double());
            for (size_t i = 0; i < im.state.size(); ++i)
              std::memcpy(im.state[i].raw(), s.outputs[1 + i].raw(), im.state[i].nbytes());
            return Status::Ok();
          }
          if (dp) {
            OPENGE_RETURN_IF_ERROR(dp->finish_step(s.outputs, !ls.dynamic, [&](size_t first, size_t last) {
              return apply(first, last, dp->reduced_gradients());
            }));
            loss = dp->mean_loss();
            // The step's collectives (and, on the first step, the set-up broadcast) join its profile.
            for (distributed::CollectiveEvent& e : dp->take_events())
              if (im.profiler)
                im.profiler->record_collective({std::move(e.name), std::move(e.what), std::move(e.algorithm), e.bucket,
                                                im.world.rank, im.world.size, e.step, e.bytes, e.start_ns, e.end_ns});
          } else {
            const std::vector<Tensor> grads(s.outputs.begin() + 1,
                                            s.outputs.begin() + 1 + static_cast<std::ptrdiff_t>(n));
            if (n > 0) OPENGE_RETURN_IF_ERROR(apply(0, n - 1, grads));
            loss = static_cast<float>(s.outputs[0].scalar_as_double());
          }
          if (overflow) {
            // No update (weights, optimizer state and running statistics stay), a smaller scale.
            ++ls.skipped;
            ls.good_steps = 0;
            OPENGE_LOG_WARNING("GE", "training step " + std::to_string(im.optimizer->steps() + ls.skipped) +
                                         ": gradients overflow (Inf/NaN) at loss scale " + std::to_string(ls.scale) +
                                         "; step skipped, loss scale " + std::to_string(ls.scale / 2));
            ls.scale = std::max(ls.scale / 2, 1.0f);
            return Status::Ok();
          }
          for (size_t i = 0; i < im.state.size(); ++i) {
            const Tensor& updated = s.outputs[1 + n + i];
            std::memcpy(im.state[i].raw(), updated.raw(), im.state[i].nbytes());
          }
          if (im.profiler && update_start >= 0)
            im.profiler->record_api("OptimizerUpdate", update_start, profiling::steady_now_ns());
          if (ls.dynamic && ++ls.good_steps == LossScaler::kGrowthInterval) {
            OPENGE_LOG_INFO("GE", "training step " + std::to_string(im.optimizer->steps()) + ": " +
                                      std::to_string(LossScaler::kGrowthInterval) +
                                      " steps without overflow, loss scale " + std::to_string(ls.scale) + " -> " +
                                      std::to_string(ls.scale * 2));
            ls.scale *= 2;
            ls.good_steps = 0;
          }
          return Status::Ok();
        };
        const Status ran = run_observed(*s.executable, inputs, s.outputs, im.profiler.get(), im.dumper.get(), nullptr,
                                        "TrainingStep", update, hand_over);
        // A failed run does not count as a step (parameters its update nodes reached stay updated:
        // the error ends the training run, which resumes from its last checkpoint).
        if (!ran.ok() && s.update_in_graph) im.optimizer->restore(im.optimizer->steps() - 1, im.optimizer->state());
        OPENGE_RETURN_IF_ERROR(ran);
        return loss;
      },
      [&] { return "training step of " + impl_->source; });
  // A rank whose step failed leaves the others waiting in a collective: the job ends with it.
  if (!stepped.ok() && impl_->data_parallel) distributed::mark_job_failed();
  return stepped;
}

Result<std::vector<Tensor>> Trainer::evaluate(const std::vector<Tensor>& inputs) {
  return guard_exceptions(
      [&]() -> Result<std::vector<Tensor>> {
        Impl& im = *impl_;
        OPENGE_RETURN_IF_ERROR(im.check_feed(inputs, im.model.inputs.size(), "evaluate"));
        ScopedNumThreads threads(im.num_threads);
        auto plain = im.plain_params();
        if (!plain.ok()) return plain.status();
        const std::vector<Tensor> all = im.graph_inputs(inputs, *plain);
        const std::vector<Shape> shapes = im.shapes_of(inputs);
        auto it = im.evaluations.find(shapes);
        if (it == im.evaluations.end()) {
          std::vector<std::string> names = im.trainable;
          names.insert(names.end(), im.state_names.begin(), im.state_names.end());
          auto graph = autodiff::parameterized_forward_graph(im.model, names);
          if (!graph.ok()) return graph.status();
          auto exe = compiler::compile(std::move(graph.value()), im.shapes_of(all), im.compile_options());
          if (!exe.ok()) return exe.status();
          it = im.evaluations.emplace(shapes, std::move(exe.value())).first;
        }
        return it->second->run(all);
      },
      [&] { return "evaluation of " + impl_->source; });
}

Result<Tensor> Trainer::parameter(const std::string& name) const {
  for (size_t i = 0; i < impl_->trainable.size(); ++i)
    if (impl_->trainable[i] == name) {
      auto plain = impl_->plain_params();
      if (!plain.ok()) return plain.status();
      return (*plain)[i].clone();
    }
  for (size_t i = 0; i < impl_->state_names.size(); ++i)
    if (impl_->state_names[i] == name) return impl_->state[i].clone();
  return invalid_argument("'" + name + "' is neither a trained parameter nor a running statistic of the model");
}

Status Trainer::save(const std::string& onnx_path) const {
  if (impl_->world.rank != 0) return Status::Ok();  // every rank holds the same parameters
  std::map<std::string, Tensor> values;
  auto plain = impl_->plain_params();
  if (!plain.ok()) return plain.status();
  for (size_t i = 0; i < impl_->trainable.size(); ++i) values[impl_->trainable[i]] = (*plain)[i];
  for (size_t i = 0; i < impl_->state_names.size(); ++i) values[impl_->state_names[i]] = impl_->state[i];
  return write_model_with_initializers(impl_->source, values, onnx_path);
}

}  // namespace openge
