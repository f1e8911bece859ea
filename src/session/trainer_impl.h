// What a Trainer holds (include/openge/trainer.h): the model, the parameters, running statistics
// and optimizer between steps, and the compiled graphs per batch shape. Shared by trainer.cpp
// (steps, evaluation, saving) and trainer_checkpoint.cpp.
#pragma once
#include <omp.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autodiff/training_graph.h"
#include "compiler/pipeline.h"
#include "dump/data_dumper.h"
#include "profiling/profiler.h"
#include "session/data_parallel.h"
#include "logging/log.h"
#include "openge/trainer.h"
#include "training/optimizer.h"

namespace openge {

// The optimizer inside the training graph (trainer_update_graph.cpp): after the loss scale, the
// graph takes the learning rate and gradient scale (float32 [2]), the step (int64, 1 for the first
// update) and each parameter's optimizer states; the gradients are no longer outputs, each
// parameter's OptimizerUpdate step is (after the running statistics).
inline constexpr const char* kOptimizerHyperInput = "optimizer_hyper";
inline constexpr const char* kOptimizerStepInput = "optimizer_step";
Status append_optimizer_update(autodiff::TrainingGraph& tg, const training::OptimizerConfig& config);

// variable_format_optimize (trainer_weight_formats.cpp): the oneDNN layout each parameter is held
// in between steps (format -1: plain), and a convolution node reading it (its group and shape
// drive the conversions when a parameter is read out, saved or restored).
struct HeldWeightFormat {
  int64_t format = -1;
  Node conv;
};
// Whether `config` asks for variable_format_optimize (read when a Trainer opens).
bool hold_weight_formats(const options::OptionSet* config);

// Dynamic loss scaling: the scale, and when to change it.
struct LossScaler {
  static constexpr float kInitial = 65536.0f;       // 2^16
  static constexpr int64_t kGrowthInterval = 1000;  // good steps before the scale doubles
  bool dynamic = false;
  float scale = 1.0f;
  int64_t good_steps = 0;
  int64_t skipped = 0;
};

struct Trainer::Impl {
  struct CompiledStep {
    std::unique_ptr<Executable> executable;
    std::vector<Tensor> outputs;  // reused by every step of this shape (run_into)
    Tensor loss_scale;            // the last input, refilled only when the scale changes
    float loss_scale_value = 0;
    bool step_seed = false;  // the graph trains a Dropout: the step seed comes before the loss scale
    // The graph updates the parameters itself (append_optimizer_update): inputs after the loss
    // scale, refilled every step.
    bool update_in_graph = false;
    Tensor optimizer_hyper{DType::kFloat32, Shape{2}};
    Tensor optimizer_step{DType::kInt64, Shape{}};
  };

  std::string source;
  Graph model;
  TrainerOptions options;
  autodiff::TrainingSpec spec;
  std::unique_ptr<training::Optimizer> optimizer;
  int num_threads = 1;
  std::vector<TensorInfo> inputs, feeds, outputs;
  std::vector<std::string> trainable, state_names;
  std::vector<Tensor> params, state;
  std::map<std::vector<Shape>, CompiledStep> steps;
  std::map<std::vector<Shape>, std::unique_ptr<Executable>> evaluations;
  // variable_format_optimize: decided by the first compiled step (empty before), one per parameter.
  std::vector<HeldWeightFormat> held_formats;
  bool hold_weights = false;  // variable_format_optimize=True
  // Loss scaling (TrainerOptions::loss_scale): the scale fed as the training graph's last input.
  LossScaler scaler;
  // Data parallelism under mpirun (null in a world of one): the gradient all-reduce and its thread.
  distributed::World world;
  std::unique_ptr<DataParallel> data_parallel;
  // Profiling and Data Dump of the steps (profiling_config / dump_config): every step is an
  // iteration. Declared after the compiled graphs, so destroyed first: their records point into them.
  std::unique_ptr<profiling::Profiler> profiler;
  std::unique_ptr<dump::DataDumper> dumper;

  // options.session.config resolved for the compiles (compiler/compile_config.h); null without options.
  std::shared_ptr<const compiler::CompileConfig> compile_config;

  CompileOptions compile_options() const {
    CompileOptions co;
    co.num_threads = num_threads;
    co.use_aicore = options.session.use_aicore;
    co.run_passes = options.session.run_passes;
    co.config = compile_config;
    co.training_graph = true;
    return co;
  }

  // variable_format_optimize (trainer_weight_formats.cpp). Whether the option asks for it (and
  // the trainer can: oneDNN kernels, a single process).
  bool variable_format_optimize() const;
  // Decides each parameter's layout on the first call, then marks the Conv / ConvGrad nodes of
  // `tg` that read a parameter held in a oneDNN layout.
  void mark_weight_formats(autodiff::TrainingGraph& tg);
  // Whether every node of `exe` that reads a held parameter (or its gradient) is one that knows
  // its layout: the marked convolutions on oneDNN, the optimizer update, gradient sums.
  Status check_weight_formats(const Executable& exe, size_t data_inputs) const;
  // Parameters and optimizer state between the plain layout and their held ones.
  Status convert_held(std::vector<Tensor>& params_or_state, size_t per_param, bool to_plain) const;
  bool any_held() const;
  // The parameters / optimizer state as a reader outside the steps sees them: plain.
  Result<std::vector<Tensor>> plain_params() const;
  Result<std::vector<Tensor>> plain_optimizer_state() const;

