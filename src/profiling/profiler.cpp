#include "profiling/profiler.h"

#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "io/atomic_file.h"
#include "logging/log.h"
#include "paths/artifact_paths.h"
#include "profiling/collection_dir.h"
#include "profiling/counters.h"
#include "profiling/csv.h"
#include "profiling/exporters.h"
#include "profiling/host_sampler.h"
#include "openge/profiling_report.h"
#include "profiling/storage_limit.h"
#include "base/parallel.h"

namespace openge::profiling {
namespace fs = std::filesystem;
namespace {

uint64_t this_thread_id() { return static_cast<uint64_t>(::syscall(SYS_gettid)); }

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out;
}

// How often the written iterations are synced to disk (fsync), at the end of an iteration.
constexpr int64_t kSyncIntervalNs = 1'000'000'000;

// `values`: the node's input or output value ids, for their stored formats.
void describe(const std::vector<const Tensor*>& tensors, const std::vector<int>& values, const Executable* model,
              std::vector<TensorDesc>& out) {
  out.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor* t = tensors[i];
    out[i].present = t && t->defined();
    if (out[i].present) {
      out[i].dtype = t->dtype();
      out[i].shape = t->shape();
      if (model && i < values.size()) out[i].format = model->stored_format(values[i]);
    }
  }
}

}  // namespace

Result<std::unique_ptr<Profiler>> Profiler::create(ProfilerConfig config) {
  std::unique_ptr<Profiler> p(new Profiler());
  p->config_ = std::move(config);
  p->pid_ = static_cast<long>(::getpid());
  p->anchor_ = ClockAnchor::now();
  const std::string start_info = "{\"collectionTimeBegin\":\"" + std::to_string(p->anchor_.epoch_ns / 1000) +
                                 "\",\"clockMonotonicRaw\":\"" + std::to_string(p->anchor_.steady_ns) +
                                 "\",\"pid\":\"" + std::to_string(p->pid_) + "\"}\n";
  if (p->config_.create_output_dir) {
    Status ready = paths::prepare_artifact_directory(
        {paths::ArtifactKind::kProfiling, p->config_.output_dir, false, p->config_.output_rule, ""});
    if (!ready.ok()) {
      p->finished_ = true;
      return ready;
    }
  }
  auto dir = create_collection_dir(p->config_.output_dir, p->config_.device_id, start_info);
  if (!dir.ok()) {
    p->finished_ = true;  // nothing was created: nothing to finish
    return dir.status();
  }
  p->collection_dir_ = dir.value();
  const uint64_t limit = p->config_.storage_limit_bytes_override ? *p->config_.storage_limit_bytes_override
                         : p->config_.storage_limit_mb           ? *p->config_.storage_limit_mb * StorageGuard::kMiB
                                                                 : 0;
  p->storage_ = std::make_unique<StorageGuard>(p->config_.output_dir, limit, p->config_.storage_margin_bytes);
  for (const auto& f : fs::recursive_directory_iterator(p->collection_dir_))
    if (f.is_regular_file()) p->storage_->protect(f.path().string());
  // aic_metrics defaults to PipeUtilization (OPT-profiling_config.profiling_options.aic_metrics-3):
  // an absent key collects that set, as CANN does with the task-level data.
  if (p->config_.task_level != TaskLevel::kOff) {
    p->counters_ = CounterSet::open(p->config_.aic_metrics, p->config_.aic_custom_registers);
    if (!p->counters_->available())
      p->notes_.push_back("aic_metrics=" + p->config_.aic_metrics + ": columns are N/A: " + p->counters_->status());
  }
  if (p->config_.task_level != TaskLevel::kOff && p->config_.l2) {
    p->l2_counters_ = CounterSet::open("L2Cache", {});
    if (!p->l2_counters_->available())
      p->notes_.push_back("l2=on: l2_cache Hit Rate is N/A: " + p->l2_counters_->status());
  }
  if (p->config_.host_cpu || p->config_.host_mem || p->config_.sys_io_sampling_freq > 0)
    p->host_ = std::make_unique<HostSampler>(p->config_.host_cpu, p->config_.host_mem, p->config_.host_sys_usage_freq,
                                             p->config_.sys_io_sampling_freq,
                                             p->config_.sys_usage_cpu || p->config_.sys_usage_mem);
  return p;
}

Profiler::~Profiler() { (void)finish(); }

std::string Profiler::output_dir() const { return collection_dir_ + "/mindstudio_profiler_output"; }

