#include "paths/artifact_paths.h"

#include <unistd.h>

#include <filesystem>

#include "options/aoe_ini.h"
#include "options/config_files.h"
#include "options/profiling_options.h"
#include "base/path_util.h"

namespace openge::paths {
namespace fs = std::filesystem;
using options::OptionSet;

namespace {

std::string join(const std::string& a, const std::string& b) { return (fs::path(a) / b).lexically_normal().string(); }

struct Tier {
  std::string root;  // "" = tier not set
  std::string rule;
};

// The first tier that is set decides.
ResolvedPath pick(ArtifactKind kind, const std::vector<Tier>& tiers, const std::string& chain, bool is_file = false) {
  for (const auto& t : tiers)
    if (!t.root.empty()) return ResolvedPath{kind, t.root, is_file, t.rule, chain};
  return ResolvedPath{kind, "", is_file, "none: no tier is set", chain};
}

// $HOME, or the working directory when HOME is unset (AMB-30).
std::string home_or_cwd(const OptionSet& o) { return o.home().empty() ? o.cwd() : o.home(); }

std::string env_dir(const OptionSet& o, const char* name) { return resolve_against(o.cwd(), o.get(name)); }

std::string pid_dev(const OptionSet& o, const RunIds& ids) {
  return std::to_string(ids.pid) + "_" + std::to_string(o.device_id());
}

std::string under(const std::string& root, const std::string& sub) { return root.empty() ? "" : join(root, sub); }

}  // namespace

RunIds RunIds::current() {
  RunIds ids;
  ids.pid = static_cast<long>(::getpid());
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) == 0) ids.host_id = host;
  if (ids.host_id.empty()) ids.host_id = "localhost";
  return ids;
}

std::string ResolvedPath::directory() const {
  if (!is_file || path.empty()) return path;
  return fs::path(path).parent_path().string();
}

const char* artifact_name(ArtifactKind k) {
  switch (k) {
    case ArtifactKind::kLog:
      return "log";
    case ArtifactKind::kAtrace:
      return "atrace";
    case ArtifactKind::kProfiling:
      return "profiling_data";
    case ArtifactKind::kKernelMeta:
      return "kernel_meta";
    case ArtifactKind::kGraphDump:
      return "graph_dump";
    case ArtifactKind::kExceptionDump:
      return "exception_dump";
    case ArtifactKind::kExternalWeights:
      return "external_weights";
    case ArtifactKind::kFusionResult:
      return "fusion_result";
    case ArtifactKind::kCheckResult:
      return "check_result";
    case ArtifactKind::kAoeData:
      return "aoe_data";
    case ArtifactKind::kCompileCache:
      return "compile_cache";
    case ArtifactKind::kCollectCompile:
      return "collect_compile";
    case ArtifactKind::kDataDump:
      return "data_dump";
  }
  return "?";
}

const char* artifact_writer(ArtifactKind k) {
  switch (k) {
    case ArtifactKind::kProfiling:
      return "src/profiling/collection_dir.cpp";
    case ArtifactKind::kLog:
      return "src/logging/log.cpp";
    case ArtifactKind::kAtrace:
      return "src/logging/log.cpp";
    case ArtifactKind::kGraphDump:
      return "src/graph_dump/graph_dumper.cpp";
    case ArtifactKind::kCheckResult:
      return "src/precheck/check_report.cpp";
    case ArtifactKind::kDataDump:
      return "src/dump/dump_writer.cpp";
    case ArtifactKind::kFusionResult:
      return "src/passes/fusion_result.cpp";
    case ArtifactKind::kExceptionDump:
      return "src/dump/exception_dump.cpp";
    case ArtifactKind::kExternalWeights:
      return "src/session/external_weights.cpp";
    case ArtifactKind::kKernelMeta:
      return "src/compiler/online_compiler.cpp";
    case ArtifactKind::kCompileCache:
      return "src/compiler/op_cache.cpp";
    case ArtifactKind::kCollectCompile:
      return "src/compiler/online_compiler.cpp";
    case ArtifactKind::kAoeData:
      return "src/aoe/tuning_record.cpp";
    default:
      return nullptr;
  }
}

