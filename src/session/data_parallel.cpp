#include "session/data_parallel.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "aoe/knowledge_base.h"
#include "aoe/tuning_record.h"
#include "base/parallel.h"
#include "logging/log.h"
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
  s.tune_split = config->get("aoe_config.aoe_mode") == "4";
  // The knowledge base of the aoe_data folder: any job looks its split up there, aoe_mode 4 stores one.
  s.aoe_data = paths::resolve_artifact(paths::ArtifactKind::kAoeData, *config, paths::RunIds::current());
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
                                                           const std::vector<std::string>& param_names,
                                                           const std::vector<Tensor>& params,
                                                           const std::vector<Tensor>& state) {
  std::unique_ptr<DataParallel> dp(new DataParallel());
  for (const Tensor& p : params) {
    dp->param_elements_.push_back(p.numel());
    dp->param_shapes_.push_back(p.shape());
  }
  for (const Tensor& s : state) {
    if (s.dtype() != DType::kFloat32)
      return unsupported(std::string("data-parallel training averages float32 running statistics; the model has ") +
                         dtype_name(s.dtype()) + " ones");
    dp->state_elements_.push_back(s.numel());
  }
  dp->split_key_ = aoe::gradient_split_key(param_names, dp->param_elements_, world.size, settings.threads);
  distributed::SplitStrategy split = settings.split;
  const bool user_split = !split.by_index.empty() || !split.by_size.empty();
  if (!user_split && !settings.aoe_data.path.empty()) {
    // A split that gradient-split tuning stored for this job (same model, ranks, threads, platform).
    const aoe::KnowledgeBase kb = aoe::KnowledgeBase::load(settings.aoe_data.path + "/" + aoe::kKnowledgeBaseFile);
    if (const aoe::KnowledgeEntry* e = kb.find(dp->split_key_); e && !settings.tune_split) {
      split.by_index = e->split_by_index;
      OPENGE_LOG_INFO("GE", "gradient split from the AOE knowledge base " + kb.path() + ": " +
                                std::to_string(e->split_by_index.size()) + " buckets (tuned step " +
                                std::to_string(e->tuned_us / 1000) + " ms, default " +
                                std::to_string(e->default_us / 1000) + " ms)");
    }
  }
  OPENGE_RETURN_IF_ERROR(dp->use_split(split));
  int64_t extras = 1;
  for (int64_t e : dp->state_elements_) extras += e;
  dp->extras_.assign(static_cast<size_t>(extras), 0.0f);
  dp->settings_ = std::move(settings);
  if (dp->settings_.tune_split && user_split)
    OPENGE_LOG_WARNING("GE",
                       "aoe_config.aoe_mode=4 tunes the gradient split, but one was given "
                       "(split_by_index / split_by_size): the given split is used, nothing is tuned");
  else if (dp->settings_.tune_split && !dp->param_elements_.empty())
    dp->tuning_.emplace(SplitTuning{distributed::split_candidates(dp->param_elements_), 0, {}, {}, 0});
  dp->comm_ = std::make_unique<distributed::Communicator>(world, dp->settings_.timeouts);
  dp->tap_ = std::make_unique<GradientTap>(*dp);
  return dp;
}

Status DataParallel::use_split(const distributed::SplitStrategy& split) {
  auto buckets = distributed::plan_buckets(param_elements_, split);
  if (!buckets.ok()) return buckets.status();
  buckets_ = std::move(buckets.value());
  bucket_data_.assign(buckets_.size(), {});
  bucket_of_.assign(param_elements_.size(), 0);
  reduced_.assign(param_elements_.size(), Tensor());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const distributed::Bucket& bucket = buckets_[b];
    bucket_data_[b].assign(static_cast<size_t>(bucket.elements), 0.0f);
    for (size_t p = bucket.first; p <= bucket.last; ++p) {
      bucket_of_[p] = b;
      reduced_[p] =
          Tensor::borrow(DType::kFloat32, param_shapes_[p], bucket_data_[b].data() + bucket.offsets[p - bucket.first]);
    }
  }
  return Status::Ok();
}

