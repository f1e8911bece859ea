#include "openge/training_data.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

#include "io/npy.h"

namespace openge::training {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Result<Dataset> Dataset::from_tensors(std::vector<std::string> names, std::vector<Tensor> arrays) {
  if (names.size() != arrays.size() || arrays.empty()) return invalid_argument("a dataset needs one array per name");
  Dataset d;
  d.samples_ = arrays[0].rank() > 0 ? arrays[0].dim(0) : 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].is_tensor() || arrays[i].rank() == 0 || arrays[i].dtype() == DType::kString)
      return invalid_argument("data '" + names[i] + "' must be an array whose first axis counts samples");
    if (arrays[i].dim(0) != d.samples_)
      return invalid_argument("data '" + names[i] + "' has " + std::to_string(arrays[i].dim(0)) + " samples, '" +
                              names[0] + "' has " + std::to_string(d.samples_));
  }
  if (d.samples_ == 0) return invalid_argument("the dataset holds no samples");
  d.names_ = std::move(names);
  d.arrays_ = std::move(arrays);
  return d;
}

Result<Dataset> Dataset::from_npy_dir(const std::string& dir, const std::vector<std::string>& names) {
  std::vector<Tensor> arrays;
  for (const std::string& name : names) {
    const std::string path = (std::filesystem::path(dir) / (name + ".npy")).string();
    if (!std::filesystem::is_regular_file(path))
      return invalid_argument("--data " + dir + ": no " + name +
                              ".npy (one .npy per model input, named after it, and labels.npy)");
    auto t = read_npy(path);
    if (!t.ok()) return t.status();
    arrays.push_back(std::move(t.value()));
  }
  return from_tensors(names, std::move(arrays));
}

std::vector<Tensor> Dataset::gather(const std::vector<int64_t>& indices) const {
  std::vector<Tensor> out;
  for (const Tensor& a : arrays_) {
    Shape s = a.shape();
    s[0] = static_cast<int64_t>(indices.size());
    Tensor t(a.dtype(), s);
    const size_t row = samples_ > 0 ? a.nbytes() / static_cast<size_t>(samples_) : 0;
    const char* src = static_cast<const char*>(a.raw());
    char* dst = static_cast<char*>(t.raw());
    for (size_t i = 0; i < indices.size(); ++i)
      std::memcpy(dst + i * row, src + static_cast<size_t>(indices[i]) * row, row);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::vector<int64_t>> epoch_batches(int64_t samples, const BatchPlan& plan, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(samples));
  std::iota(order.begin(), order.end(), 0);
  if (plan.shuffle) {
    // mt19937_64 and a hand-written Fisher-Yates: std::shuffle's use of the engine is not
    // specified, and the order must be the same on every standard library.
    std::mt19937_64 rng(plan.seed * 1000003u + static_cast<uint64_t>(epoch));
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(rng() % i)]);
  }
  std::vector<std::vector<int64_t>> batches;
  const int64_t b = std::max<int64_t>(1, plan.batch);
  for (int64_t start = 0; start < samples; start += b) {
    const int64_t end = std::min(samples, start + b);
    if (plan.drop_last && end - start < b) break;
    batches.emplace_back(order.begin() + start, order.begin() + end);
  }
  return batches;
}

Prefetcher::Prefetcher(const Dataset& data, std::vector<std::vector<int64_t>> batches)
    : data_(data), batches_(std::move(batches)), thread_([this] { run(); }) {}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Prefetcher::run() {
  for (size_t i = 0; i < batches_.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Tensor> batch = data_.gather(batches_[i]);
    const double took = seconds_since(start);
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return stop_ || !ready_; });
    if (stop_) return;
    ready_ = std::move(batch);
    ready_gather_seconds_ = took;
    ++produced_;
    cv_.notify_all();
  }
}

std::optional<std::vector<Tensor>> Prefetcher::next(BatchTiming* timing) {
  if (consumed_ >= batches_.size()) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  const bool was_ready = ready_.has_value();
  cv_.wait(lock, [&] { return ready_.has_value(); });
  std::optional<std::vector<Tensor>> batch = std::move(ready_);
  ready_.reset();
  ++consumed_;
  if (timing) {
    timing->gather_seconds = ready_gather_seconds_;
    timing->wait_seconds = seconds_since(start);
    timing->was_ready = was_ready;
  }
  cv_.notify_all();
  return batch;
}

std::vector<int64_t> shard_of_batch(const std::vector<int64_t>& global_batch, int rank, int ranks) {
  const int64_t n = static_cast<int64_t>(global_batch.size());
  const int64_t begin = n * rank / ranks, end = n * (rank + 1) / ranks;
  return {global_batch.begin() + begin, global_batch.begin() + end};
}

}  // namespace openge::training