const char* artifact_written_only(ArtifactKind k) {
  switch (k) {
    case ArtifactKind::kAtrace:
      return "when an error is logged";
    case ArtifactKind::kCheckResult:
      return "by openge check, and when a model fails to load";
    case ArtifactKind::kExceptionDump:
      return "when an operator fails during a run";
    case ArtifactKind::kExternalWeights:
      return "while a session with external_weight=True is open (removed when it closes)";
    case ArtifactKind::kKernelMeta:
      return "when op_debug_level or op_debug_config is set and kernels are compiled online";
    case ArtifactKind::kCompileCache:
      return "when a kernel is compiled online with op_compiler_cache_mode enable or force and no debug setting";
    case ArtifactKind::kCollectCompile:
      return "when NPU_COLLECT_PATH is set and kernels are compiled online";
    case ArtifactKind::kAoeData:
      return "when a model is compiled with aoe_config.aoe_mode 1 or 2, or trained under mpirun with 4 (a tuning run)";
    default:
      return nullptr;
  }
}

const std::vector<ArtifactKind>& all_artifact_kinds() {
  static const std::vector<ArtifactKind> k = {ArtifactKind::kLog,
                                              ArtifactKind::kAtrace,
                                              ArtifactKind::kProfiling,
                                              ArtifactKind::kKernelMeta,
                                              ArtifactKind::kGraphDump,
                                              ArtifactKind::kExceptionDump,
                                              ArtifactKind::kExternalWeights,
                                              ArtifactKind::kFusionResult,
                                              ArtifactKind::kCheckResult,
                                              ArtifactKind::kAoeData,
                                              ArtifactKind::kCompileCache,
                                              ArtifactKind::kCollectCompile,
                                              ArtifactKind::kDataDump};
  return k;
}

namespace {
// The AOE engine's default work folder, WORK_PATH of aoe.ini (options/aoe_ini.h); "" when there is
// none. A malformed aoe.ini is refused when the options are built, so here it only has no say.
std::string aoe_ini_work_path(const OptionSet& o) {
  auto ini = options::read_aoe_ini(o);
  if (!ini.ok() || !*ini || !(*ini)->work_path) return "";
  return resolve_against(o.cwd(), *(*ini)->work_path);
}
}  // namespace

