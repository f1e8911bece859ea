#include "profiling/exporters.h"

#include <algorithm>
#include <map>
#include <set>

#include "ops/training/optimizer_update_op.h"
#include "profiling/counters.h"
#include "profiling/csv.h"
#include "runtime/executable.h"

namespace openge::profiling {
namespace {

const std::string kNA = "N/A";

// Timeline layers (docs/FORMATS.md, "Profiling: timeline JSON"): pid = (process id << 10) | (layer << 5) | device,
// device 31 for host layers. One row per layer; sort index orders them in the viewer.
struct Layer {
  const char* name;
  bool host;
};
enum LayerId { kCann = 0, kHardware, kStepTrace, kTx, kCpuUsage, kMemUsage, kAiCore, kAiCpu, kCommunication };
const Layer kLayers[] = {{"CANN", true},     {"Ascend Hardware", false}, {"Step Trace", false},
                         {"MsprofTx", true}, {"CPU Usage", true},        {"Memory Usage", true},
                         {"AI Core", false}, {"AI CPU", false},          {"Communication", false}};

int64_t layer_pid(const ExportContext& ctx, LayerId layer) {
  const int device = kLayers[layer].host ? 31 : (ctx.config->device_id & 31);
  return (static_cast<int64_t>(ctx.pid) << 10) | (static_cast<int64_t>(layer) << 5) | device;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A JSON array of trace events, written by hand so that ts/dur keep exactly three decimals.
class TraceBuilder {
 public:
  explicit TraceBuilder(const ExportContext& ctx) : ctx_(ctx) {}
  std::string ts(int64_t steady_ns) const { return format_us(steady_ns - ctx_.origin_ns); }

  void process(LayerId layer) {
    if (std::find(seen_.begin(), seen_.end(), layer) != seen_.end()) return;
    seen_.push_back(layer);
    const int64_t pid = layer_pid(ctx_, layer);
    const std::string label = kLayers[layer].host ? "CPU" : "NPU " + std::to_string(ctx_.config->device_id);
    meta("process_name", pid, 0, "\"name\":" + json_string(kLayers[layer].name));
    meta("process_labels", pid, 0, "\"labels\":" + json_string(label));
    meta("process_sort_index", pid, 0, "\"sort_index\":" + std::to_string(static_cast<int>(layer)));
  }
  void thread(LayerId layer, uint64_t tid, const std::string& name) {
    process(layer);
    const auto key = std::make_pair(static_cast<int>(layer), tid);
    if (std::find(threads_.begin(), threads_.end(), key) != threads_.end()) return;
    threads_.push_back(key);
    const int64_t pid = layer_pid(ctx_, layer);
    meta("thread_name", pid, tid, "\"name\":" + json_string(name));
    meta("thread_sort_index", pid, tid, "\"sort_index\":" + std::to_string(tid));
  }
  void complete(LayerId layer, uint64_t tid, const std::string& name, int64_t start_ns, int64_t end_ns,
                const std::string& cat, const std::string& args) {
    event("{\"name\":" + json_string(name) + ",\"pid\":" + std::to_string(layer_pid(ctx_, layer)) +
          ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts(start_ns) +
          ",\"dur\":" + format_us(std::max<int64_t>(0, end_ns - start_ns)) + ",\"ph\":\"X\"" +
          (cat.empty() ? "" : ",\"cat\":" + json_string(cat)) + ",\"args\":{" + args + "}}");
  }
  void instant(LayerId layer, uint64_t tid, const std::string& name, int64_t at_ns, const std::string& args) {
    event("{\"name\":" + json_string(name) + ",\"pid\":" + std::to_string(layer_pid(ctx_, layer)) + ",\"tid\":" +
          std::to_string(tid) + ",\"ts\":" + ts(at_ns) + ",\"ph\":\"i\",\"s\":\"t\",\"args\":{" + args + "}}");
  }
  void counter(LayerId layer, const std::string& name, int64_t at_ns, const std::string& series, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", value);
    event("{\"name\":" + json_string(name) + ",\"pid\":" + std::to_string(layer_pid(ctx_, layer)) +
          ",\"tid\":0,\"ts\":" + ts(at_ns) + ",\"ph\":\"C\",\"args\":{" + json_string(series) + ":" + buf + "}}");
  }
  std::string finish() { return "[" + body_ + "\n]\n"; }

 private:
  void meta(const char* what, int64_t pid, uint64_t tid, const std::string& args) {
    event(std::string("{\"name\":\"") + what + "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
          ",\"ph\":\"M\",\"args\":{" + args + "}}");
  }
  void event(const std::string& e) {
    if (!body_.empty()) body_ += ",";
    body_ += "\n";
    body_ += e;
  }
  const ExportContext& ctx_;
  std::string body_;
  std::vector<LayerId> seen_;
  std::vector<std::pair<int, uint64_t>> threads_;
};

std::string abs_us(const ExportContext& ctx, int64_t steady_ns) {
  // CANN writes absolute timestamps as text with a trailing tab so spreadsheets keep every digit.
  return format_us(ctx.anchor.to_epoch_ns(steady_ns)) + "\t";
}

// CANN's data type names (op_summary "Input Data Types").
const char* cann_dtype(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "FLOAT";
    case DType::kFloat16:
      return "FLOAT16";
    case DType::kBFloat16:
      return "DT_BF16";
    case DType::kFloat64:
      return "DOUBLE";
    case DType::kInt8:
      return "INT8";
    case DType::kUInt8:
      return "UINT8";
    case DType::kInt16:
      return "INT16";
    case DType::kUInt16:
      return "UINT16";
    case DType::kInt32:
      return "INT32";
    case DType::kUInt32:
      return "UINT32";
    case DType::kInt64:
      return "INT64";
    case DType::kUInt64:
      return "UINT64";
    case DType::kBool:
      return "BOOL";
    case DType::kString:
      return "STRING";
    default:
      return "UNDEFINED";
  }
}

// Tensors of a channels-last region are NHWC or NC1HWC0; the rest are row-major with ONNX
// semantics: NCHW / NCDHW for 4-D / 5-D, ND otherwise.
std::string cann_format(const TensorDesc& t) {
  if (t.format != ActivationFormat::kNchw) return std::string(format_name(t.format));
  return t.shape.size() == 4 ? "NCHW" : t.shape.size() == 5 ? "NCDHW" : "ND";
}

// "," inside a tensor, ";" between tensors (docs/FORMATS.md, "Profiling: summary CSVs").
template <class Fn>
std::string join_tensors(const std::vector<TensorDesc>& ts, Fn&& fn) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) out += ';';
    if (ts[i].present) out += fn(ts[i]);
  }
  return out;
}
std::string shape_text(const TensorDesc& t) {
  std::string s;
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? "," : "") + std::to_string(t.shape[i]);
  return s;
}

