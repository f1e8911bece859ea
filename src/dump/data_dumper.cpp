#include "dump/data_dumper.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>

#include "base/file_backed_memory.h"
#include "base/file_modes.h"
#include "dump/dump_log.h"
#include "io/stale_temporaries.h"
#include "ir/original_outputs.h"
#include "ops/generator/file_constant.h"
#include "dump/overflow_check.h"
#include <nlohmann/json.hpp>
#include "paths/data_dump_layout.h"
#include "precision/soc_profile.h"

namespace openge::dump {
namespace {

std::atomic<uint32_t> g_next_model_id{1};

// Model ids count from 1 in every process, so two processes dumping in the same second into
// <dump_path>/<YYYYmmddHHMMSS> would write the same <model_name>/<model_id> folders. The
// per-second folder belongs to the process that creates it (mkdir is atomic); any other process
// writes into <YYYYmmddHHMMSS>_<pid> (docs/DECISIONS.md, "Data Dump of concurrent processes").
std::string claim_session_dir(const std::string& dump_path, std::time_t when) {
  static std::mutex mutex;
  static std::set<std::string> claimed;  // per-second folders this process created
  std::lock_guard<std::mutex> lock(mutex);
  // Temporaries of killed dumping processes sit in iteration folders no later process writes
  // into: the first session of each process removes them (<stamp>/<device>/<model>/<id>/<iteration>/).
  static std::set<std::string> swept;
  if (swept.insert(dump_path).second) remove_dead_temporaries_below(dump_path, 5);
  const std::string plain = paths::data_dump_session_dir(dump_path, when);
  if (claimed.count(plain)) return plain;
  if (::mkdir(plain.c_str(), kPrivateFolderMode) == 0) {
    ::chmod(plain.c_str(), kPrivateFolderMode);  // whatever the umask
    claimed.insert(plain);
    return plain;
  }
  // A missing dump_path: the writer reports it when it creates the iteration folders.
  if (errno != EEXIST) return plain;
  return paths::data_dump_session_dir_of_process(dump_path, when, static_cast<long>(::getpid()));
}

uint64_t now_us() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// The node's label in files and messages: its name, or its type and position when it has none.
std::string op_name(size_t index, const Node& node) {
  return node.name.empty() ? node.op_type + "_" + std::to_string(index) : node.name;
}

struct Overflow {
  std::string node, op_type, kind;
  std::set<std::string> blacklist;  // Ascend IR op types to keep in float32
};

}  // namespace

// One run: copies what the configuration selects and queues it for the writer.
class IterationObserver : public RunObserver {
 public:
  IterationObserver(DataDumper& dumper, const Executable& exe, int64_t iteration)
      : dumper_(dumper), exe_(exe), iteration_(iteration), dir_(dumper.iteration_dir(iteration)) {}

  void on_node_end(size_t index, const CompiledNode& cn, const std::vector<const Tensor*>& inputs,
                   const std::vector<const Tensor*>& outputs) override {
    const DumpConfig& c = dumper_.config_;
    if (c.overflow_bits) {
      check_overflow(index, cn, inputs, outputs);
      return;
    }
    if (!selected(cn.node)) return;
    DumpJob job = make_job(index, cn);
    if (c.mode != DumpMode::kOutput) job.record.inputs = copy_inputs(cn, inputs, job.holders);
    if (c.mode != DumpMode::kInput) job.record.outputs = copy_outputs(cn, outputs, job.holders);
    job.stats = c.data == DumpData::kStats;
    dumper_.submit(std::move(job));
    if (c.mode != DumpMode::kInput) dump_file_constants(index, cn);
  }

  std::vector<Overflow> overflows;
  int64_t iteration() const { return iteration_; }

 private:
  bool selected(const Node& node) const {
    const DumpConfig& c = dumper_.config_;
    if (c.layers.empty() || c.layer_selected(node.name)) return true;
    for (const std::string& original : node.fused_from)  // a layer fused into this node
      if (c.layer_selected(original)) return true;
    return false;
  }