const std::string& Profiler::counters_status() const {
  static const std::string none;
  return counters_ ? counters_->status() : none;
}

void Profiler::skip_iteration(const Executable* model) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [entry, inserted] = model_ids_.emplace(model, static_cast<uint32_t>(model_ids_.size() + 1));
  if (inserted && model) fusion_op_per_model_[entry->second] = fusion_op_csv(*model, entry->second, config_.device_id);
  ++iterations_per_model_[entry->second];
}

std::unique_ptr<Profiler::Iteration> Profiler::begin_iteration(const Executable* model, size_t expected_tasks) {
  auto it = std::make_unique<Iteration>();
  it->model_ = model;
  it->level_ = config_.task_level;
  it->counters_ = counters_ && counters_->available() ? counters_.get() : nullptr;
  it->l2_counters_ = l2_counters_ && l2_counters_->available() ? l2_counters_.get() : nullptr;
  if (it->level_ != TaskLevel::kOff) it->record_.tasks.reserve(expected_tasks);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [entry, inserted] = model_ids_.emplace(model, static_cast<uint32_t>(model_ids_.size() + 1));
    it->record_.model_id = entry->second;
    if (inserted && model)
      fusion_op_per_model_[entry->second] = fusion_op_csv(*model, entry->second, config_.device_id);
    it->record_.iteration_id = ++iterations_per_model_[entry->second];
    auto take_stream = [&] {
      size_t s = 0;
      while (s < streams_busy_.size() && streams_busy_[s]) ++s;
      if (s == streams_busy_.size()) streams_busy_.push_back(false);
      streams_busy_[s] = true;
      return static_cast<uint32_t>(s);
    };
    it->record_.stream_id = take_stream();
    it->record_.second_stream_id = it->record_.stream_id;
    // A model that runs two branches at once: the second branches' tasks on a stream of their own.
    if (model && concurrent_steps(model->run_steps()) > 0) {
      it->record_.second_stream_id = take_stream();
      it->on_second_.assign(model->nodes().size(), 0);
      for (const RunStep& step : model->run_steps())
        for (int s : step.second) it->on_second_[static_cast<size_t>(s)] = 1;
    }
  }
  it->record_.start_ns = steady_now_ns();
  return it;
}

void Profiler::Iteration::on_node_start(size_t index, const CompiledNode& node) {
  if (level_ == TaskLevel::kOff) return;
  TaskRecord& t = record_.tasks.emplace_back();
  t.node = &node;
  t.task_id = static_cast<uint32_t>(index);
  t.stream_id = index < on_second_.size() && on_second_[index] ? record_.second_stream_id : record_.stream_id;
  chunks_at_start_ = tls_parallel_chunks;
  if (counters_) counters_->read(t.counters);
  if (l2_counters_) l2_counters_->read(t.l2_counters);
  t.start_ns = steady_now_ns();
}

void Profiler::Iteration::on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                                      const std::vector<const Tensor*>& outputs) {
  if (level_ == TaskLevel::kOff) return;
  const int64_t end = steady_now_ns();
  TaskRecord& t = record_.tasks.back();
  t.end_ns = end;
  if (counters_) counters_->read_delta(t.counters);
  if (l2_counters_) l2_counters_->read_delta(t.l2_counters);
  if (level_ == TaskLevel::kL1) {
    // Chunks counted by parallel_for; oneDNN primitives (AI Core cube ops) parallelise over the
    // whole OpenMP team outside parallel_for.
    const int64_t chunks = tls_parallel_chunks - chunks_at_start_;
    t.block_num = chunks > 0 ? chunks : node.engine == Engine::kAiCore && node.kernel ? omp_get_max_threads() : 1;
    describe(inputs, node.node.inputs, model_, t.inputs);
    describe(outputs, node.node.outputs, model_, t.outputs);
  }
}

void Profiler::Iteration::on_memset_start() {
  if (level_ == TaskLevel::kOff) return;
  TaskRecord& t = record_.tasks.emplace_back();
  t.task_id = static_cast<uint32_t>((model_ ? model_->nodes().size() : 0) + memsets_++);
  t.start_ns = steady_now_ns();
}

