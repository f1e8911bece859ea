#include "options/option_rules.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <system_error>

#include <unistd.h>

#include "options/aoe_ini.h"
#include "options/config_files.h"
#include "openge/did_you_mean.h"
#include "options/profiling_options.h"
#include "options/value_parsers.h"
#include "base/path_util.h"

namespace openge::options {
namespace {

std::vector<std::string> split_allowed(const char* allowed) {
  std::vector<std::string> out;
  std::string_view s = allowed;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('|', i);
    if (j == std::string_view::npos) j = s.size();
    out.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

bool is_mixed(const std::string& pm, const std::string& v2) {
  return pm == "allow_mix_precision" || pm == "allow_mix_precision_fp16" || pm == "allow_mix_precision_bf16" ||
         v2 == "mixed_float16" || v2 == "mixed_bfloat16";
}

}  // namespace

Normalized normalize_value(const OptionSpec& spec, const std::string& raw) {
  if (raw.empty() && spec.kind != Kind::kString) return {"", "the value is empty"};
  switch (spec.kind) {
    case Kind::kBool: {
      auto b = parse_bool(raw);
      if (!b) return {"", "must be True or False"};
      return {*b ? "True" : "False", ""};
    }
    case Kind::kInt: {
      auto n = parse_int(raw);
      if (!n || *n < spec.min || *n > spec.max) {
        if (spec.max == std::numeric_limits<int64_t>::max())
          return {"", "must be an integer >= " + std::to_string(spec.min)};
        return {"", "must be an integer in [" + std::to_string(spec.min) + ", " + std::to_string(spec.max) + "]"};
      }
      return {std::to_string(*n), ""};
    }
    case Kind::kEnum: {
      const auto allowed = split_allowed(spec.allowed);
      if (std::find(allowed.begin(), allowed.end(), raw) != allowed.end()) return {raw, ""};
      return {"", "must be one of " + join(allowed, ", ") + did_you_mean_suffix(closest_names(raw, allowed))};
    }
    case Kind::kString:
      return {raw, ""};
    case Kind::kFile:
    case Kind::kDir: {
      // fusion_switch_file and op_compiler_cache_dir restrict their characters (DISC-17).
      const std::string_view name = spec.name;
      if (name == "fusion_switch_file" || name == "op_compiler_cache_dir") {
        const std::string why = check_path_charset(raw);
        if (!why.empty()) return {"", why};
      }
      if (raw.find('\0') != std::string::npos) return {"", "the path contains a NUL character"};
      return {raw, ""};
    }
    case Kind::kStreamParallel: {
      auto p = parse_stream_parallel(raw);
      return p.ok() ? Normalized{raw, ""} : Normalized{"", p.status().message()};
    }
    case Kind::kDumpStep: {
      auto p = parse_dump_step(raw);
      return p.ok() ? Normalized{raw, ""} : Normalized{"", p.status().message()};
    }
    case Kind::kProfilingOptions:
      return {raw, ""};  // checked with its context in check_option_rules
    case Kind::kTimeoutMs: {
      auto n = parse_int(raw);
      if (!n || (*n != -1 && *n <= 0) || *n > std::numeric_limits<int32_t>::max())
        return {"", "must be -1 (no timeout) or a positive number of milliseconds up to 2147483647"};
      return {std::to_string(*n), ""};
    }
    case Kind::kTypeList:
    case Kind::kNameList: {
      const auto allowed = split_allowed(spec.allowed);
      std::string_view s = raw;
      size_t i = 0;
      while (i <= s.size()) {
        size_t j = s.find(',', i);
        if (j == std::string_view::npos) j = s.size();
        const std::string item(s.substr(i, j - i));
        if (item.empty()) return {"", "empty name in the comma-separated list"};
        if (spec.kind == Kind::kTypeList && std::find(allowed.begin(), allowed.end(), item) == allowed.end())
          return {"", "'" + item + "' is not one of " + join(allowed, ", ") +
                          did_you_mean_suffix(closest_names(item, allowed))};
        i = j + 1;
      }
      return {raw, ""};
    }
  }
  return {"", "unknown kind"};
}

void check_option_rules(const OptionSet& s, std::vector<Problem>& errors, std::vector<std::string>& warnings) {
  const std::string soc = s.soc_version();
  const bool a2 = soc_is_a2(soc);
  const std::string pm = s.get("precision_mode"), v2 = s.get("precision_mode_v2");

  // soc_version: a shipped profile, or one added under ASCEND_OPP_PATH (its files are read, and
  // a missing one reported with the profiles that exist, when a session compiles).
  if (!soc_is_built_in(soc)) {
    const bool safe = !soc.empty() && std::all_of(soc.begin(), soc.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '-';
    });
    const std::vector<std::string> built_in = {"Ascend910", "Ascend910B", "Ascend310P"};
    if (!safe)
      errors.push_back({"soc_version", soc, "must name a profile folder (letters, digits, _ and -)"});
    else if (!s.has_value("ASCEND_OPP_PATH"))
      errors.push_back({"soc_version", soc,
                        "must be one of " + join(built_in, ", ") + did_you_mean_suffix(closest_names(soc, built_in)) +
                            ", or a profile under the opp folder ASCEND_OPP_PATH names (unset)"});
  }