ResolvedPath resolve_artifact(ArtifactKind kind, const OptionSet& o, const RunIds& ids) {
  const std::string work = env_dir(o, "ASCEND_WORK_PATH");
  const std::string cwd = o.cwd();
  switch (kind) {
    case ArtifactKind::kLog:
      return pick(kind,
                  {{env_dir(o, "ASCEND_PROCESS_LOG_PATH"), "ASCEND_PROCESS_LOG_PATH"},
                   {under(work, "log"), "ASCEND_WORK_PATH/log"},
                   {join(home_or_cwd(o), "ascend/log"),
                    o.home().empty() ? "default ./ascend/log, HOME unset" : "default $HOME/ascend/log"}},
                  "ASCEND_PROCESS_LOG_PATH > ASCEND_WORK_PATH/log > $HOME/ascend/log");
    case ArtifactKind::kAtrace:
      return pick(kind,
                  {{under(work, "atrace"), "ASCEND_WORK_PATH/atrace"},
                   {join(home_or_cwd(o), "ascend/atrace"), "default $HOME/ascend/atrace"}},
                  "ASCEND_WORK_PATH/atrace > $HOME/ascend/atrace");
    case ArtifactKind::kProfiling: {
      // The output key of the winning profiling options source (flag/file/env, AMB-6), then the
      // work path; no default in this scenario (ENV-13).
      std::string output, rule;
      if (const auto* v = o.find("profiling_config.profiling_options"); v && !v->value.empty()) {
        auto p = options::parse_profiling_options(v->value);
        if (p.ok() && !p->get("output").empty()) {
          output = resolve_against(cwd, p->get("output"));
          rule = std::string(v->source == options::Source::kEnv ? "PROFILING_OPTIONS" : "profiling_options") +
                 " \"output\"";
        }
      }
      auto r = pick(kind, {{output, rule}, {under(work, "profiling_data"), "ASCEND_WORK_PATH/profiling_data"}},
                    "profiling_options output > ASCEND_WORK_PATH/profiling_data > none: error");
      if (r.path.empty()) r.rule = "none: set \"output\" in profiling_options or ASCEND_WORK_PATH";
      return r;
    }
    case ArtifactKind::kKernelMeta:
      return pick(kind,
                  {{under(resolve_against(cwd, o.get("debug_dir")), "kernel_meta"), "debug_dir/kernel_meta"},
                   {under(work, "kernel_meta"), "ASCEND_WORK_PATH/kernel_meta"},
                   {join(cwd, "kernel_meta"), "default ./kernel_meta"}},
                  "debug_dir > ASCEND_WORK_PATH > working directory");
    case ArtifactKind::kGraphDump:
      return pick(kind,
                  {{env_dir(o, "DUMP_GRAPH_PATH"), "DUMP_GRAPH_PATH"},
                   {under(env_dir(o, "NPU_COLLECT_PATH"), pid_dev(o, ids)), "NPU_COLLECT_PATH/${pid}_${device_id}"},
                   {under(work, pid_dev(o, ids)), "ASCEND_WORK_PATH/${pid}_${device_id}"},
                   {cwd, "default: working directory"}},
                  "DUMP_GRAPH_PATH > NPU_COLLECT_PATH/${pid}_${device_id} > ASCEND_WORK_PATH/${pid}_${device_id} > "
                  "working directory");
    case ArtifactKind::kExceptionDump:
      return pick(
          kind,
          {{under(env_dir(o, "NPU_COLLECT_PATH"), "extra-info/data-dump"), "NPU_COLLECT_PATH/extra-info/data-dump"},
           {under(work, "extra-info/data-dump"), "ASCEND_WORK_PATH/extra-info/data-dump"},
           {join(cwd, "extra-info/data-dump"), "default ./extra-info/data-dump"}},
          "NPU_COLLECT_PATH > ASCEND_WORK_PATH > working directory, each + extra-info/data-dump");
    case ArtifactKind::kExternalWeights: {
      const std::string leaf = "tmp_weight_" + std::to_string(ids.pid) + "_" + ids.session_id;
      return pick(kind,
                  {{under(work, leaf), "ASCEND_WORK_PATH/tmp_weight_<pid>_<sessionid>"},
                   {join(cwd, leaf), "default ./tmp_weight_<pid>_<sessionid>"}},
                  "ASCEND_WORK_PATH > working directory");
    }
    case ArtifactKind::kFusionResult:
      return pick(kind,
                  {{under(work, "FE/" + std::to_string(ids.pid) + "/fusion_result.json"),
                    "ASCEND_WORK_PATH/FE/${pid}/fusion_result.json"},
                   {join(cwd, "fusion_result.json"), "default ./fusion_result.json"}},
                  "ASCEND_WORK_PATH/FE/${pid} > working directory", true);
    case ArtifactKind::kCheckResult:
      return pick(kind,
                  {{resolve_against(cwd, ids.check_report), "check_report parameter"},
                   {under(work, "check_result.json"), "ASCEND_WORK_PATH/check_result.json"},
                   {join(cwd, "check_result.json"), "default ./check_result.json"}},
                  "check_report > ASCEND_WORK_PATH > working directory", true);
    case ArtifactKind::kAoeData:
      return pick(kind,
                  {{resolve_against(cwd, o.get("aoe_config.work_path")), "aoe_config.work_path"},
                   {under(work, "aoe_data"), "ASCEND_WORK_PATH/aoe_data"},
                   {aoe_ini_work_path(o), "aoe.ini WORK_PATH"},
                   {cwd, "default: working directory"}},
                  "aoe_config.work_path > ASCEND_WORK_PATH/aoe_data > aoe.ini WORK_PATH > working directory");
    case ArtifactKind::kCompileCache: {
      const std::string host = "kernel_cache_" + ids.host_id;
      return pick(kind,
                  {{under(resolve_against(cwd, o.get("op_compiler_cache_dir")), "kernel_cache"),
                    "op_compiler_cache_dir/kernel_cache"},
                   {under(env_dir(o, "ASCEND_CACHE_PATH"), host), "ASCEND_CACHE_PATH/kernel_cache_<host>"},
                   {join(home_or_cwd(o), "atc_data/" + host), "default $HOME/atc_data/kernel_cache_<host>"}},
                  "op_compiler_cache_dir > ASCEND_CACHE_PATH > $HOME/atc_data");
    }
    case ArtifactKind::kCollectCompile: {
      const std::string host = "kernel_cache_" + ids.host_id;
      return pick(kind,
                  {{under(env_dir(o, "NPU_COLLECT_PATH"), "op_compile"), "NPU_COLLECT_PATH/op_compile"},
                   {under(env_dir(o, "ASCEND_CACHE_PATH"), host), "ASCEND_CACHE_PATH/kernel_cache_<host>"},
                   {join(home_or_cwd(o), "atc_data/" + host), "default $HOME/atc_data/kernel_cache_<host>"}},
                  "NPU_COLLECT_PATH > ASCEND_CACHE_PATH > $HOME/atc_data");
    }
    case ArtifactKind::kDataDump: {
      // Only dump_path, and only while a dump is on (no default folder: OPT-dump_config.dump_path-1).
      const bool on = o.get_bool("dump_config.enable_dump") || o.get_bool("dump_config.enable_dump_debug");
      return pick(kind, {{on ? resolve_against(cwd, o.get("dump_config.dump_path")) : "", "dump_config.dump_path"}},
                  "dump_config.dump_path, only with enable_dump or enable_dump_debug; no default");
    }
  }
  return ResolvedPath{kind, "", false, "unknown artifact", ""};
}

