#include "session/data_parallel.h"

#include <cstring>
#include <map>

#include "base/parallel.h"
#include "options/option_set.h"

namespace openge {

DataParallelSettings data_parallel_settings(const options::OptionSet* config, std::vector<int64_t> split_by_index,
                                            std::vector<double> split_by_size) {
  DataParallelSettings s;
  s.split.by_index = std::move(split_by_index);
  s.split.by_size = std::move(split_by_size);
  if (!config) return s;
  s.overlap = config->get_bool("hcom_parallel");
  s.tailing = config->get_bool("is_tailing_optimization");
  s.timeouts.event_ms = config->get_int("event_sync_timeout", -1);
  // HCCL_EXEC_TIMEOUT=0 waits without limit (docs/DECISIONS.md); unset keeps CANN's default.
  if (config->has_value("HCCL_EXEC_TIMEOUT")) {
    const int64_t seconds = config->get_int("HCCL_EXEC_TIMEOUT");
    s.timeouts.exec_ms = seconds == 0 ? int64_t{1} << 50 : seconds * 1000;
  }
  if (config->has_value("HCCL_CONNECT_TIMEOUT")) s.timeouts.connect_ms = config->get_int("HCCL_CONNECT_TIMEOUT") * 1000;
  return s;
}

// The run's observer: each gradient the backward pass finishes goes to its bucket at once, and a
// bucket whose gradients are all there (and every bucket posted before it) is handed to the
// communication thread while the run goes on.
class DataParallel::GradientTap : public RunObserver {
 public:
  explicit GradientTap(DataParallel& owner) : owner_(owner) {}

  void use(const Executable& exe) {
    exe_ = &exe;
    auto it = params_of_value_.find(&exe);
    if (it == params_of_value_.end()) {
      const Graph& g = exe.graph();
      std::vector<int> of_value(g.values.size(), -1);
      // The training graph's outputs: the loss, then one gradient per parameter.
      for (size_t p = 0; p < owner_.param_elements_.size() && p + 1 < g.outputs.size(); ++p) {
        const int v = g.outputs[p + 1];
        if (v >= 0 && of_value[static_cast<size_t>(v)] < 0) of_value[static_cast<size_t>(v)] = static_cast<int>(p);
      }
      it = params_of_value_.emplace(&exe, std::move(of_value)).first;
    }
    params_ = &it->second;
  }

  void on_node_end(size_t, const CompiledNode& node, const std::vector<const Tensor*>&,
                   const std::vector<const Tensor*>& outputs) override {
    bool handed = false;
    for (size_t k = 0; k < node.node.outputs.size() && k < outputs.size(); ++k) {
      const int v = node.node.outputs[k];
      if (v < 0 || !outputs[k]) continue;
      const int p = (*params_)[static_cast<size_t>(v)];
      if (p < 0 || owner_.have_[static_cast<size_t>(p)]) continue;
      const Tensor& t = *outputs[k];
      // A gradient kept in a blocked layout is converted when the run hands its outputs over:
      // it joins its bucket after the run.
      if (exe_->stored_format(v) != ActivationFormat::kNchw || t.dtype() != DType::kFloat32 ||
          t.numel() != owner_.param_elements_[static_cast<size_t>(p)])
        continue;
      owner_.copy_gradient(static_cast<size_t>(p), t);
      handed = true;
    }
    if (handed) owner_.post_ready_buckets();
  }