  // precision_mode vs precision_mode_v2 (docs/FORMATS.md, "Options: names and value rules"; AMB-12): not both.
  if (s.user_set("precision_mode") && s.user_set("precision_mode_v2"))
    errors.push_back(
        {"precision_mode_v2", v2, "'precision_mode' and 'precision_mode_v2' can not be assigned at the same time"});
  // bf16 modes only on the A2 series (OPT-precision_mode-14/16).
  if ((pm == "allow_mix_precision_bf16" || pm == "allow_fp32_to_bf16") && !a2)
    errors.push_back({"precision_mode", pm,
                      "supported only on the Atlas A2 training series (soc_version Ascend910B), "
                      "not " +
                          soc});
  if (v2 == "mixed_bfloat16" && !a2)
    errors.push_back({"precision_mode_v2", v2,
                      "supported only on the Atlas A2 training series (soc_version "
                      "Ascend910B), not " +
                          soc});
  // force_fp16 only in online inference (OPT-precision_mode-3).
  if (pm == "force_fp16" && !s.online_inference())
    errors.push_back({"precision_mode", pm, "force_fp16 applies only to online inference (graph_run_mode=0)"});
  // modify_mixlist needs mixed precision (OPT-modify_mixlist-2, AMB-13).
  const std::string effective_pm = s.user_set("precision_mode_v2") ? "" : pm;
  if (s.has_value("modify_mixlist") && !is_mixed(effective_pm, v2))
    errors.push_back({"modify_mixlist", s.get("modify_mixlist"),
                      "needs mixed precision: set precision_mode to allow_mix_precision, allow_mix_precision_fp16 or "
                      "allow_mix_precision_bf16, or precision_mode_v2 to mixed_float16 or mixed_bfloat16 (now "
                      "precision_mode=" +
                          pm + (v2.empty() ? "" : ", precision_mode_v2=" + v2) + ")"});
  // customize_dtypes has no effect under must_keep_origin_dtype (OPT-customize_dtypes-2; origin too, AMB-12).
  if (s.has_value("customize_dtypes") && (effective_pm == "must_keep_origin_dtype" || v2 == "origin"))
    warnings.push_back("customize_dtypes is ignored: precision_mode" +
                       std::string(v2 == "origin" ? "_v2=origin" : "=must_keep_origin_dtype") +
                       " keeps every operator's original dtype");

  // Dumps (OPT-dump_config.*).
  const bool dump = s.get_bool("dump_config.enable_dump"), debug = s.get_bool("dump_config.enable_dump_debug");
  if (dump && debug)
    errors.push_back({"dump_config.enable_dump_debug", "True",
                      "dump_config.enable_dump and dump_config.enable_dump_debug cannot be True at the same time"});
  if ((dump || debug) && !s.has_value("dump_config.dump_path"))
    errors.push_back(
        {"dump_config.dump_path", "",
         std::string("must be set when dump_config.") + (dump ? "enable_dump" : "enable_dump_debug") + " is True"});

  // Impl modes (OPT-op_precision_mode-8, AMB-20).
  if (s.has_value("op_precision_mode")) {
    for (const char* k : {"op_select_implmode", "optypelist_for_implmode"})
      if (s.has_value(k))
        warnings.push_back(std::string(k) + " is ignored: op_precision_mode is set and takes precedence");
  } else if (s.has_value("optypelist_for_implmode") && !s.has_value("op_select_implmode")) {
    errors.push_back(
        {"optypelist_for_implmode", s.get("optypelist_for_implmode"), "must be used together with op_select_implmode"});
  }