std::string us_or_na(int64_t ns) { return ns < 0 ? kNA : format_us(ns); }

}  // namespace

// A MemSet task (atomic_clean_policy) is the executor's work on the CPU: an AI CPU task.
Engine task_engine(const TaskRecord& task) { return task.node ? task.node->engine : Engine::kAiCpu; }
const char* task_type(const TaskRecord& task) { return engine_name(task_engine(task)); }
const std::string& task_op_name(const TaskRecord& task) { return task.node ? task.node->node.name : task.memset_name; }
const std::string& task_op_type(const TaskRecord& task) {
  static const std::string kMemSet = "MemSet";
  return task.node ? task.node->node.op_type : kMemSet;
}

std::string file_suffix(int device_id, uint32_t model_id, uint32_t iteration_id) {
  return "_" + std::to_string(device_id) + "_" + std::to_string(model_id) + "_" + std::to_string(iteration_id);
}

bool in_op_summary(const TaskRecord& task, const ProfilerConfig& config) {
  return task_engine(task) == Engine::kAiCore || config.aicpu;
}

int64_t task_wait_ns(const IterationRecord& it, size_t i) {
  const int64_t previous_end = i == 0 ? it.start_ns : it.tasks[i - 1].end_ns;
  return std::max<int64_t>(0, it.tasks[i].start_ns - previous_end);
}

// The last task of the backward pass: the last task but the in-graph optimizer updates a training
// graph ends with (ops/training/optimizer_update_op.h).
namespace {
const TaskRecord& last_backward_task(const IterationRecord& it) {
  for (auto r = it.tasks.rbegin(); r != it.tasks.rend(); ++r)
    if (!updates_inputs_in_place(task_op_type(*r))) return *r;
  return it.tasks.back();
}
}  // namespace