 private:
  DataParallel& owner_;
  const Executable* exe_ = nullptr;
  const std::vector<int>* params_ = nullptr;
  std::map<const Executable*, std::vector<int>> params_of_value_;
};

DataParallel::~DataParallel() = default;

Result<std::unique_ptr<DataParallel>> DataParallel::create(const distributed::World& world,
                                                           DataParallelSettings settings,
                                                           const std::vector<Tensor>& params,
                                                           const std::vector<Tensor>& state) {
  std::unique_ptr<DataParallel> dp(new DataParallel());
  for (const Tensor& p : params) dp->param_elements_.push_back(p.numel());
  for (const Tensor& s : state) {
    if (s.dtype() != DType::kFloat32)
      return unsupported(std::string("data-parallel training averages float32 running statistics; the model has ") +
                         dtype_name(s.dtype()) + " ones");
    dp->state_elements_.push_back(s.numel());
  }
  auto buckets = distributed::plan_buckets(dp->param_elements_, settings.split);
  if (!buckets.ok()) return buckets.status();
  dp->buckets_ = std::move(buckets.value());
  dp->bucket_data_.resize(dp->buckets_.size());
  dp->bucket_of_.resize(params.size());
  dp->reduced_.resize(params.size());
  for (size_t b = 0; b < dp->buckets_.size(); ++b) {
    const distributed::Bucket& bucket = dp->buckets_[b];
    dp->bucket_data_[b].assign(static_cast<size_t>(bucket.elements), 0.0f);
    for (size_t p = bucket.first; p <= bucket.last; ++p) {
      dp->bucket_of_[p] = b;
      dp->reduced_[p] = Tensor::borrow(DType::kFloat32, params[p].shape(),
                                       dp->bucket_data_[b].data() + bucket.offsets[p - bucket.first]);
    }
  }
  int64_t extras = 1;
  for (int64_t e : dp->state_elements_) extras += e;
  dp->extras_.assign(static_cast<size_t>(extras), 0.0f);
  dp->settings_ = std::move(settings);
  dp->comm_ = std::make_unique<distributed::Communicator>(world, dp->settings_.timeouts);
  dp->tap_ = std::make_unique<GradientTap>(*dp);
  return dp;
}

Status DataParallel::broadcast_from_root(std::vector<Tensor>& params, std::vector<Tensor>& state) {
  for (auto* list : {&params, &state})
    for (size_t i = 0; i < list->size(); ++i) {
      Tensor& t = (*list)[i];
      comm_->post_broadcast(t.raw(), static_cast<int64_t>(t.nbytes()), 0,
                            std::string(list == &params ? "parameter " : "running statistic ") + std::to_string(i));
    }
  return comm_->wait_all();
}

Result<RunObserver*> DataParallel::begin_step(const Executable& exe, int64_t local_samples) {
  ++step_;
  int64_t global = local_samples;
  OPENGE_RETURN_IF_ERROR(comm_->wait(comm_->post_allreduce(&global, 1, "the global batch size", step_)));
  if (global <= 0) return invalid_argument("a data-parallel step needs samples on at least one rank");
  weight_ = static_cast<float>(static_cast<double>(local_samples) / static_cast<double>(global));
  have_.assign(param_elements_.size(), 0);
  missing_.assign(buckets_.size(), 0);
  for (size_t b = 0; b < buckets_.size(); ++b) missing_[b] = buckets_[b].last - buckets_[b].first + 1;
  next_to_post_ = static_cast<int>(buckets_.size()) - 1;
  tickets_.assign(buckets_.size(), 0);
  if (!settings_.overlap) return static_cast<RunObserver*>(nullptr);
  tap_->use(exe);
  return static_cast<RunObserver*>(tap_.get());
}

void DataParallel::copy_gradient(size_t param, const Tensor& gradient) {
  const size_t b = bucket_of_[param];
  float* dst = reduced_[param].data<float>();
  const float* src = gradient.data<float>();
  const float w = weight_;
  parallel_for(gradient.numel(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = src[i] * w;
  });
  have_[param] = 1;
  --missing_[b];
}

void DataParallel::post_ready_buckets() {
  // From the last bucket down (the backward pass finishes the last parameters first): a bucket
  // waits for the ones above it, so that every rank posts the same operations in the same order.
  while (next_to_post_ >= 0 && missing_[static_cast<size_t>(next_to_post_)] == 0) {
    const size_t b = static_cast<size_t>(next_to_post_);
    tickets_[b] = comm_->post_allreduce(bucket_data_[b].data(), buckets_[b].elements,
                                        "gradient bucket " + std::to_string(b), static_cast<int>(b), step_);
    --next_to_post_;
  }
}

Status DataParallel::finish_step(std::vector<Tensor>& outputs, bool allow_tailing,
                                 const std::function<Status(size_t first, size_t last)>& update) {
  const size_t n = param_elements_.size();
  if (outputs.size() < 1 + n + state_elements_.size())
    return internal_error("the training step returned " + std::to_string(outputs.size()) + " outputs, fewer than its " +
                          std::to_string(1 + n + state_elements_.size()));
  for (size_t p = 0; p < n; ++p)
    if (!have_[p]) copy_gradient(p, outputs[1 + p]);
  post_ready_buckets();
  // The loss and the running statistics, weighted like the gradients.
  extras_[0] = static_cast<float>(outputs[0].scalar_as_double()) * weight_;
  size_t at = 1;
  for (size_t i = 0; i < state_elements_.size(); ++i) {
    const float* s = outputs[1 + n + i].data<float>();
    for (int64_t k = 0; k < state_elements_[i]; ++k) extras_[at++] = s[k] * weight_;
  }
  const auto extras = comm_->post_allreduce(extras_.data(), static_cast<int64_t>(extras_.size()),
                                            "the loss and running statistics", -1, step_);
  if (allow_tailing && settings_.tailing) {
    for (size_t k = buckets_.size(); k-- > 0;) {
      OPENGE_RETURN_IF_ERROR(comm_->wait(tickets_[k]));
      OPENGE_RETURN_IF_ERROR(update(buckets_[k].first, buckets_[k].last));
    }
    OPENGE_RETURN_IF_ERROR(comm_->wait(extras));
  } else {
    OPENGE_RETURN_IF_ERROR(comm_->wait(extras));
  }
  // The mean running statistics back into the outputs the trainer reads.
  at = 1;
  for (size_t i = 0; i < state_elements_.size(); ++i) {
    float* s = outputs[1 + n + i].data<float>();
    for (int64_t k = 0; k < state_elements_[i]; ++k) s[k] = extras_[at++];
  }
  if (!(allow_tailing && settings_.tailing) && n > 0) OPENGE_RETURN_IF_ERROR(update(0, n - 1));
  return Status::Ok();
}

Status DataParallel::barrier(const std::string& what) { return comm_->wait(comm_->post_barrier(what, step_)); }

}  // namespace openge