std::vector<ResolvedPath> resolve_all_artifacts(const OptionSet& o, const RunIds& ids) {
  std::vector<ResolvedPath> out;
  for (auto k : all_artifact_kinds()) out.push_back(resolve_artifact(k, o, ids));
  return out;
}

Status prepare_artifact_directory(const ResolvedPath& r, const OptionSet&) { return prepare_artifact_directory(r); }

bool chosen_by_work_path(const ResolvedPath& r) { return r.rule.rfind("ASCEND_WORK_PATH", 0) == 0; }

Status prepare_artifact_directory(const ResolvedPath& r) {
  if (r.path.empty())
    return invalid_argument(
        std::string(artifact_name(r.kind)) + ": no folder: " +
        (r.kind == ArtifactKind::kProfiling ? "set \"output\" in profiling_options or ASCEND_WORK_PATH" : r.rule));
  const bool collect = r.rule.rfind("NPU_COLLECT_PATH", 0) == 0;
  auto st = ensure_directory(r.directory(), true, collect ? Access::kReadWriteExecute : Access::kReadWrite);
  return st.with_context(std::string(artifact_name(r.kind)) + " (" + r.rule + ")");
}

OpCacheLimits resolve_op_cache_limits(const OptionSet& o, const std::string& cache_dir) {
  OpCacheLimits out;
  // The cache keeps one folder per SoC and applies the limits to each (src/compiler/op_cache.h).
  out.soc_folder = join(cache_dir, o.soc_version());
  out.mode = o.get("op_compiler_cache_mode");
  if (out.mode.empty()) out.mode = "enable";
  const std::string ini = join(cache_dir, "op_cache.ini");
  std::error_code ec;
  if (fs::exists(ini, ec)) {
    auto text = options::read_text_file(ini);
    if (!text.ok()) {
      out.warnings.push_back(text.status().message());
    } else {
      auto parsed = options::parse_op_cache_ini(*text, ini);
      if (parsed.effective()) {
        out.max_size_mb = *parsed.max_op_cache_size_mb;
        out.remain_ratio_percent = *parsed.remain_cache_size_ratio;
        out.rule = "op_cache.ini";
        return out;
      }
      for (auto& p : parsed.problems) out.warnings.push_back(p + " (op_cache.ini not used)");
      if (parsed.problems.empty())
        out.warnings.push_back(ini +
                               ": not used: both ascend_max_op_cache_size and ascend_remain_cache_size_ratio "
                               "must be set");
    }
  }
  const bool env_max = o.has_value("ASCEND_MAX_OP_CACHE_SIZE"),
             env_ratio = o.has_value("ASCEND_REMAIN_CACHE_SIZE_RATIO");
  if (env_max) out.max_size_mb = o.get_int("ASCEND_MAX_OP_CACHE_SIZE", 500);
  if (env_ratio) out.remain_ratio_percent = static_cast<int>(o.get_int("ASCEND_REMAIN_CACHE_SIZE_RATIO", 50));
  out.rule =
      env_max || env_ratio ? "ASCEND_MAX_OP_CACHE_SIZE / ASCEND_REMAIN_CACHE_SIZE_RATIO" : "default 500 MB / 50%";
  return out;
}

}  // namespace openge::paths