StepTrace compute_step_trace(const IterationRecord& it, const ProfilerConfig& config) {
  StepTrace st;
  st.iteration_end = it.end_ns;
  st.iteration_time = it.end_ns - it.start_ns;
  if (it.previous_end_ns >= 0) st.data_aug_bound = std::max<int64_t>(0, it.start_ns - it.previous_end_ns);
  if (!config.training_trace || it.tasks.empty()) return st;
  // fp_point: the named operator's start, else the first task (auto-detection, fp_point-2);
  // bp_point: the named operator's end, else the last task before the optimizer's (bp_point-2).
  const TaskRecord* fp = &it.tasks.front();
  const TaskRecord* bp = &last_backward_task(it);
  for (const auto& t : it.tasks) {
    if (!config.fp_point.empty() && task_op_name(t) == config.fp_point) {
      fp = &t;
      break;
    }
  }
  for (auto r = it.tasks.rbegin(); r != it.tasks.rend(); ++r) {
    if (!config.bp_point.empty() && task_op_name(*r) == config.bp_point) {
      bp = &*r;
      break;
    }
  }
  st.fp_start = fp->start_ns;
  st.bp_end = bp->end_ns;
  st.fp_to_bp = std::max<int64_t>(0, st.bp_end - st.fp_start);
  st.refresh = std::max<int64_t>(0, it.end_ns - st.bp_end);
  return st;
}

std::vector<std::string> op_summary_header(const ProfilerConfig& config, const CounterSet* counters) {
  std::vector<std::string> h = {"Device_id",         "Model ID",          "Task ID",
                                "Stream ID",         "Op Name",           "OP Type",
                                "OP State",          "Task Type",         "Task Start Time(us)",
                                "Task Duration(us)", "Task Wait Time(us)"};
  if (config.task_level == TaskLevel::kL1) {
    for (const char* c : {"Block Num", "Mix Block Num", "HF32 Eligible", "Input Shapes", "Input Data Types",
                          "Input Formats", "Output Shapes", "Output Data Types", "Output Formats", "Context ID"})
      h.emplace_back(c);
  }
  if (counters) h.insert(h.end(), counters->columns().begin(), counters->columns().end());
  return h;
}

std::string op_summary_csv(const IterationRecord& it, const ExportContext& ctx) {
  const ProfilerConfig& cfg = *ctx.config;
  CsvBuilder csv(op_summary_header(cfg, ctx.counters));
  for (size_t i = 0; i < it.tasks.size(); ++i) {
    const TaskRecord& t = it.tasks[i];
    if (!in_op_summary(t, cfg)) continue;
    std::vector<std::string> row = {std::to_string(cfg.device_id),
                                    std::to_string(it.model_id),
                                    std::to_string(t.task_id),
                                    std::to_string(t.stream_id),
                                    task_op_name(t),
                                    task_op_type(t),
                                    !t.node || t.node->static_outputs ? "static" : "dynamic",
                                    task_type(t),
                                    abs_us(ctx, t.start_ns),
                                    format_us(t.end_ns - t.start_ns),
                                    format_us(task_wait_ns(it, i))};
    if (cfg.task_level == TaskLevel::kL1) {
      row.push_back(std::to_string(t.block_num));
      row.push_back("0");
      row.push_back(kNA);  // no HF32 on a CPU
      row.push_back(join_tensors(t.inputs, shape_text));
      row.push_back(join_tensors(t.inputs, [](const TensorDesc& d) { return std::string(cann_dtype(d.dtype)); }));
      row.push_back(join_tensors(t.inputs, [](const TensorDesc& d) { return std::string(cann_format(d)); }));
      row.push_back(join_tensors(t.outputs, shape_text));
      row.push_back(join_tensors(t.outputs, [](const TensorDesc& d) { return std::string(cann_dtype(d.dtype)); }));
      row.push_back(join_tensors(t.outputs, [](const TensorDesc& d) { return std::string(cann_format(d)); }));
      row.push_back(kNA);  // no sub-graph contexts (FFTS+) on a CPU
    }
    if (ctx.counters) {
      auto cells = ctx.counters->cells(t.counters, t.end_ns - t.start_ns);
      row.insert(row.end(), cells.begin(), cells.end());
    }
    csv.row(row);
  }
  return csv.text();
}