  // Feeds, then parameters, then state: the input order of every graph the trainer compiles
  // (a training graph takes the loss scale after them).
  // `held`: the parameters as the steps hold them; the plain ones otherwise (evaluate).
  std::vector<Tensor> graph_inputs(const std::vector<Tensor>& feed, const std::vector<Tensor>& held) const {
    std::vector<Tensor> in = feed;
    in.insert(in.end(), held.begin(), held.end());
    in.insert(in.end(), state.begin(), state.end());
    return in;
  }

  std::vector<Shape> shapes_of(const std::vector<Tensor>& tensors) const {
    std::vector<Shape> shapes;
    for (const Tensor& t : tensors) shapes.push_back(t.shape());
    return shapes;
  }

  Status check_feed(const std::vector<Tensor>& feed, size_t expected, const char* what) const {
    if (feed.size() != expected)
      return invalid_argument(std::string(what) + " takes " + std::to_string(expected) + " tensors (" + [&] {
        std::string names;
        for (size_t i = 0; i < expected && i < feeds.size(); ++i) names += (i ? ", " : "") + feeds[i].name;
        return names;
      }() + "), got " + std::to_string(feed.size()));
    for (size_t i = 0; i < feed.size(); ++i)
      if (feeds[i].dtype != DType::kUndefined && feed[i].dtype() != feeds[i].dtype)
        return invalid_argument(std::string(what) + ": '" + feeds[i].name + "' must be " + dtype_name(feeds[i].dtype) +
                                ", got " + dtype_name(feed[i].dtype()));
    return Status::Ok();
  }

  // Whether a step's graph holds the optimizer update. Not under data parallelism, whose updates
  // wait for each bucket's all-reduce on the communication thread while the backward pass goes on,
  // nor under dynamic loss scaling, whose update depends on every gradient being finite.
  bool update_in_graph() const { return !data_parallel && !scaler.dynamic; }

  Result<CompiledStep*> compiled_step(const std::vector<Tensor>& feed) {
    const std::vector<Shape> shapes = shapes_of(feed);
    auto it = steps.find(shapes);
    if (it != steps.end()) return &it->second;
    auto tg = autodiff::build_training_graph(model, shapes, spec);
    if (!tg.ok()) return tg.status();
    if (tg->trainable != trainable || tg->state != state_names)
      return internal_error("the training graph for batch shape " + shape_to_string(shapes[0]) +
                            " trains other parameters");
    std::vector<Shape> all = shapes;
    for (const Tensor& t : params) all.push_back(t.shape());
    for (const Tensor& t : state) all.push_back(t.shape());
    if (tg->step_seed) all.push_back(Shape{2});
    all.push_back(autodiff::loss_scale_tensor(tg->graph, 1.0f).shape());
    const bool in_graph = update_in_graph();
    if (in_graph) {
      OPENGE_RETURN_IF_ERROR(append_optimizer_update(*tg, optimizer->config()));
      all.push_back(Shape{2});
      all.push_back(Shape{});
      for (const Tensor& t : params)
        for (size_t k = 0; k < optimizer->state_per_param(); ++k) all.push_back(t.shape());
    }
    const bool step_seed = tg->step_seed;
    const double start = omp_get_wtime();
    const bool deciding = held_formats.empty();
    std::optional<Graph> unmarked;
    if (variable_format_optimize()) {
      if (deciding) unmarked = tg->graph;
      mark_weight_formats(*tg);
    }
    auto exe = compiler::compile(std::move(tg->graph), all, compile_options());
    if (!exe.ok()) return exe.status();
    if (Status held = check_weight_formats(**exe, tg->data_inputs); !held.ok()) {
      if (!unmarked) return held;
      // Some reader of a held weight does not know its layout: every parameter stays plain.
      OPENGE_LOG_WARNING("GE",
                         "variable_format_optimize: " + held.message() + "; the weights stay in their plain layout");
      held_formats.assign(params.size(), HeldWeightFormat{});
      exe = compiler::compile(std::move(*unmarked), all, compile_options());
      if (!exe.ok()) return exe.status();
    } else if (deciding && any_held()) {
      OPENGE_RETURN_IF_ERROR(convert_held(params, 1, false));
      OPENGE_RETURN_IF_ERROR(convert_held(optimizer->state(), optimizer->state_per_param(), false));
    }
    if (held_formats.empty()) held_formats.assign(params.size(), HeldWeightFormat{});
    OPENGE_LOG_INFO("GE", "training graph for batch " + shape_to_string(shapes[0]) + " compiled in " +
                              std::to_string(static_cast<int>((omp_get_wtime() - start) * 1000)) +
                              " ms: " + std::to_string((*exe)->nodes().size()) + " nodes");
    CompiledStep& step = steps[shapes];
    step.executable = std::move(exe.value());
    step.step_seed = step_seed;
    step.update_in_graph = in_graph;
    return &step;
  }
};

}  // namespace openge
