// acl.json (aclInit's configuration file) as option assignments: openge/acl_json.h.
#include "openge/acl_json.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "openge/did_you_mean.h"
#include "openge/profiling_chains.h"
#include "options/config_files.h"

namespace openge {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kOrigin = "acl.json";

// The "profiler" keys that are profiling_options keys under the same name, and acl.json's own
// names for them.
struct ProfilerKey {
  const char* acl_key;
  const char* options_key;  // key of profiling_options
};
constexpr ProfilerKey kProfilerKeys[] = {
    {"aicpu", "aicpu"},
    {"aic_metrics", "aic_metrics"},
    {"task_time", "task_time"},
    {"task_trace", "task_trace"},
    {"training_trace", "training_trace"},
    {"l2", "l2"},
    {"hccl", "hccl"},
    {"msproftx", "msproftx"},
    {"runtime_api", "runtime_api"},
    {"ascendcl", "runtime_api"},  // AscendCL API records: OpenGE's host API records (load, compile, run)
    {"storage_limit", "storage_limit"},
    {"sys_hardware_mem_freq", "sys_hardware_mem_freq"},
    {"llc_profiling", "llc_profiling"},
    {"sys_io_sampling_freq", "sys_io_sampling_freq"},
    {"sys_interconnection_freq", "sys_interconnection_freq"},
    {"dvpp_freq", "dvpp_freq"},
    {"host_sys", "host_sys"},
    {"host_sys_usage", "host_sys_usage"},
    {"host_sys_usage_freq", "host_sys_usage_freq"},
};

// "dump" keys with a dump_config option of the same meaning.
constexpr std::pair<const char*, const char*> kDumpKeys[] = {
    {"dump_path", "dump_config.dump_path"},
    {"dump_mode", "dump_config.dump_mode"},
    {"dump_step", "dump_config.dump_step"},
    {"dump_data", "dump_config.dump_data"},
};
// "dump" keys read for what they switch, and those accepted with no CPU meaning.
constexpr const char* kDumpOtherKeys[] = {"dump_list", "dump_debug", "dump_op_switch", "dump_stats", "dump_scene"};

std::vector<std::string> names_of_profiler_keys() {
  std::vector<std::string> out = {"switch", "output"};
  for (const auto& k : kProfilerKeys) out.push_back(k.acl_key);
  return out;
}

std::vector<std::string> names_of_dump_keys() {
  std::vector<std::string> out;
  for (const auto& [k, _] : kDumpKeys) out.push_back(k);
  for (const char* k : kDumpOtherKeys) out.push_back(k);
  return out;
}

Status key_error(const std::string& file, const std::string& where, const std::string& reason) {
  return invalid_argument(file + ": " + where + ": " + reason);
}

Status unknown_key(const std::string& file, const std::string& section, const std::string& key,
                   const std::vector<std::string>& known) {
  return key_error(file, section + "." + key,
                   "unknown key" + options::did_you_mean_suffix(options::closest_names(key, known)));
}

// A scalar as the text an option takes; numbers and booleans are accepted as CANN's files write them.
Result<std::string> scalar_text(const Json& v, const std::string& file, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_boolean()) return std::string(v.get<bool>() ? "on" : "off");
  return key_error(file, where, "expected a string, got " + std::string(v.type_name()));
}

bool is_on(const std::string& s) { return s == "on" || s == "true" || s == "1"; }

Status read_dump(const Json& dump, const std::string& file, AclJsonSettings& out) {
  if (!dump.is_object()) return key_error(file, "dump", "expected an object");
  const auto known = names_of_dump_keys();
  bool debug = false;
  std::string layers;
  std::string named_models;  // the model_name of each entry that lists layers
  for (const auto& [key, value] : dump.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) return unknown_key(file, "dump", key, known);
    const std::string where = "dump." + key;
    if (key == "dump_list") {
      if (!value.is_array()) return key_error(file, where, "expected a list of {\"model_name\", \"layer\"}");
      for (const auto& entry : value) {
        if (!entry.is_object()) return key_error(file, where, "each entry is an object {\"model_name\", \"layer\"}");
        if (auto it = entry.find("model_name"); it != entry.end() && it->is_string() && entry.contains("layer"))
          named_models += (named_models.empty() ? "" : ", ") + it->get<std::string>();
        if (auto it = entry.find("layer"); it != entry.end()) {
          if (!it->is_array()) return key_error(file, where + ".layer", "expected a list of operator names");
          for (const auto& l : *it) {
            if (!l.is_string()) return key_error(file, where + ".layer", "operator names are strings");
            layers += (layers.empty() ? "" : " ") + l.get<std::string>();
          }
        }
      }
      continue;
    }
    if (key == "dump_stats") {
      out.notes.push_back(
          "acl.json dump.dump_stats: the stats mode writes its fixed set (Max, Min, Avg, L2Norm, "
          "counts); the list is not used");
      continue;
    }
    auto text = scalar_text(value, file, where);
    if (!text.ok()) return text.status();
    if (key == "dump_debug") {
      debug = is_on(*text);
    } else if (key == "dump_op_switch" || key == "dump_scene") {
      out.notes.push_back("acl.json dump." + key + " = " + *text +
                          ": no separate single-operator or exception scene on a CPU; not used");
    } else {
      for (const auto& [k, option] : kDumpKeys)
        if (key == k) out.assignments.push_back({option, *text, kOrigin});
    }
  }
  if (debug) {
    out.assignments.push_back({"dump_config.enable_dump_debug", "True", kOrigin});
    out.assignments.push_back({"dump_config.dump_debug_mode", "all", kOrigin});
  } else {
    out.assignments.push_back({"dump_config.enable_dump", "True", kOrigin});
  }
  if (!layers.empty()) out.assignments.push_back({"dump_config.dump_layer", layers, kOrigin});
  // dump_layer is one list for every session, so the layers of all entries apply to every model.
  if (!layers.empty() && !named_models.empty())
    out.notes.push_back("acl.json dump.dump_list: the layers listed for " + named_models +
                        " are dumped in every model the application runs (model_name is not matched)");
  return Status::Ok();
}