std::string op_statistic_csv(const IterationRecord& it, const ExportContext& ctx) {
  struct Stat {
    uint64_t count = 0;
    int64_t total = 0, min = INT64_MAX, max = 0;
  };
  std::map<std::pair<std::string, std::string>, Stat> stats;
  int64_t all = 0;
  for (const TaskRecord& t : it.tasks) {
    if (!in_op_summary(t, *ctx.config)) continue;
    const int64_t d = t.end_ns - t.start_ns;
    Stat& s = stats[{task_op_type(t), task_type(t)}];
    ++s.count;
    s.total += d;
    s.min = std::min(s.min, d);
    s.max = std::max(s.max, d);
    all += d;
  }
  std::vector<std::pair<std::pair<std::string, std::string>, Stat>> rows(stats.begin(), stats.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  CsvBuilder csv({"Device_id", "OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)",
                  "Max Time(us)", "Ratio(%)"});
  for (const auto& [key, s] : rows) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f",
                  all ? 100.0 * static_cast<double>(s.total) / static_cast<double>(all) : 0.0);
    csv.row({std::to_string(ctx.config->device_id), key.first, key.second, std::to_string(s.count), format_us(s.total),
             format_us(s.min), format_us(s.total / static_cast<int64_t>(s.count)), format_us(s.max), ratio});
  }
  return csv.text();
}

std::string task_time_csv(const IterationRecord& it, const ExportContext& ctx) {
  CsvBuilder csv({"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)", "task_start(us)",
                  "task_stop(us)"});
  for (const TaskRecord& t : it.tasks)
    csv.row({std::to_string(ctx.config->device_id), task_op_name(t), task_type(t), std::to_string(t.stream_id),
             std::to_string(t.task_id), format_us(t.end_ns - t.start_ns), abs_us(ctx, t.start_ns),
             abs_us(ctx, t.end_ns)});
  return csv.text();
}

static std::vector<const CollectiveRecord*> gradient_reduces(const IterationRecord& it) {
  std::vector<const CollectiveRecord*> reduces;
  for (const CollectiveRecord& c : it.collectives)
    if (c.name == "allReduce" && c.bucket >= 0) reduces.push_back(&c);
  return reduces;
}

std::string step_trace_csv(const IterationRecord& it, const ExportContext& ctx) {
  const StepTrace st = compute_step_trace(it, *ctx.config);
  std::vector<std::string> header = {
      "Device_id",          "Iteration ID",      "FP Start(us)",          "BP End(us)",         "Iteration End(us)",
      "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)", "Data Aug Bound(us)", "Model ID"};
  std::vector<std::string> row = {std::to_string(ctx.config->device_id),
                                  std::to_string(it.iteration_id),
                                  st.fp_start < 0 ? kNA : abs_us(ctx, st.fp_start),
                                  st.bp_end < 0 ? kNA : abs_us(ctx, st.bp_end),
                                  abs_us(ctx, st.iteration_end),
                                  format_us(st.iteration_time),
                                  us_or_na(st.fp_to_bp),
                                  us_or_na(st.refresh),
                                  us_or_na(st.data_aug_bound),
                                  std::to_string(it.model_id)};
  // One pair of columns per gradient all-reduce of the step (data-parallel training).
  for (const CollectiveRecord* c : gradient_reduces(it)) {
    header.insert(header.end(), {"Reduce Start(us)", "Reduce Duration(us)"});
    row.insert(row.end(), {abs_us(ctx, c->start_ns), format_us(c->end_ns - c->start_ns)});
  }
  CsvBuilder csv(header);
  csv.row(row);
  return csv.text();
}

std::string data_preprocess_csv(const std::vector<DataBatchRecord>& batches, const ExportContext& ctx) {
  CsvBuilder csv({"Device_id", "Timestamp(us)", "Action", "Source", "Cached Buffer Size", "Samples", "Gather Time(us)",
                  "Wait Time(us)"});
  for (const DataBatchRecord& b : batches)
    csv.row({std::to_string(ctx.config->device_id), abs_us(ctx, b.taken_ns), "Dequeue", "openge.Prefetcher",
             std::to_string(b.cached), std::to_string(b.samples), format_us(b.gather_ns), format_us(b.wait_ns)});
  return csv.text();
}