Status DataParallel::after_tuning_step(double seconds) {
  SplitTuning& t = *tuning_;
  if (step_ == 1) {  // the first step compiles: not a measurement
    t.start_seconds = seconds;
    return use_split({t.candidates[0], {}});
  }
  t.step_ms.push_back(seconds * 1000);
  if (static_cast<int>(t.step_ms.size()) < kSplitTuningStepsPerCandidate) return Status::Ok();
  std::vector<double> times = t.step_ms;
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
  // Every rank decides on the same numbers: the ranks' mean of their median step times.
  float median = static_cast<float>(times[times.size() / 2]);
  OPENGE_RETURN_IF_ERROR(comm_->wait(comm_->post_allreduce(&median, 1, "gradient-split tuning", -1, step_)));
  t.medians.push_back(static_cast<double>(median) / world().size);
  t.step_ms.clear();
  if (++t.current < t.candidates.size()) return use_split({t.candidates[t.current], {}});
  return finish_tuning();
}

Status DataParallel::finish_tuning() {
  SplitTuning t = std::move(*tuning_);
  tuning_.reset();
  const size_t best = static_cast<size_t>(std::min_element(t.medians.begin(), t.medians.end()) - t.medians.begin());
  OPENGE_RETURN_IF_ERROR(use_split({t.candidates[best], {}}));
  // The default split's time is the baseline (HCCL's split, or the first candidate).
  const auto default_ends = distributed::split_indices(*distributed::plan_buckets(param_elements_, {}));
  size_t baseline = 0;
  for (size_t i = 0; i < t.candidates.size(); ++i)
    if (t.candidates[i] == default_ends) baseline = i;
  std::string list;
  for (int64_t i : t.candidates[best]) list += (list.empty() ? "" : ",") + std::to_string(i);
  if (world().rank != 0) return Status::Ok();
  OPENGE_LOG_INFO("GE", "aoe_mode 4: gradient split by index [" + list + "] (" + std::to_string(buckets_.size()) +
                            " buckets): median step " + std::to_string(t.medians[best]) + " ms against " +
                            std::to_string(t.medians[baseline]) + " ms with HCCL's default split; " +
                            std::to_string(t.candidates.size()) + " splits measured");
  if (settings_.aoe_data.path.empty()) return Status::Ok();
  aoe::TuningStats stats;
  stats.ranks = world().size;
  stats.split_by_index = t.candidates[best];
  for (size_t i = 0; i < t.candidates.size(); ++i) stats.split_candidates.push_back({t.candidates[i], t.medians[i]});
  stats.model_before_ms = t.medians[baseline];
  stats.model_after_ms = t.medians[best];
  stats.tuning_seconds = 0;
  for (double ms : t.medians) stats.tuning_seconds += ms * kSplitTuningStepsPerCandidate / 1000;
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(settings_.aoe_data));
  aoe::KnowledgeBase kb = aoe::KnowledgeBase::load(settings_.aoe_data.path + "/" + aoe::kKnowledgeBaseFile);
  stats.knowledge_base_path = kb.path();
  stats.knowledge_base_problem = kb.problem();
  aoe::KnowledgeEntry entry;
  entry.op_type = aoe::kGradientSplitEntry;
  entry.split_by_index = t.candidates[best];
  entry.default_us = t.medians[baseline] * 1000;
  entry.tuned_us = t.medians[best] * 1000;
  kb.put(split_key_, entry);
  OPENGE_RETURN_IF_ERROR(kb.save().with_context("AOE knowledge base"));
  auto record = aoe::write_gradient_split_record(stats, settings_.model_name, settings_.aoe_data);
  if (!record.ok()) return record.status();
  OPENGE_LOG_INFO("GE", "aoe_mode 4: split stored in " + kb.path() + ", record " + *record);
  return Status::Ok();
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
  step_start_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  // Every rank's sample count (each rank fills its own slot): the global batch, and where this
  // rank's shard starts in it.
  std::vector<int64_t> counts(static_cast<size_t>(world().size), 0);
  counts[static_cast<size_t>(world().rank)] = local_samples;
  OPENGE_RETURN_IF_ERROR(comm_->wait(
      comm_->post_allreduce(counts.data(), static_cast<int64_t>(counts.size()), "the ranks' batch sizes", step_)));
  int64_t global = 0;
  sample_offset_ = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    global += counts[r];
    if (static_cast<int>(r) < world().rank) sample_offset_ += counts[r];
  }
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
  if (tuning_) {
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    OPENGE_RETURN_IF_ERROR(after_tuning_step(now - step_start_));
  }
  return Status::Ok();
}

Status DataParallel::barrier(const std::string& what) { return comm_->wait(comm_->post_barrier(what, step_)); }

}  // namespace openge