  // Compile cache in debug mode (OPT-op_compiler_cache_mode-9).
  const bool debug_level = s.get_int("op_debug_level", 0) != 0, debug_cfg = s.has_value("op_debug_config");
  if ((debug_level || debug_cfg) && s.user_set("op_compiler_cache_mode") &&
      s.get("op_compiler_cache_mode") != "disable")
    warnings.push_back("op_compiler_cache_mode=" + s.get("op_compiler_cache_mode") +
                       " is ignored: " + (debug_level ? "op_debug_level is non-zero" : "op_debug_config is set") +
                       ", so the compile cache is off");

  // NPU_COLLECT_PATH forces online compilation (NPU-14, AMB-27).
  if (s.has_value("NPU_COLLECT_PATH") && s.user_set("jit_compile") && s.get("jit_compile") != "true")
    warnings.push_back("jit_compile=" + s.get("jit_compile") +
                       " is overridden: NPU_COLLECT_PATH is set, so operators are compiled online");

  // Timeouts vs HCCL_EXEC_TIMEOUT (OPT-stream_sync_timeout-3, AMB-33: warn; seconds vs ms).
  const int64_t sst = s.get_int("stream_sync_timeout", -1);
  if (s.has_value("HCCL_EXEC_TIMEOUT") && sst != -1 && sst <= s.get_int("HCCL_EXEC_TIMEOUT") * 1000)
    warnings.push_back("stream_sync_timeout=" + std::to_string(sst) + " ms is not larger than HCCL_EXEC_TIMEOUT=" +
                       s.get("HCCL_EXEC_TIMEOUT") + " s; in cluster training it must be");