  DumpJob make_job(size_t index, const CompiledNode& cn) const {
    DumpJob job;
    job.dir = dir_;
    const uint64_t t = now_us();
    job.record.op_name = op_name(index, cn.node);
    job.record.dump_time_us = t;
    job.file = paths::data_dump_file_name(cn.node.op_type, job.record.op_name, static_cast<uint32_t>(index), 0, t);
    // A fused op's outputs are those of one of the model nodes merged into it: compare meets
    // golden data by that node's name.
    if (!cn.node.fused_from.empty())
      for (const OriginalOutput& o : original_outputs(cn.node))
        job.record.original_outputs.push_back({o.node, static_cast<uint32_t>(o.index)});
    return job;
  }

  // external_weight's weights are FileConstant nodes of the loaded graph, folded into constants
  // that view their files: they never run, so each weight a dumped node reads gets the dump file
  // its FileConstant would write, once per iteration, named as the graph dumps name the node
  // (<weight>_FileConstant) and numbered with the reading node's task (docs/DECISIONS.md).
  void dump_file_constants(size_t index, const CompiledNode& cn) {
    const DumpConfig& c = dumper_.config_;
    for (int v : cn.node.inputs) {
      if (v < 0) continue;
      const Value& value = exe_.graph().values[static_cast<size_t>(v)];
      if (!value.constant || !dumpable(&*value.constant)) continue;
      if (!find_file_backed(value.constant->raw(), value.constant->nbytes())) continue;
      if (!file_constants_dumped_.insert(v).second) continue;
      DumpJob job;
      job.dir = dir_;
      const uint64_t t = now_us();
      job.record.op_name = value.name + "_FileConstant";
      job.record.dump_time_us = t;
      job.file = paths::data_dump_file_name(kFileConstantOp, job.record.op_name, static_cast<uint32_t>(index), 0, t);
      job.record.outputs.push_back(stage(*value.constant, v, job.holders));
      job.stats = c.data == DumpData::kStats;
      dumper_.submit(std::move(job));
    }
  }

  // CANN's dump format holds numeric tensors: a sequence, an optional or a string tensor is
  // left out of the record (as an omitted input is).
  static bool dumpable(const Tensor* t) { return t && t->defined() && t->is_tensor() && dtype_supported(t->dtype()); }

  // A copy out of the run's arena, into the dumper's reused staging memory. A value stored in a
  // channels-last region's format (NHWC, NC1HWC0) is written as the model's N x C x H x W tensor,
  // so a dump reads the same whatever layout this CPU chose.
  Tensor stage(const Tensor& t, int value, std::vector<std::shared_ptr<void>>& holders) const {
    holders.emplace_back();
    const ActivationFormat f = exe_.stored_format(value);
    const auto nchw = f == ActivationFormat::kNchw ? std::nullopt : nchw_shape(t.shape(), f);
    if (!nchw) return dumper_.staging_.copy(t, holders.back());
    Tensor out = dumper_.staging_.allocate(t.dtype(), *nchw, holders.back());
    copy_to_nchw(t, out, f);
    return out;
  }

  std::vector<Tensor> copy_outputs(const CompiledNode& cn, const std::vector<const Tensor*>& outputs,
                                   std::vector<std::shared_ptr<void>>& holders) const {
    std::vector<Tensor> out;
    out.reserve(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const int v = i < cn.node.outputs.size() ? cn.node.outputs[i] : -1;
      out.push_back(dumpable(outputs[i]) ? stage(*outputs[i], v, holders) : Tensor());
    }
    return out;
  }

  // Initializers are immutable and owned by the compiled graph: shared, not copied (unless
  // stored in a region's format).
  std::vector<Tensor> copy_inputs(const CompiledNode& cn, const std::vector<const Tensor*>& inputs,
                                  std::vector<std::shared_ptr<void>>& holders) const {
    std::vector<Tensor> out;
    out.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor* t = inputs[i];
      const int v = i < cn.node.inputs.size() ? cn.node.inputs[i] : -1;
      const bool shared = v >= 0 && exe_.graph().values[static_cast<size_t>(v)].constant.has_value() &&
                          exe_.stored_format(v) == ActivationFormat::kNchw;
      out.push_back(!dumpable(t) ? Tensor() : shared && t->owns_storage() ? *t : stage(*t, v, holders));
    }
    return out;
  }