Status read_profiler(const Json& prof, const std::string& file, const options::EnvMap& env,
                     const std::string& executable_dir, const std::string& cwd, AclJsonSettings& out) {
  if (!prof.is_object()) return key_error(file, "profiler", "expected an object");
  const auto known = names_of_profiler_keys();
  Json options = Json::object();
  std::string output;
  bool on = false;
  for (const auto& [key, value] : prof.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) return unknown_key(file, "profiler", key, known);
    auto text = scalar_text(value, file, "profiler." + key);
    if (!text.ok()) return text.status();
    if (key == "switch") {
      if (*text != "on" && *text != "off") return key_error(file, "profiler.switch", "expected \"on\" or \"off\"");
      on = *text == "on";
    } else if (key == "output") {
      if (text->empty()) return key_error(file, "profiler.output", "an empty folder name");
      output = *text;
    } else {
      for (const auto& k : kProfilerKeys)
        if (key == k.acl_key) options[k.options_key] = *text;
    }
  }
  if (!on) return Status::Ok();
  // OpenGE's default scenario is training, where task_time=on needs the iteration trace; an
  // acl.json (offline inference) never asks for it.
  if (options.contains("task_time") && options["task_time"] == "on" && !options.contains("training_trace"))
    options["training_trace"] = "on";
  const auto chosen = profiling::acl_json_output_folder(output, env, executable_dir, cwd);
  out.profiling_folder = chosen.path;
  out.profiling_rule = chosen.rule;
  // The work path's tier is the engine's own chain (ASCEND_WORK_PATH/profiling_data, made on
  // demand); the others are given as the profiling output.
  if (chosen.rule.rfind("ASCEND_WORK_PATH", 0) != 0) options["output"] = chosen.path;
  out.assignments.push_back({"profiling_config.enable_profiling", "True", kOrigin});
  out.assignments.push_back({"profiling_config.profiling_options", options.dump(), kOrigin});
  return Status::Ok();
}

}  // namespace

std::string executable_folder() {
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path().string() : exe.parent_path().string();
}

Result<AclJsonSettings> read_acl_json(const std::string& path, const options::EnvMap& env,
                                      const std::string& executable_dir, const std::string& cwd) {
  auto text = options::read_text_file(path);
  if (!text.ok()) return text.status();
  Json doc;
  try {
    doc = Json::parse(text->begin(), text->end());
  } catch (const Json::parse_error& e) {
    const auto [line, column] = options::line_column(*text, e.byte);
    return invalid_argument(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": not valid JSON (" +
                            options::json_error_reason(e.what()) + ")");
  }
  if (!doc.is_object())
    return invalid_argument(path + ": acl.json must be a JSON object {\"dump\": ..., \"profiler\": ...}");
  AclJsonSettings out;
  for (const auto& [key, value] : doc.items()) {
    if (key == "dump") {
      if (Status s = read_dump(value, path, out); !s.ok()) return s;
    } else if (key == "profiler") {
      if (Status s = read_profiler(value, path, env, executable_dir, cwd, out); !s.ok()) return s;
    } else if (key == "err_msg_mode") {
      out.notes.push_back("acl.json err_msg_mode: errors are always reported per call on a CPU; not used");
    } else {
      return invalid_argument(
          path + ": unknown section \"" + key + "\"" +
          options::did_you_mean_suffix(options::closest_names(key, {"dump", "profiler", "err_msg_mode"})) +
          " (acl.json takes \"dump\" and \"profiler\")");
    }
  }
  return out;
}

Result<std::vector<std::string>> acl_init(const std::string& path, options::OptionInputs& inputs) {
  auto settings = read_acl_json(path, inputs.env, executable_folder(), inputs.cwd);
  if (!settings.ok()) return settings.status();
  inputs.flags.insert(inputs.flags.begin(), settings->assignments.begin(), settings->assignments.end());
  return settings->notes;
}

}  // namespace openge