void Profiler::Iteration::on_memset_end(int before_node, size_t bytes) {
  if (level_ == TaskLevel::kOff) return;
  TaskRecord& t = record_.tasks.back();
  t.end_ns = steady_now_ns();
  t.memset_before = before_node;
  t.memset_bytes = static_cast<int64_t>(bytes);
  t.memset_name =
      before_node >= 0 && model_ ? model_->nodes()[static_cast<size_t>(before_node)].node.name + "_MemSet" : "MemSet";
  const size_t node = static_cast<size_t>(before_node);
  t.stream_id =
      before_node >= 0 && node < on_second_.size() && on_second_[node] ? record_.second_stream_id : record_.stream_id;
}

void Profiler::Iteration::on_outputs_start() { copy_start_ns_ = steady_now_ns(); }

void Profiler::Iteration::on_outputs_end(size_t) { copy_end_ns_ = steady_now_ns(); }

void Profiler::record_collective(CollectiveRecord collective) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!finished_) collectives_.push_back(std::move(collective));
}

Status Profiler::end_iteration(std::unique_ptr<Iteration> iteration, bool ok) {
  if (!iteration) return Status::Ok();
  IterationRecord& r = iteration->record_;
  r.end_ns = steady_now_ns();
  r.ok = ok;
  std::lock_guard<std::mutex> lock(mutex_);
  if (config_.runtime_api && iteration->copy_end_ns_ > 0)
    apis_.push_back({"OutputCopy", iteration->copy_start_ns_, iteration->copy_end_ns_, this_thread_id()});
  for (uint32_t s : {r.stream_id, r.second_stream_id})
    if (s < streams_busy_.size()) streams_busy_[s] = false;
  if (finished_) return Status::Ok();
  auto last = last_end_per_model_.find(r.model_id);
  r.previous_end_ns = last == last_end_per_model_.end() ? -1 : last->second;
  last_end_per_model_[r.model_id] = r.end_ns;
  for (const TaskRecord& t : r.tasks) {
    OpTotals& o = op_totals_[task_op_name(t)];
    o.type = task_op_type(t);
    o.engine = task_type(t);
    ++o.count;
    o.total_ns += t.end_ns - t.start_ns;
    if (o.per_iteration_ns.empty() || o.per_iteration_ns.back().first != r.iteration_id)
      o.per_iteration_ns.push_back({r.iteration_id, 0});
    o.per_iteration_ns.back().second += t.end_ns - t.start_ns;
  }
  r.collectives = std::move(collectives_);
  collectives_.clear();
  step_times_.push_back({r.iteration_id, r.end_ns - r.start_ns});
  pending_.push_back(std::move(r));
  // Streamed: each iteration's files are written, and synced, when it ends (after its run, so
  // outside the measured Executable::run), so a killed process keeps every completed iteration.
  return write_pending_locked();
}

void Profiler::record_data_batch(const DataBatchRecord& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  data_batches_.push_back(batch);
}

void Profiler::record_api(const std::string& name, int64_t start_ns, int64_t end_ns) {
  if (!config_.runtime_api) return;
  std::lock_guard<std::mutex> lock(mutex_);
  apis_.push_back({name, start_ns, end_ns, this_thread_id()});
}

void Profiler::range_push(const std::string& message) {
  if (!config_.msproftx) return;
  const uint64_t tid = this_thread_id();
  std::lock_guard<std::mutex> lock(mutex_);
  auto& stack = open_ranges_[tid];
  stack.push_back({message, steady_now_ns(), 0, true, tid, static_cast<int>(stack.size())});
}

Status Profiler::range_pop() {
  if (!config_.msproftx) return Status::Ok();
  const int64_t now = steady_now_ns();
  std::lock_guard<std::mutex> lock(mutex_);
  auto& stack = open_ranges_[this_thread_id()];
  if (stack.empty()) return invalid_argument("msproftx range_pop without a matching range_push on this thread");
  MarkerRecord m = std::move(stack.back());
  stack.pop_back();
  m.end_ns = now;
  markers_.push_back(std::move(m));
  return Status::Ok();
}

void Profiler::mark(const std::string& message) {
  if (!config_.msproftx) return;
  const int64_t now = steady_now_ns();
  std::lock_guard<std::mutex> lock(mutex_);
  markers_.push_back({message, now, now, false, this_thread_id(), 0});
}

Status Profiler::write_file_locked(const std::string& path, const std::string& contents) {
  if (!storage_->reserve(contents.size())) {
    const std::string why = storage_->why_full(contents.size());
    if (notes_.empty() || notes_.back().find(why) == std::string::npos)
      OPENGE_LOG_WARNING("PROFILING", "profiling files are not written: " + why);
    notes_.push_back("not written (" + why + "; nothing older left to age): " + path);
    return Status::Ok();
  }
  Status s = write_file_atomically(path, contents);
  if (!s.ok()) return s;
  storage_->added(path, contents.size());
  written_.push_back(path);
  unsynced_.push_back(path);
  return Status::Ok();
}