  void check_overflow(size_t index, const CompiledNode& cn, const std::vector<const Tensor*>& inputs,
                      const std::vector<const Tensor*>& outputs) {
    const unsigned bits = dumper_.config_.overflow_bits;
    const bool accumulating = accumulating_op(cn.node.op_type);
    if (!(bits & kAicoreOverflow) && !(bits & kAtomicOverflow && accumulating)) return;
    bool any = false;
    for (const Tensor* t : outputs) any = any || (dumpable(t) && overflowed(*t));
    if (!any) return;
    // Only an op that overflows on normal inputs is the culprit; its consumers merely inherit.
    for (const Tensor* t : inputs)
      if (dumpable(t) && has_non_finite(*t)) return;
    Overflow o;
    o.node = op_name(index, cn.node);
    o.op_type = cn.node.op_type;
    o.kind = bits & kAicoreOverflow ? "aicore_overflow" : "atomic_overflow";
    o.blacklist = blacklist_for(cn);
    overflows.push_back(std::move(o));
    DumpJob job = make_job(index, cn);
    job.record.inputs = copy_inputs(cn, inputs, job.holders);
    job.record.outputs = copy_outputs(cn, outputs, job.holders);
    dumper_.submit(std::move(job));
  }

  // The op types whose black-listing keeps this computation in float32. A Cast into float16 /
  // bfloat16 that the precision pass inserted overflows because its consumers run narrow:
  // those are the ones to black-list.
  std::set<std::string> blacklist_for(const CompiledNode& cn) const {
    if (cn.node.op_type != "Cast") return {precision::ascend_op_type(cn.node.op_type)};
    std::set<std::string> out;
    for (const CompiledNode& other : exe_.nodes())
      for (int in : other.node.inputs)
        for (int produced : cn.node.outputs)
          if (in >= 0 && in == produced) out.insert(precision::ascend_op_type(other.node.op_type));
    return out;
  }

  DataDumper& dumper_;
  const Executable& exe_;
  const int64_t iteration_;
  const std::string dir_;
  std::set<int> file_constants_dumped_;  // values whose FileConstant dump this iteration wrote
};

DataDumper::DataDumper(DumpConfig config, std::string model_name)
    : config_(std::move(config)),
      model_name_(std::move(model_name)),
      model_id_(g_next_model_id.fetch_add(1)),
      started_(std::time(nullptr)) {}

const std::string& DataDumper::session_dir() const {
  std::call_once(session_dir_claimed_, [this] { session_dir_ = claim_session_dir(config_.dump_path, started_); });
  return session_dir_;
}

std::string DataDumper::iteration_dir(int64_t iteration) const {
  return paths::data_dump_iteration_dir(session_dir(), config_.device_id, model_name_, model_id_, iteration);
}

std::string DataDumper::mixlist_path() const { return session_dir() + "/modify_mixlist.json"; }

std::unique_ptr<RunObserver> DataDumper::begin_iteration(const Executable& exe) {
  const int64_t iteration = next_iteration_.fetch_add(1);
  if (!config_.overflow_bits && !config_.step_selected(iteration)) return nullptr;
  return std::make_unique<IterationObserver>(*this, exe, iteration);
}

Status DataDumper::end_iteration(std::unique_ptr<RunObserver> observer) {
  auto* run = static_cast<IterationObserver*>(observer.get());
  if (run && !run->overflows.empty()) {
    const Overflow& first = run->overflows.front();
    log_dump_event("iteration " + std::to_string(run->iteration()) + ": first overflowing op " + first.op_type + " '" +
                   first.node + "' (" + first.kind + "), " + std::to_string(run->overflows.size()) +
                   " overflowing op(s) dumped to " + iteration_dir(run->iteration()));
    std::lock_guard<std::mutex> lock(overflow_mutex_);
    const size_t before = overflow_op_types_.size();
    for (const Overflow& o : run->overflows) overflow_op_types_.insert(o.blacklist.begin(), o.blacklist.end());
    if (overflow_op_types_.size() != before) {
      // The modify_mixlist option's format (docs/FORMATS.md, "Mixed-precision lists"), read by src/precision/.
      nlohmann::json mixlist = {{"black-list", {{"to-add", overflow_op_types_}}}};
      DumpJob job;
      job.dir = session_dir();
      job.file = "modify_mixlist.json";
      job.text = mixlist.dump(2) + "\n";
      submit(std::move(job));
      log_dump_event("overflowing op types black-listed in " + mixlist_path() +
                     " (pass it as modify_mixlist with a mixed precision_mode to keep them in float32)");
    }
  }
  return writer_.error();
}

}  // namespace openge::dump
