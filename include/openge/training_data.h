// Training data: named arrays whose first axis counts samples (one .npy per model input and
// labels.npy, or tensors from the API), cut into batches in a seeded order. Each epoch is a
// permutation drawn from (seed, epoch), so a run's data order is reproducible and the same for
// any thread count. A prefetch thread gathers the next batch while a step runs.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge::training {

class Dataset {
 public:
  // `arrays`: one per feed, all with the same first dim (the sample count).
  static Result<Dataset> from_tensors(std::vector<std::string> names, std::vector<Tensor> arrays);
  // DIR/<name>.npy for each name.
  static Result<Dataset> from_npy_dir(const std::string& dir, const std::vector<std::string>& names);

  int64_t size() const { return samples_; }
  const std::vector<std::string>& names() const { return names_; }
  // The samples `indices` of every array, stacked along a new first axis.
  std::vector<Tensor> gather(const std::vector<int64_t>& indices) const;

 private:
  std::vector<std::string> names_;
  std::vector<Tensor> arrays_;
  int64_t samples_ = 0;
};

// The batches of one epoch: sample order shuffled from (seed, epoch) or in file order; the last
// batch may be smaller unless drop_last.
struct BatchPlan {
  int64_t batch = 32;
  bool shuffle = true;
  bool drop_last = false;
  uint64_t seed = 0;
};
std::vector<std::vector<int64_t>> epoch_batches(int64_t samples, const BatchPlan& plan, int64_t epoch);

// Rank `rank`'s part of a global batch in data-parallel training: a contiguous slice, the slices
// of the ranks differing by at most one sample. The global order is the epoch's, so a run sees
// the same samples per step whatever the rank count.
std::vector<int64_t> shard_of_batch(const std::vector<int64_t>& global_batch, int rank, int ranks);

// How long the data stages took (the data-preprocessing profile): per batch, the seconds spent
// gathering it and the seconds the consumer waited for it.
struct BatchTiming {
  double gather_seconds = 0;
  double wait_seconds = 0;
  bool was_ready = false;  // gathered before the consumer asked for it
};

// Gathers the batches of an epoch on a thread of its own, one ahead of the consumer.
class Prefetcher {
 public:
  Prefetcher(const Dataset& data, std::vector<std::vector<int64_t>> batches);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;
  // The next batch, or nullopt after the last; `timing` receives its stage times.
  std::optional<std::vector<Tensor>> next(BatchTiming* timing = nullptr);

 private:
  void run();
  const Dataset& data_;
  std::vector<std::vector<int64_t>> batches_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<std::vector<Tensor>> ready_;
  double ready_gather_seconds_ = 0;
  size_t produced_ = 0, consumed_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace openge::training