Status Profiler::write_pending_locked() {
  if (pending_.empty() && apis_.empty() && markers_.empty() && data_batches_.empty()) return Status::Ok();
  ExportContext ctx;
  ctx.config = &config_;
  ctx.anchor = anchor_;
  ctx.origin_ns = anchor_.steady_ns;
  ctx.pid = pid_;
  ctx.counters = counters_.get();
  ctx.l2_counters = l2_counters_.get();
  std::vector<HostSample> samples = host_ ? host_->take() : std::vector<HostSample>{};
  host_samples_.insert(host_samples_.end(), samples.begin(), samples.end());
  std::unique_ptr<WrittenIteration> last_written;
  samples.insert(samples.begin(), requeued_host_.begin(), requeued_host_.end());
  requeued_host_.clear();
  const std::string dir = output_dir() + "/";
  Status status;
  for (size_t k = 0; k < pending_.size(); ++k) {
    const IterationRecord& it = pending_[k];
    const bool last = k + 1 == pending_.size();
    // Host records go with the iteration during (or before) which they ended.
    auto take = [&](auto& records, auto end_of) {
      std::vector<typename std::decay_t<decltype(records)>::value_type> mine, rest;
      for (auto& r : records) (last || end_of(r) <= it.end_ns ? mine : rest).push_back(std::move(r));
      records = std::move(rest);
      return mine;
    };
    auto apis = take(apis_, [](const ApiRecord& a) { return a.end_ns; });
    auto markers = take(markers_, [](const MarkerRecord& m) { return m.end_ns; });
    auto batches = take(data_batches_, [](const DataBatchRecord& b) { return b.taken_ns; });
    auto host = take(samples, [](const HostSample& h) { return h.time_ns; });
    const std::string sfx = file_suffix(config_.device_id, it.model_id, it.iteration_id);
    auto write = [&](const std::string& name, const std::string& text) {
      if (status.ok()) status = write_file_locked(dir + name, text);
    };
    write("msprof" + sfx + ".json", msprof_json(it, apis, markers, host, ctx));
    write("step_trace" + sfx + ".json", step_trace_json(it, ctx));
    write("step_trace" + sfx + ".csv", step_trace_csv(it, ctx));
    if (!batches.empty()) write("dp" + sfx + ".csv", data_preprocess_csv(batches, ctx));
    if (config_.hccl && !it.collectives.empty()) write("hccl" + sfx + ".json", hccl_json(it, ctx));
    if (config_.task_level != TaskLevel::kOff) {
      write("task_time" + sfx + ".json", task_time_json(it, ctx));
      write("task_time" + sfx + ".csv", task_time_csv(it, ctx));
      write("op_summary" + sfx + ".csv", op_summary_csv(it, ctx));
      write("op_statistic" + sfx + ".csv", op_statistic_csv(it, ctx));
      if (config_.aicpu) write("aicpu" + sfx + ".csv", aicpu_csv(it, ctx));
      if (config_.l2) write("l2_cache" + sfx + ".csv", l2_cache_csv(it, ctx));
    }
    if (auto fusion = fusion_op_per_model_.find(it.model_id);
        fusion != fusion_op_per_model_.end() && !fusion->second.empty())
      write("fusion_op" + sfx + ".csv", fusion->second);
    if (last)
      last_written = std::make_unique<WrittenIteration>(
          WrittenIteration{{}, std::move(apis), std::move(markers), std::move(batches), std::move(host)});
  }
  if (!pending_.empty() && !pending_.back().tasks.empty()) {
    const IterationRecord& it = pending_.back();
    timeline_.clear();
    for (const TaskRecord& t : it.tasks)
      timeline_.push_back({task_op_name(t), task_op_type(t), task_type(t),
                           static_cast<double>(t.start_ns - it.start_ns) / 1e3,
                           static_cast<double>(t.end_ns - t.start_ns) / 1e3});
    timeline_label_ = "model " + std::to_string(it.model_id) + ", iteration " + std::to_string(it.iteration_id);
  }
  if (last_written) {
    last_written->record = std::move(pending_.back());
    last_written_ = std::move(last_written);
  }
  pending_.clear();
  // On disk at most kSyncInterval after it ended, so a crash of the machine loses at most that
  // much (a killed process loses nothing written: the page cache keeps it). An fsync per
  // iteration would cost tens of milliseconds each on a small model (docs/DECISIONS.md).
  const int64_t now = steady_now_ns();
  if (status.ok() && !unsynced_.empty() && now - last_sync_ns_ >= kSyncIntervalNs) {
    status = sync_to_disk(unsynced_);
    unsynced_.clear();
    last_sync_ns_ = now;
  }
  return status;
}

