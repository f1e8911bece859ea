#include "profiling/profiler_config.h"

#include "options/value_parsers.h"
#include "paths/artifact_paths.h"

namespace openge::profiling {
namespace {

// Keys with no CPU analogue (AMB-1): accepted and validated by the option layer, recorded in the
// info file with the reason, and documented in docs/PROFILING.md.
struct NoEffectRow {
  const char* key;
  const char* reason;
};
const NoEffectRow kNoCpuEffect[] = {
    {"dvpp_freq", "the CPU has no DVPP (video/image pre-processing) unit"},
    {"llc_profiling", "last-level-cache bandwidth sampling is not measurable per process on this engine"},
    {"sys_interconnection_freq", "no HCCS/PCIe/inter-chip links exist on a CPU"},
    {"sys_hardware_mem_freq", "DDR/HBM bandwidth counters are not readable per process"},
    {"instr_profiling_freq", "AI Core instruction sampling has no CPU counterpart"},
};

bool on(const options::ProfilingOptions& p, const char* key) { return p.get(key) == "on"; }

void apply_host_sys(const std::string& v, ProfilerConfig& c) {
  if (v.find("cpu") != std::string::npos) c.host_cpu = true;
  if (v.find("mem") != std::string::npos) c.host_mem = true;
}

Status fill_from(const options::ProfilingOptions& p, ProfilerConfig& c) {
  c.raw = p;
  // task_trace and task_time are two names of one switch; default on (= l1).
  std::string level = p.get("task_trace", p.get("task_time", "on"));
  c.task_level = level == "off" ? TaskLevel::kOff : level == "l0" ? TaskLevel::kL0 : TaskLevel::kL1;
  c.training_trace = on(p, "training_trace");
  c.fp_point = p.get("fp_point");
  c.bp_point = p.get("bp_point");
  c.hccl = on(p, "hccl");
  c.aicpu = on(p, "aicpu");  // anything but "on" is off (OPT-...aicpu-2)
  c.runtime_api = on(p, "runtime_api");
  c.msproftx = on(p, "msproftx");
  c.l2 = on(p, "l2");
  if (p.has("aic_metrics")) {
    auto m = options::parse_aic_metrics(p.get("aic_metrics"));
    if (!m.ok()) return m.status();
    c.aic_metrics = m->name;
    c.aic_custom_registers = m->registers;
  }
  if (p.has("storage_limit")) {
    auto mb = options::parse_storage_limit_mb(p.get("storage_limit"));
    if (!mb.ok()) return mb.status();
    c.storage_limit_mb = *mb;
  }
  apply_host_sys(p.get("host_sys"), c);
  apply_host_sys(p.get("host_sys_usage"), c);
  // host_sys_usage is the host system and all its processes (OPT-...host_sys_usage-1).
  c.sys_usage_cpu = p.get("host_sys_usage").find("cpu") != std::string::npos;
  c.sys_usage_mem = p.get("host_sys_usage").find("mem") != std::string::npos;
  if (p.has("host_sys_usage_freq")) c.host_sys_usage_freq = std::stoi(p.get("host_sys_usage_freq"));
  if (p.has("sys_io_sampling_freq")) c.sys_io_sampling_freq = std::stoi(p.get("sys_io_sampling_freq"));
  for (const auto& row : kNoCpuEffect)
    if (p.has(row.key) && p.get(row.key) != "off") c.no_cpu_effect.emplace_back(row.key, row.reason);
  return Status::Ok();
}

}  // namespace

const char* task_level_name(TaskLevel level) {
  switch (level) {
    case TaskLevel::kOff:
      return "off";
    case TaskLevel::kL0:
      return "l0";
    case TaskLevel::kL1:
      return "l1";
  }
  return "l1";
}

bool profiling_enabled(const options::OptionSet& options) {
  return options.get_bool("profiling_config.enable_profiling");
}

Result<ProfilerConfig> profiler_config_from_options(const options::OptionSet& options) {
  ProfilerConfig c;
  c.device_id = options.device_id();
  if (const auto* v = options.find("profiling_config.profiling_options"); v && !v->value.empty()) {
    auto p = options::parse_profiling_options(v->value);
    if (!p.ok()) return p.status().with_context("profiling options");
    c.options_source = v->source == options::Source::kEnv ? "PROFILING_OPTIONS" : "profiling_config.profiling_options";
    if (Status s = fill_from(*p, c); !s.ok()) return s.with_context(c.options_source);
  }
  auto where = paths::resolve_artifact(paths::ArtifactKind::kProfiling, options, paths::RunIds::current());
  if (where.path.empty())
    return invalid_argument(
        "profiling is on but has no output folder: set \"output\" in profiling_options (or PROFILING_OPTIONS) or the "
        "ASCEND_WORK_PATH environment variable");
  c.output_dir = where.path;
  c.output_rule = where.rule;
  c.create_output_dir = paths::chosen_by_work_path(where);
  return c;
}

Result<ProfilerConfig> profiler_config_from_json(std::string_view json_text, const std::string& output_dir,
                                                 int device_id) {
  ProfilerConfig c;
  c.device_id = device_id;
  c.output_dir = output_dir;
  c.output_rule = "explicit folder";
  if (!json_text.empty()) {
    auto p = options::parse_profiling_options(json_text);
    if (!p.ok()) return p.status().with_context("profiling options");
    c.options_source = "profiling_options";
    if (Status s = fill_from(*p, c); !s.ok()) return s;
    if (!c.raw.get("output").empty() && output_dir.empty()) c.output_dir = c.raw.get("output");
  }
  if (c.output_dir.empty()) return invalid_argument("profiling needs an output folder");
  return c;
}

}  // namespace openge::profiling
