// Data-parallel training steps (page 002's distributed scenario, over Open MPI): every rank runs
// the same training graph on its own shard of the global batch, and the gradients are averaged
// over the ranks, bucket by bucket, before the optimizer uses them.
//
//   hcom_parallel=True (the default): a bucket's all-reduce starts as soon as the backward pass
//     has produced its last gradient, while the rest of the backward pass runs (the run's
//     observer copies each gradient into its bucket when its node ends);
//   hcom_parallel=False: every bucket is all-reduced after the backward pass.
//   is_tailing_optimization=True: the optimizer updates the parameters of each bucket as soon as
//     that bucket is reduced, while the last buckets' all-reduces are still in flight (not with
//     dynamic loss scaling, whose overflow check needs every gradient first).
//
// Each rank's contribution is weighted by its share of the global batch (its samples over the
// sum of every rank's, learned by a small all-reduce at the step's start), so that N ranks give
// the step a single process would take on the combined batch. The loss and the running
// statistics of BatchNormalization are averaged the same way.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/gradient_buckets.h"
#include "distributed/world.h"
#include "openge/tensor.h"
#include "paths/artifact_paths.h"
#include "runtime/executable.h"

namespace openge {

struct DataParallelSettings {
  bool overlap = true;   // hcom_parallel
  bool tailing = false;  // is_tailing_optimization
  distributed::SplitStrategy split;
  distributed::Timeouts timeouts;
  // aoe_config.aoe_mode 4, gradient-split tuning: the first steps after the first measure each
  // candidate split (distributed::split_candidates) for a few steps; the fastest (the ranks' mean
  // of the median step times) is kept, stored in the AOE knowledge base and recorded in
  // aoe_result_gdat_*.json. Any later job of the same model, rank count and threads without a
  // split of its own takes the split from the knowledge base.
  bool tune_split = false;
  paths::ResolvedPath aoe_data{paths::ArtifactKind::kAoeData, "", false, "", ""};  // path "": no knowledge base
  std::string model_name;
  int threads = 1;
};

namespace options {
class OptionSet;
}

// The settings a configuration and the trainer's split give: hcom_parallel, is_tailing_optimization,
// event_sync_timeout, HCCL_EXEC_TIMEOUT and HCCL_CONNECT_TIMEOUT (`config` may be null: defaults).
DataParallelSettings data_parallel_settings(const options::OptionSet* config, std::vector<int64_t> split_by_index,
                                            std::vector<double> split_by_size);

// Gradient-split tuning steps per candidate split.
inline constexpr int kSplitTuningStepsPerCandidate = 3;

class DataParallel {
 public:
  // `params` are the trained parameters (float32), in the trainer's order; `state_count` the
  // running statistics that follow the gradients in the training graph's outputs.
  static Result<std::unique_ptr<DataParallel>> create(const distributed::World& world, DataParallelSettings settings,
                                                      const std::vector<std::string>& param_names,
                                                      const std::vector<Tensor>& params,
                                                      const std::vector<Tensor>& state);
  ~DataParallel();

  const distributed::World& world() const { return comm_->world(); }
  const DataParallelSettings& settings() const { return settings_; }
  size_t bucket_count() const { return buckets_.size(); }
  // The split in use, as set_split_strategy_by_idx takes it.
  std::vector<int64_t> split_by_index() const { return distributed::split_indices(buckets_); }
  // Whether gradient-split tuning (aoe_mode 4) is still measuring.
  bool tuning_split() const { return tuning_.has_value(); }

  // Rank 0's parameters and running statistics, copied into every rank's (before the first step).
  Status broadcast_from_root(std::vector<Tensor>& params, std::vector<Tensor>& state);

  // Starts a step of `local_samples` samples on this rank. Returns the observer to run the
  // step's graph with (null when hcom_parallel is off): it hands each gradient to its bucket.
  Result<RunObserver*> begin_step(const Executable& exe, int64_t local_samples);

  // After the run: the gradients not handed over yet go to their buckets, every bucket and the
  // loss and running statistics are reduced, and `update(first, last)` is called for the
  // parameters [first, last] of each bucket once its mean gradients are in reduced_gradients():
  // bucket by bucket as they arrive with is_tailing_optimization, otherwise once for all
  // (first 0, last n-1) after every all-reduce ended. `outputs` are the run's: loss, gradients,
  // new running statistics; the statistics in it are replaced by their means (mean_loss() has the
  // loss's).
  Status finish_step(std::vector<Tensor>& outputs, bool allow_tailing,
                     const std::function<Status(size_t first, size_t last)>& update);

  // The mean gradients of the last step (views of the bucket buffers), in parameter order.
  const std::vector<Tensor>& reduced_gradients() const { return reduced_; }
  // Where this rank's shard of the current step starts in the global batch (its first sample).
  int64_t sample_offset() const { return sample_offset_; }
  // The last step's loss, averaged over the ranks like the gradients.
  float mean_loss() const { return extras_[0]; }

  // Every rank reaches this point before any goes on (checkpoints).
  Status barrier(const std::string& what);
  // The collectives since the last call, for the profile.
  std::vector<distributed::CollectiveEvent> take_events() { return comm_->take_events(); }

 private:
  class GradientTap;
  struct SplitTuning {
    std::vector<std::vector<int64_t>> candidates;
    size_t current = 0;
    std::vector<double> step_ms;  // the current candidate's steps
    std::vector<double> medians;  // per measured candidate, the ranks' mean
    double start_seconds = 0;
  };
  DataParallel() = default;
  void copy_gradient(size_t param, const Tensor& gradient);
  void post_ready_buckets();
  // Cuts the gradients into these buckets (between steps only).
  Status use_split(const distributed::SplitStrategy& split);
  // After a step of `seconds`: the tuning's bookkeeping, the next candidate or the verdict.
  Status after_tuning_step(double seconds);
  Status finish_tuning();

  DataParallelSettings settings_;
  std::unique_ptr<distributed::Communicator> comm_;
  std::vector<distributed::Bucket> buckets_;
  std::vector<Shape> param_shapes_;
  std::string split_key_;  // the knowledge base's key of this job's gradient split
  std::optional<SplitTuning> tuning_;
  double step_start_ = 0;
  std::vector<std::vector<float>> bucket_data_;
  std::vector<size_t> bucket_of_;  // per parameter
  std::vector<Tensor> reduced_;    // per parameter: a view of its bucket's data
  std::vector<int64_t> param_elements_;
  std::vector<int64_t> state_elements_;
  std::unique_ptr<GradientTap> tap_;
  // Per step.
  int64_t step_ = 0;
  float weight_ = 1.0f;  // this rank's share of the global batch
  int64_t sample_offset_ = 0;
  std::vector<char> have_;       // per parameter: its gradient is in its bucket
  std::vector<size_t> missing_;  // per bucket: gradients not handed over yet
  int next_to_post_ = 0;         // buckets are posted from the last one down, in this order on every rank
  std::vector<distributed::Communicator::Ticket> tickets_;
  std::vector<float> extras_;  // the loss, then the running statistics
};

}  // namespace openge