Status Profiler::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return Status::Ok();
  return write_pending_locked();
}

void Profiler::set_model_name(std::string name) {
  std::lock_guard<std::mutex> lock(mutex_);
  model_name_ = std::move(name);
}

std::string Profiler::info_json_locked() const {
  std::string j =
      "{\n  \"pid\": " + std::to_string(pid_) + ",\n  \"device_id\": " + std::to_string(config_.device_id) +
      ",\n  \"engine\": \"OpenGE CPU\",\n  \"model\": \"" + json_escape(model_name_) + "\",\n  \"options_source\": \"" +
      json_escape(config_.options_source) + "\",\n  \"output\": \"" + json_escape(config_.output_dir) +
      "\",\n  \"output_rule\": \"" + json_escape(config_.output_rule) + "\",\n  \"task_trace\": \"" +
      task_level_name(config_.task_level) + "\",\n  \"ts_origin_epoch_us\": \"" + format_us(anchor_.epoch_ns) +
      "\",\n  \"aic_metrics\": {\"set\": \"" + json_escape(config_.aic_metrics) + "\", \"source\": \"" +
      (config_.raw.has("aic_metrics") ? "profiling_options" : "default") + "\", \"status\": \"" +
      json_escape(!counters_                            ? "not collected: task_trace is off"
                  : counters_ && counters_->available() ? "ok (events of the executor thread)"
                                                        : "N/A: " + counters_status()) +
      "\"},\n  \"storage\": \"" + json_escape(storage_ ? storage_->describe() : "") + "\",\n  \"options\": {";
  bool first = true;
  for (const auto& [k, v] : config_.raw.values) {
    j += std::string(first ? "" : ",") + "\n    \"" + json_escape(k) + "\": \"" + json_escape(v) + "\"";
    first = false;
  }
  j += "\n  },\n  \"no_effect_on_cpu\": {";
  first = true;
  for (const auto& [k, why] : config_.no_cpu_effect) {
    j += std::string(first ? "" : ",") + "\n    \"" + json_escape(k) + "\": \"" + json_escape(why) + "\"";
    first = false;
  }
  j += "\n  },\n  \"notes\": [";
  for (size_t i = 0; i < notes_.size(); ++i)
    j += std::string(i ? "," : "") + "\n    \"" + json_escape(notes_[i]) + "\"";
  j += "\n  ]\n}\n";
  return j;
}

std::string Profiler::nic_csv() const {
  std::string csv =
      "Device_id,Timestamp(us),Interface,Rx Bandwidth(MB/s),Tx Bandwidth(MB/s),rxPacket/s,txPacket/s,"
      "rxError rate(%),rxDropped rate(%),txError rate(%),txDropped rate(%)\n";
  char buf[256];
  for (const NicSample& s : nic_samples_) {
    std::snprintf(buf, sizeof buf, ",%.3f,%.3f,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f\n", s.rx_mb_per_s, s.tx_mb_per_s,
                  s.rx_packets_per_s, s.tx_packets_per_s, s.rx_error_percent, s.rx_dropped_percent, s.tx_error_percent,
                  s.tx_dropped_percent);
    csv += "host," + format_us(anchor_.to_epoch_ns(s.time_ns)) + "," + s.interface + buf;
  }
  return csv;
}