namespace {

// AI CPU ops whose whole work is moving bytes (a copy with a new layout or selection): their
// task time is reported as Memcpy_time, everything else as Compute_time. Ops that alias their
// input (Reshape & co. on contiguous data) move nothing and take ~0 either way.
const std::set<std::string, std::less<>> kDataMovementOps = {
    "Identity",        "Transpose", "Concat",     "Split",        "Slice",        "Gather",
    "GatherElements",  "GatherND",  "Expand",     "Tile",         "Pad",          "Reshape",
    "Flatten",         "Squeeze",   "Unsqueeze",  "DepthToSpace", "SpaceToDepth", "ScatterND",
    "ScatterElements", "Shape",     "NhwcToNchw", "NchwToNhwc"};

}  // namespace

std::string aicpu_csv(const IterationRecord& it, const ExportContext& ctx) {
  // The AI CPU engine works in the run's own memory (no host<->device transfer): Memcpy_time is
  // the time of data-movement tasks (kDataMovementOps), Compute_time that of the others, and the
  // dispatch time is the wait before the task.
  CsvBuilder csv({"Device_id", "Timestamp(us)", "Node", "Compute_time(us)", "Memcpy_time(us)", "Task_time(us)",
                  "Dispatch_time(us)", "Total_time(us)", "Stream ID", "Task ID"});
  for (size_t i = 0; i < it.tasks.size(); ++i) {
    const TaskRecord& t = it.tasks[i];
    if (task_engine(t) != Engine::kAiCpu) continue;
    const int64_t d = t.end_ns - t.start_ns, w = task_wait_ns(it, i);
    const int64_t copy = kDataMovementOps.count(task_op_type(t)) ? d : 0;
    csv.row({std::to_string(ctx.config->device_id), abs_us(ctx, t.start_ns), task_op_name(t), format_us(d - copy),
             format_us(copy), format_us(d), format_us(w), format_us(d + w), std::to_string(t.stream_id),
             std::to_string(t.task_id)});
  }
  return csv.text();
}

std::string l2_cache_csv(const IterationRecord& it, const ExportContext& ctx) {
  // Victim Rate (misses that evicted a line) has no portable CPU event: always N/A.
  CsvBuilder csv({"Device_id", "Stream Id", "Task Id", "Hit Rate", "Victim Rate", "Op Name"});
  for (const TaskRecord& t : it.tasks) {
    std::string hit = kNA;
    if (ctx.l2_counters && ctx.l2_counters->available() && t.l2_counters.size() == 3 && t.l2_counters[1] > 0) {
      const uint64_t loads = t.l2_counters[1], misses = std::min(t.l2_counters[2], loads);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(loads - misses) / static_cast<double>(loads));
      hit = buf;
    }
    csv.row({std::to_string(ctx.config->device_id), std::to_string(t.stream_id), std::to_string(t.task_id), hit, kNA,
             task_op_name(t)});
  }
  return csv.text();
}

namespace {

// Kilobytes of the values `ids` (three decimals), or N/A when one has no static shape.
std::string kilobytes(const Graph& g, const std::vector<int>& ids, double* total) {
  double bytes = 0;
  for (int v : ids) {
    const Value& value = g.values[static_cast<size_t>(v)];
    if (!value.shape) return kNA;
    int64_t n = 1;
    for (int64_t d : *value.shape) {
      if (d < 0) return kNA;
      n *= d;
    }
    bytes += static_cast<double>(n) * static_cast<double>(dtype_size(value.dtype));
  }
  if (total && *total >= 0) *total += bytes;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", bytes / 1024.0);
  return buf;
}

}  // namespace