  // Profiling options and their requirements (C.3, ENV-12/13, PROF-4, AMB-2: whole-object replace).
  std::optional<ProfilingOptions> prof;
  if (s.has_value("profiling_config.profiling_options")) {
    const auto* v = s.find("profiling_config.profiling_options");
    const std::string param = v->source == Source::kEnv ? "PROFILING_OPTIONS" : "profiling_config.profiling_options";
    prof = check_profiling_options(v->value, param, ProfilingContext{soc, s.graph_run_mode()}, errors, warnings);
  }
  // An options text that did not parse has been reported; asking for its "output" again would
  // only repeat the problem.
  const bool options_unreadable = s.has_value("profiling_config.profiling_options") && !prof;
  if (s.get_bool("profiling_config.enable_profiling") && !options_unreadable) {
    // An "output" given but rejected (empty) has been reported already.
    const bool has_output = prof && prof->has("output");
    if (!has_output && !s.has_value("ASCEND_WORK_PATH"))
      errors.push_back({"profiling_config.profiling_options", s.get("profiling_config.profiling_options"),
                        "profiling needs an output folder: set \"output\" in profiling_options (or PROFILING_OPTIONS) "
                        "or the ASCEND_WORK_PATH environment variable"});
  }
  // DUMP_GRAPH_LEVEL without DUMP_GE_GRAPH does nothing.
  if (s.user_set("DUMP_GRAPH_LEVEL") && !s.has_value("DUMP_GE_GRAPH"))
    warnings.push_back("DUMP_GRAPH_LEVEL is ignored: DUMP_GE_GRAPH is not set");
}

void check_option_files(const OptionSet& s, std::vector<Problem>& errors, std::vector<std::string>& warnings) {
  const std::string& cwd = s.cwd();
  auto file_problem = [&](const char* option, const std::string& value, const std::string& message) {
    // One problem per reported line, so each file:line:column stays readable.
    size_t i = 0;
    while (i < message.size()) {
      size_t j = message.find('\n', i);
      if (j == std::string::npos) j = message.size();
      errors.push_back({option, value, message.substr(i, j - i)});
      i = j + 1;
    }
  };
  auto load = [&](const char* option) -> std::optional<std::pair<std::string, std::string>> {
    if (!s.has_value(option)) return std::nullopt;
    const std::string value = s.get(option), path = resolve_against(cwd, value);
    auto text = read_text_file(path);
    if (!text.ok()) {
      file_problem(option, value, text.status().message());
      return std::nullopt;
    }
    return std::make_pair(path, std::move(*text));
  };
  if (auto f = load("modify_mixlist")) {
    auto r = parse_modify_mixlist(f->second, f->first);
    if (!r.ok()) file_problem("modify_mixlist", s.get("modify_mixlist"), r.status().message());
  }
  if (auto f = load("customize_dtypes")) {
    auto r = parse_customize_dtypes(f->second, f->first);
    if (!r.ok()) file_problem("customize_dtypes", s.get("customize_dtypes"), r.status().message());
  }
  if (auto f = load("fusion_switch_file")) {
    auto r = parse_fusion_switch(f->second, f->first);
    if (!r.ok()) file_problem("fusion_switch_file", s.get("fusion_switch_file"), r.status().message());
  }
  if (auto f = load("op_precision_mode")) {
    auto r = parse_op_precision_ini(f->second, f->first);
    if (!r.ok()) file_problem("op_precision_mode", s.get("op_precision_mode"), r.status().message());
  }
  if (auto f = load("op_debug_config")) {
    auto r = parse_op_debug_config(f->second, f->first);
    if (!r.ok())
      file_problem("op_debug_config", s.get("op_debug_config"), r.status().message());
    else if (r->has("oom") && s.has_value("NPU_COLLECT_PATH"))
      // NPU-18 / AMB-28: refused here rather than failing later when the kernels run.
      errors.push_back({"op_debug_config", s.get("op_debug_config"),
                        "'oom' (Global Memory out-of-bounds check) is not supported while NPU_COLLECT_PATH is set"});
  }
  if (auto f = load("aoe_config.aoe_config_file")) {
    auto r = parse_aoe_config(f->second, f->first);
    if (!r.ok()) {
      file_problem("aoe_config.aoe_config_file", s.get("aoe_config.aoe_config_file"), r.status().message());
    } else {
      for (const auto& rep : r->repairs) warnings.push_back("aoe_config.aoe_config_file: " + rep);
      const std::string mode = s.get("aoe_config.aoe_mode");
      for (const auto& feat : r->feature) {
        const char* need = feat == "deeper_opat" ? "2" : "1";
        if (mode != need)
          errors.push_back({"aoe_config.aoe_config_file", s.get("aoe_config.aoe_config_file"),
                            "feature " + feat + " requires aoe_config.aoe_mode=" + need + " (now " +
                                (mode.empty() ? std::string("unset") : mode) + ")"});
      }
    }
  }
  // Folders that must already exist with read/write permission (OPT-dump_config.dump_path-2,
  // OPT-aoe_config.work_path-2, OPT-...output-2).
  auto need_dir = [&](const std::string& param, const std::string& value) {
    auto st = ensure_directory(resolve_against(cwd, value), false, Access::kReadWrite);
    if (!st.ok()) errors.push_back({param, value, st.message()});
  };
  if ((s.get_bool("dump_config.enable_dump") || s.get_bool("dump_config.enable_dump_debug")) &&
      s.has_value("dump_config.dump_path"))
    need_dir("dump_config.dump_path", s.get("dump_config.dump_path"));
  if (s.has_value("aoe_config.work_path")) need_dir("aoe_config.work_path", s.get("aoe_config.work_path"));
  // The opp folder is only read (an installed one is often read-only).
  if (s.has_value("ASCEND_OPP_PATH")) {
    const std::string dir = resolve_against(cwd, s.get("ASCEND_OPP_PATH"));
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec) || ::access(dir.c_str(), R_OK | X_OK) != 0)
      errors.push_back({"ASCEND_OPP_PATH", s.get("ASCEND_OPP_PATH"),
                        "is not a readable folder; it must be an opp folder holding "
                        "built-in/op_impl/ai_core/tbe/config/<soc>/aic-<soc>-ops-info.json"});
  }
  if (s.get_bool("profiling_config.enable_profiling") && s.has_value("profiling_config.profiling_options")) {
    auto p = parse_profiling_options(s.get("profiling_config.profiling_options"));
    if (p.ok() && !p->get("output").empty()) need_dir("profiling_config.profiling_options.output", p->get("output"));
  }
  // aoe.ini (ENV-4, MISC-20): read whenever it is there, since its WORK_PATH places the knowledge
  // base every compile reads; a malformed one is one error, keys of other CANN versions a warning.
  if (auto ini = read_aoe_ini(s); !ini.ok()) {
    errors.push_back({"ASCEND_TOOLKIT_HOME", s.get("ASCEND_TOOLKIT_HOME"), ini.status().message()});
  } else if (*ini) {
    for (const auto& key : (*ini)->ignored_keys)
      warnings.push_back(key +
                         ": not a key of aoe.ini OpenGE reads (WORK_PATH, TUNING_PARALLEL_NUM, RUN_LOOP); ignored");
  }
}

}  // namespace openge::options