Status Profiler::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return Status::Ok();
  if (host_) host_->stop();
  // Host records that ended after the last iteration was written join it: its files are rewritten.
  if (pending_.empty() && last_written_ && (!apis_.empty() || !markers_.empty() || !data_batches_.empty())) {
    WrittenIteration& w = *last_written_;
    apis_.insert(apis_.begin(), w.apis.begin(), w.apis.end());
    markers_.insert(markers_.begin(), w.markers.begin(), w.markers.end());
    data_batches_.insert(data_batches_.begin(), w.batches.begin(), w.batches.end());
    pending_.push_back(std::move(w.record));
    requeued_host_ = std::move(w.host);
    last_written_.reset();
  }
  Status status = write_pending_locked();
  if (status.ok()) status = sync_to_disk(unsynced_);
  unsynced_.clear();
  finished_ = true;
  if (host_) {
    std::vector<NicSample> nic = host_->take_nic();
    nic_samples_.insert(nic_samples_.end(), nic.begin(), nic.end());
  }
  if (status.ok() && config_.sys_io_sampling_freq > 0) status = write_file_locked(output_dir() + "/nic.csv", nic_csv());
  if (!host_samples_.empty()) {
    std::string cpu = "Device_id,Timestamp(us),Total Usage(%),Process Usage(%)\n";
    std::string mem = "Device_id,Timestamp(us),Memory Usage(%),Process RSS(KB)\n";
    char buf[128];
    for (const HostSample& s : host_samples_) {
      const std::string ts = format_us(anchor_.to_epoch_ns(s.time_ns));
      if (s.cpu_total_percent >= 0) {
        std::snprintf(buf, sizeof buf, ",%.2f,%.2f\n", s.cpu_total_percent, s.cpu_process_percent);
        cpu += "host," + ts + buf;
      }
      if (s.mem_used_percent >= 0) {
        std::snprintf(buf, sizeof buf, ",%.2f,%lld\n", s.mem_used_percent, static_cast<long long>(s.process_rss_kb));
        mem += "host," + ts + buf;
      }
    }
    if (status.ok() && config_.host_cpu) status = write_file_locked(output_dir() + "/host_cpu_usage.csv", cpu);
    if (status.ok() && config_.host_mem) status = write_file_locked(output_dir() + "/host_mem_usage.csv", mem);
  }
  if (status.ok() && host_ && (config_.sys_usage_cpu || config_.sys_usage_mem)) {
    // host_sys_usage: one row per process of the system per sample (AMB-5: file names of OpenGE's).
    CsvBuilder cpu({"Device_id", "Timestamp(us)", "PID", "Name", "CPU Usage(%)"});
    CsvBuilder mem({"Device_id", "Timestamp(us)", "PID", "Name", "RSS(KB)"});
    char buf[32];
    for (const ProcessSample& s : host_->take_processes()) {
      const std::string ts = format_us(anchor_.to_epoch_ns(s.time_ns)), pid = std::to_string(s.pid);
      if (config_.sys_usage_cpu && s.cpu_percent >= 0) {
        std::snprintf(buf, sizeof buf, "%.2f", s.cpu_percent);
        cpu.row({"host", ts, pid, s.name, buf});
      }
      if (config_.sys_usage_mem && s.rss_kb >= 0) mem.row({"host", ts, pid, s.name, std::to_string(s.rss_kb)});
    }
    if (config_.sys_usage_cpu) status = write_file_locked(output_dir() + "/host_sys_usage_cpu.csv", cpu.text());
    if (status.ok() && config_.sys_usage_mem)
      status = write_file_locked(output_dir() + "/host_sys_usage_mem.csv", mem.text());
  }
  ReportData report;
  for (const auto& [name, o] : op_totals_)
    report.ops.push_back({name, o.type, o.engine, o.count, o.total_ns, o.per_iteration_ns});
  report.model = model_name_;
  for (const auto& [k, v] : config_.raw.values) report.options.push_back({k, v});
  report.step_times = step_times_;
  report.timeline = timeline_;
  report.timeline_label = timeline_label_;
  report.title = fs::path(collection_dir_).filename().string();
  if (status.ok())
    status = write_file_locked(collection_dir_ + "/mindstudio_profiler_output/report.html",
                               render_report_html(report, written_));
  const std::string device = collection_dir_ + "/device_" + std::to_string(config_.device_id);
  const std::string end_info =
      "{\"collectionTimeEnd\":\"" + std::to_string(anchor_.to_epoch_ns(steady_now_ns()) / 1000) + "\"}\n";
  const std::string info = info_json_locked();
  for (const auto& [path, text] : {std::pair{device + "/end_info." + std::to_string(config_.device_id), end_info},
                                   std::pair{collection_dir_ + "/host/end_info", end_info},
                                   std::pair{device + "/info.json." + std::to_string(config_.device_id), info},
                                   std::pair{collection_dir_ + "/host/info.json", info}}) {
    Status s = write_file_atomically(path, text);  // metadata is never aged nor dropped
    if (status.ok()) status = s;
  }
  return status;
}

}  // namespace openge::profiling