std::string fusion_op_csv(const Executable& exe, uint32_t model_id, int device_id) {
  const Graph& g = exe.graph();
  const std::string model_name = g.name.empty() ? "model" : g.name;
  CsvBuilder csv({"Device_id", "Model Name", "Model ID", "Fusion Op", "Original Ops", "Memory Input(KB)",
                  "Memory Output(KB)", "Memory Weight(KB)", "Memory Workspace(KB)", "Memory Total(KB)"});
  bool any = false;
  for (const CompiledNode& cn : exe.nodes()) {
    const Node& n = cn.node;
    if (n.fused_from.empty()) continue;
    any = true;
    std::string original;
    for (const std::string& name : n.fused_from) original += (original.empty() ? "" : ";") + name;
    std::vector<int> inputs, weights, outputs;
    for (int v : n.inputs)
      if (v >= 0) (g.values[static_cast<size_t>(v)].constant ? weights : inputs).push_back(v);
    for (int v : n.outputs)
      if (v >= 0) outputs.push_back(v);
    double total = 0;
    std::vector<std::string> row = {std::to_string(device_id), model_name, std::to_string(model_id), n.name, original};
    for (const auto* ids : {&inputs, &outputs, &weights}) {
      row.push_back(kilobytes(g, *ids, &total));
      if (row.back() == kNA) total = -1;
    }
    row.push_back("0.000");  // kernels allocate no workspace outside the run's arena
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", total / 1024.0);
    row.push_back(total < 0 ? kNA : buf);
    csv.row(row);
  }
  return any ? csv.text() : "";
}

namespace {

std::string task_args(const IterationRecord& it, const TaskRecord& t, const ExportContext& ctx) {
  std::string a = "\"Model Id\":" + std::to_string(it.model_id) + ",\"Task Type\":" + json_string(task_type(t)) +
                  ",\"Physic Stream Id\":" + std::to_string(t.stream_id) + ",\"Task Id\":" + std::to_string(t.task_id) +
                  ",\"Batch Id\":0,\"Subtask Id\":4294967295,\"Op Type\":" + json_string(task_op_type(t));
  if (ctx.config->task_level == TaskLevel::kL1) a += ",\"Block Dim\":" + std::to_string(t.block_num);
  if (!t.node) a += ",\"size(B)\":" + std::to_string(t.memset_bytes);
  return a;
}

// A training step (a graph autodiff built, whose backward nodes are named "<forward node>/grad/..."):
// its forward, backward and update phases as lanes of their own under the step trace; the update
// is the time after the last backward task (the optimizer: OptimizerUpdate nodes at the graph's
// end, or src/session/trainer.cpp's update after the run).
void add_training_phases(TraceBuilder& tb, const IterationRecord& it, const std::string& args) {
  size_t first_backward = it.tasks.size();
  for (size_t i = 0; i < it.tasks.size() && first_backward == it.tasks.size(); ++i)
    if (task_op_name(it.tasks[i]).find("/grad/") != std::string::npos) first_backward = i;
  if (first_backward == 0 || first_backward == it.tasks.size()) return;
  const uint64_t lane = (uint64_t{1} << 20) + it.model_id;
  tb.thread(kStepTrace, lane, "Training phases (model " + std::to_string(it.model_id) + ")");
  tb.complete(kStepTrace, lane, "Forward", it.tasks.front().start_ns, it.tasks[first_backward - 1].end_ns, "Forward",
              args);
  const int64_t backward_end = last_backward_task(it).end_ns;
  tb.complete(kStepTrace, lane, "Backward", it.tasks[first_backward].start_ns, backward_end, "Backward", args);
  if (it.end_ns > backward_end) tb.complete(kStepTrace, lane, "Update", backward_end, it.end_ns, "Update", args);
}

std::string collective_args(const CollectiveRecord& c) {
  return "\"Iteration ID\":" + std::to_string(c.step) + ",\"bucket\":" + std::to_string(c.bucket) +
         ",\"size(Byte)\":" + std::to_string(c.bytes) + ",\"rank\":" + std::to_string(c.rank) +
         ",\"rank size\":" + std::to_string(c.ranks) + ",\"algorithm\":" + json_string(c.algorithm) +
         ",\"operation\":" + json_string(c.what);
}

// The communication thread's operations, one lane for this rank.
void add_communication(TraceBuilder& tb, const IterationRecord& it) {
  for (const CollectiveRecord& c : it.collectives) {
    const uint64_t lane = static_cast<uint64_t>(c.rank);
    tb.thread(kCommunication, lane, "Communication (rank " + std::to_string(c.rank) + ")");
    tb.complete(kCommunication, lane, c.name + (c.bucket >= 0 ? " bucket " + std::to_string(c.bucket) : ""), c.start_ns,
                c.end_ns, "communication", collective_args(c));
  }
}

void add_step_trace(TraceBuilder& tb, const IterationRecord& it, const ExportContext& ctx) {
  const StepTrace st = compute_step_trace(it, *ctx.config);
  const uint64_t tid = it.model_id;
  for (const CollectiveRecord* c : gradient_reduces(it))
    tb.complete(kStepTrace, tid, "Reduce", c->start_ns, c->end_ns, "Reduce", collective_args(*c));
  tb.thread(kStepTrace, tid, "Model " + std::to_string(it.model_id));
  const std::string args =
      "\"Iteration ID\":" + std::to_string(it.iteration_id) + ",\"Model ID\":" + std::to_string(it.model_id);
  if (st.data_aug_bound >= 0) tb.complete(kStepTrace, tid, "Data_aug Bound", it.previous_end_ns, it.start_ns, "", args);
  tb.complete(kStepTrace, tid, "Iteration " + std::to_string(it.iteration_id), it.start_ns, it.end_ns, "Iteration Time",
              args);
  if (st.fp_start >= 0) {
    tb.complete(kStepTrace, tid, "FP_BP Time", st.fp_start, st.bp_end, "FP_BP Time", args);
    tb.complete(kStepTrace, tid, "Iteration Refresh", st.bp_end, it.end_ns, "Iteration Refresh", args);
    add_training_phases(tb, it, args);
  }
}

}  // namespace

