// Training an ONNX model (the training scenario of page 002, graph_run_mode = 1): each step runs
// the model forward, the backward graph that autodiff built from it, and the optimizer's update of
// the trained parameters, which live in the Trainer between steps. One compiled training graph per
// batch shape (docs/ARCHITECTURE.md, "Training").
//
//   auto trainer = openge::Trainer::open("mlp.onnx", {.loss = "cross_entropy", .optimizer = "momentum"});
//   for (...) { auto loss = (*trainer)->step({images, labels}); }
//   (*trainer)->save("trained.onnx");
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "openge/session.h"
#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

struct TrainerOptions {
  // Threads, engines, passes and the npu.global_options() configuration, as for a Session.
  SessionOptions session;
  // "cross_entropy" (the default, as in openge train and openge.Trainer): SoftmaxCrossEntropyLoss
  // of the output against int64 class labels; "mse": mean squared error against labels of the
  // output's shape; "model": the model computes its loss (a loss node, or its one scalar output).
  // A named loss adds the input `labels` after the model's.
  std::string loss = "cross_entropy";
  std::string loss_output;  // the output the loss reads (or is); "": the first output
  // "sgd", "momentum", "nesterov", "adam", "adamw", "lamb" (training/optimizer.h has the rules).
  std::string optimizer = "sgd";
  float learning_rate = 0.01f;
  float momentum = 0.9f;
  float weight_decay = 0.0f;
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  // Seeds the masks of training-mode Dropout (each step's from this seed and the step's number).
  int64_t seed = 0;
  // Initializers to train; empty: every float initializer on a differentiable path to the loss.
  std::vector<std::string> trainable;
  // Loss scaling (the Loss Scaling notes of precision_mode): "dynamic" multiplies the loss by a
  // scale (2^16 at first), skips a step whose gradients overflow (Inf/NaN) and halves the scale,
  // and doubles it after 1000 good steps; "none" trains unscaled; a number is a fixed scale;
  // "auto": dynamic when the precision mode computes in float16, none otherwise.
  std::string loss_scale = "auto";
  // Data-parallel training, when mpirun started the process (docs/DISTRIBUTED.md): how the
  // gradients are cut into all-reduce buckets, as the TF adapter's gradient-split API —
  // split_by_index (set_split_strategy_by_idx: each bucket's last gradient index) or
  // split_by_size (set_split_strategy_by_size: each bucket's percentage of the gradient bytes).
  // Both empty: HCCL's default, 96.54 % and 3.46 % by size. hcom_parallel,
  // is_tailing_optimization, event_sync_timeout, HCCL_EXEC_TIMEOUT and HCCL_CONNECT_TIMEOUT come
  // from the configuration.
  std::vector<int64_t> split_by_index;
  std::vector<double> split_by_size;
};

class Trainer {
 public:
  ~Trainer();
  static Result<std::unique_ptr<Trainer>> open(const std::string& model_path, const TrainerOptions& options = {});

  // What step() takes: the model's inputs, then the labels for a named loss.
  const std::vector<TensorInfo>& feeds() const;
  // The model's inputs (what evaluate() takes): the first feeds.
  const std::vector<TensorInfo>& inputs() const;
  // The model's outputs (what evaluate() returns).
  const std::vector<TensorInfo>& outputs() const;
  // The trained parameters' names, in the order of the optimizer's state.
  const std::vector<std::string>& trainable() const;

  // One training step on a batch; returns the loss before the update. Under mpirun the batch is
  // this rank's shard: the gradients, the loss and the running statistics are averaged over the
  // ranks (weighted by each rank's samples), so every rank takes the step one process would take
  // on the combined batch, and all ranks keep the same parameters.
  Result<float> step(const std::vector<Tensor>& feed);
  // The model's outputs for `inputs` with the current parameters (BatchNormalization with its
  // running statistics, as in inference).
  Result<std::vector<Tensor>> evaluate(const std::vector<Tensor>& inputs);
  // A parameter's (or running statistic's) current value.
  Result<Tensor> parameter(const std::string& name) const;
  // The model with its trained initializers, as an ONNX file any runtime loads.
  Status save(const std::string& onnx_path) const;

  // Data parallelism: this process's rank and the number of ranks (0 and 1 without mpirun). The
  // parameters start as rank 0's on every rank.
  int rank() const;
  int world_size() const;
  // The gradient split in use, as set_split_strategy_by_idx takes it (each all-reduce bucket's
  // last gradient index; empty without data parallelism), and whether aoe_config.aoe_mode=4 is
  // still measuring candidate splits (it measures the steps after the first, a few per
  // candidate, then keeps the fastest and stores it in the AOE knowledge base).
  std::vector<int64_t> gradient_split() const;
  bool tuning_gradient_split() const;

  // A checkpoint: parameters, running statistics, optimizer state, step count and learning rate,
  // one .npy per tensor plus checkpoint.json in folder `dir`, written under a temporary name and
  // renamed into place (an existing checkpoint there is replaced whole). load_checkpoint()
  // restores it into a Trainer of the same model and optimizer; the steps that follow are the
  // ones the uninterrupted run would have taken. Under mpirun every rank calls both: rank 0 writes
  // after every rank has finished its step (a barrier), the others wait until it is in place, and
  // every rank loads the same folder (on a file system all hosts share). save() writes on rank 0.
  Status save_checkpoint(const std::string& dir) const;
  Status load_checkpoint(const std::string& dir);

  int64_t steps() const;  // optimizer updates made (skipped steps not counted)
  void set_learning_rate(float lr);
  // Profiling (profiling_config in TrainerOptions.session.config): every step is an iteration of
  // the collection folder, its step trace with FP start (the first forward op, or fp_point) and
  // BP end (the last backward op, or bp_point); "" when profiling is off. Data Dump: every step
  // is an iteration, dump_step selects them. As for a Session (include/openge/session.h).
  std::string profiling_dir() const;
  Status finish_profiling();
  std::string dump_dir() const;
  Status flush_dump();
  // Tells the profile how the next step's batch came from the data pipeline (seconds gathering
  // it, seconds the step waited for it, whether it was ready before the step asked): the
  // data-preprocessing profile, dp_*.csv. No-op when profiling is off.
  void record_batch_timing(int64_t samples, double gather_seconds, double wait_seconds, bool was_ready);

  // The loss scale now (1 without loss scaling) and how many steps were skipped for overflow.
  float loss_scale() const;
  int64_t skipped_steps() const;

 private:
  struct Impl;
  explicit Trainer(std::unique_ptr<Impl> impl);
  Status write_checkpoint(const std::string& dir) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace openge