std::string msprof_json(const IterationRecord& it, const std::vector<ApiRecord>& apis,
                        const std::vector<MarkerRecord>& markers, const std::vector<HostSample>& host,
                        const ExportContext& ctx) {
  TraceBuilder tb(ctx);
  for (const ApiRecord& a : apis) {
    tb.thread(kCann, a.thread_id, "Thread " + std::to_string(a.thread_id));
    tb.complete(kCann, a.thread_id, a.name, a.start_ns, a.end_ns, "api",
                "\"Thread Id\":" + std::to_string(a.thread_id));
  }
  for (const TaskRecord& t : it.tasks) {
    tb.thread(kHardware, t.stream_id, "Stream " + std::to_string(t.stream_id));
    tb.complete(kHardware, t.stream_id, task_op_name(t), t.start_ns, t.end_ns, "", task_args(it, t, ctx));
  }
  add_step_trace(tb, it, ctx);
  add_communication(tb, it);
  for (const MarkerRecord& m : markers) {
    tb.thread(kTx, m.thread_id, "Thread " + std::to_string(m.thread_id));
    if (m.is_range)
      tb.complete(kTx, m.thread_id, m.message, m.start_ns, m.end_ns, "msproftx",
                  "\"depth\":" + std::to_string(m.depth));
    else
      tb.instant(kTx, m.thread_id, m.message, m.start_ns, "");
  }
  for (const HostSample& s : host) {
    if (s.cpu_total_percent >= 0)
      tb.process(kCpuUsage), tb.counter(kCpuUsage, "CPU Usage", s.time_ns, "Total", s.cpu_total_percent);
    if (s.cpu_process_percent >= 0)
      tb.counter(kCpuUsage, "Process CPU Usage", s.time_ns, "Process", s.cpu_process_percent);
    if (s.mem_used_percent >= 0)
      tb.process(kMemUsage), tb.counter(kMemUsage, "Memory Usage", s.time_ns, "Used(%)", s.mem_used_percent);
    if (s.process_rss_kb >= 0)
      tb.counter(kMemUsage, "Process Memory", s.time_ns, "RSS(KB)", static_cast<double>(s.process_rss_kb));
  }
  return tb.finish();
}

std::string task_time_json(const IterationRecord& it, const ExportContext& ctx) {
  TraceBuilder tb(ctx);
  for (const TaskRecord& t : it.tasks) {
    const LayerId layer = task_engine(t) == Engine::kAiCore ? kAiCore : kAiCpu;
    tb.thread(layer, t.stream_id, "Stream " + std::to_string(t.stream_id));
    tb.complete(layer, t.stream_id, task_op_name(t), t.start_ns, t.end_ns, "", task_args(it, t, ctx));
  }
  return tb.finish();
}

std::string hccl_json(const IterationRecord& it, const ExportContext& ctx) {
  TraceBuilder tb(ctx);
  add_communication(tb, it);
  return tb.finish();
}

std::string step_trace_json(const IterationRecord& it, const ExportContext& ctx) {
  TraceBuilder tb(ctx);
  add_step_trace(tb, it, ctx);
  return tb.finish();
}

}  // namespace openge::profiling
