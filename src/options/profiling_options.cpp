#include "options/profiling_options.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "options/config_files.h"
#include "openge/did_you_mean.h"
#include "options/option_table.h"
#include "options/value_parsers.h"

namespace openge::options {
namespace {

using Json = nlohmann::json;

// A JSON syntax error as a user reads it: where, what was expected, and the usual cause; without
// the parser's exception name and its "last read" echo.
std::string plain_json_error(const Json::exception& e, std::string_view text) {
  std::string reason = json_error_reason(e.what());
  if (const auto lr = reason.find("; last read: "); lr != std::string::npos) {
    const auto end = reason.find("; ", lr + 13);
    reason.erase(lr, end == std::string::npos ? std::string::npos : end - lr);
  }
  std::string where;
  if (const auto* pe = dynamic_cast<const Json::parse_error*>(&e))
    where = " at column " + std::to_string(line_column(text, pe->byte).second);
  return "not valid JSON" + where + " (" + reason + "); keys and string values need double quotes";
}

enum class KeyKind { kPath, kStorage, kOnOff, kTrace, kAicpu, kName, kMetrics, kFreq, kLlc, kHostSys };

struct KeySpec {
  const char* key;
  KeyKind kind;
  int64_t min, max;  // kFreq
};

// Spec C.3, one row per key.
const KeySpec kKeys[] = {
    {"output", KeyKind::kPath, 0, 0},
    {"storage_limit", KeyKind::kStorage, 0, 0},
    {"training_trace", KeyKind::kOnOff, 0, 0},
    {"task_trace", KeyKind::kTrace, 0, 0},
    {"task_time", KeyKind::kTrace, 0, 0},
    {"hccl", KeyKind::kOnOff, 0, 0},
    {"aicpu", KeyKind::kAicpu, 0, 0},
    {"fp_point", KeyKind::kName, 0, 0},
    {"bp_point", KeyKind::kName, 0, 0},
    {"aic_metrics", KeyKind::kMetrics, 0, 0},
    {"l2", KeyKind::kOnOff, 0, 0},
    {"msproftx", KeyKind::kOnOff, 0, 0},
    {"runtime_api", KeyKind::kOnOff, 0, 0},
    {"sys_hardware_mem_freq", KeyKind::kFreq, 1, 100},
    {"llc_profiling", KeyKind::kLlc, 0, 0},
    {"sys_io_sampling_freq", KeyKind::kFreq, 1, 100},
    {"sys_interconnection_freq", KeyKind::kFreq, 1, 50},
    {"dvpp_freq", KeyKind::kFreq, 1, 100},
    {"instr_profiling_freq", KeyKind::kFreq, 300, 30000},
    {"host_sys", KeyKind::kHostSys, 0, 0},
    {"host_sys_usage", KeyKind::kHostSys, 0, 0},
    {"host_sys_usage_freq", KeyKind::kFreq, 1, 50},
};

// Keys that cannot be collected together with instr_profiling_freq (OPT-...instr_profiling_freq-3).
const char* kInstrExclusive[] = {"training_trace", "task_trace",  "hccl", "aicpu",     "fp_point",
                                 "bp_point",       "aic_metrics", "l2",   "task_time", "runtime_api"};

const KeySpec* find_key(const std::string& k) {
  for (const auto& s : kKeys)
    if (k == s.key) return &s;
  return nullptr;
}

// The value as the user wrote it: strings as is, numbers in decimal, bools as on/off would be
// ambiguous so they are reported as errors by the caller.
std::optional<std::string> value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());  // before integer: both match
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& profiling_option_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& s : kKeys) k.emplace_back(s.key);
    return k;
  }();
  return keys;
}

Result<ProfilingOptions> parse_profiling_options(std::string_view json_text) {
  Json j;
  try {
    j = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    return invalid_argument(plain_json_error(e, json_text));
  }
  if (!j.is_object()) return invalid_argument("must be a JSON object {\"key\": \"value\", ...}");
  ProfilingOptions out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    auto text = value_text(it.value());
    if (!text) return invalid_argument("the value of key '" + it.key() + "' must be a string or an integer");
    out.values[it.key()] = *text;
  }
  return out;
}

std::optional<ProfilingOptions> check_profiling_options(std::string_view json_text, const std::string& parameter,
                                                        const ProfilingContext& ctx, std::vector<Problem>& errors,
                                                        std::vector<std::string>& warnings) {
  Json j;
  try {
    j = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    errors.push_back({parameter, std::string(json_text), plain_json_error(e, json_text)});
    return std::nullopt;
  }
  if (!j.is_object()) {
    errors.push_back({parameter, std::string(json_text), "must be a JSON object {\"key\": \"value\", ...}"});
    return std::nullopt;
  }
  ProfilingOptions out;
  std::vector<std::string> rejected;  // keys already reported: rules between keys skip them
  auto bad = [&](const std::string& key, const std::string& value, const std::string& reason) {
    errors.push_back({parameter + "." + key, value, reason});
    rejected.push_back(key);
  };
  auto was_rejected = [&](const char* key) {
    return std::find(rejected.begin(), rejected.end(), key) != rejected.end();
  };
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const KeySpec* spec = find_key(key);
    if (!spec) {
      bad(key, it.value().dump(),
          "unknown profiling option key" + did_you_mean_suffix(closest_names(key, profiling_option_keys())));
      continue;
    }
    auto text = value_text(it.value());
    if (!text) {
      bad(key, it.value().dump(), "the value must be a string or an integer");
      continue;
    }
    const std::string& v = *text;
    out.values[key] = v;
    switch (spec->kind) {
      case KeyKind::kPath:
        if (v.empty()) bad(key, v, "the output folder must not be empty");
        break;
      case KeyKind::kStorage: {
        // The spec's own PROFILING_OPTIONS example carries the placeholder "xxMB" (S3:L8); it is
        // accepted verbatim and means "not configured" (AMB-32).
        if (v == "xxMB") {
          warnings.push_back(parameter +
                             ".storage_limit: 'xxMB' is the documentation placeholder; the limit stays "
                             "at 90% of the free disk space");
          out.values.erase(key);
          break;
        }
        auto mb = parse_storage_limit_mb(v);
        if (!mb.ok()) bad(key, v, mb.status().message());
        break;
      }
      case KeyKind::kOnOff:
        if (v != "on" && v != "off") bad(key, v, "must be on or off");
        break;
      case KeyKind::kTrace:
        if (v != "on" && v != "off" && v != "l0" && v != "l1") bad(key, v, "must be on, off, l0 or l1");
        break;
      case KeyKind::kAicpu:
        if (v != "on" && v != "off")
          warnings.push_back(parameter + ".aicpu: '" + v + "' is neither on nor off and is taken as off");
        break;
      case KeyKind::kName:
        break;  // an operator name, or "" for automatic detection
      case KeyKind::kMetrics: {
        auto m = parse_aic_metrics(v);
        if (!m.ok())
          bad(key, v, m.status().message());
        else if (m->name == "L2Cache" && !soc_is_a2(ctx.soc_version))
          bad(key, v,
              "L2Cache is supported only on the Atlas A2 training series (soc_version Ascend910B), not " +
                  ctx.soc_version);
        break;
      }
      case KeyKind::kFreq: {
        auto n = parse_int(v);
        if (!n || *n < spec->min || *n > spec->max)
          bad(key, v, "must be an integer in [" + std::to_string(spec->min) + "," + std::to_string(spec->max) + "]");
        break;
      }
      case KeyKind::kLlc:
        if (v != "read" && v != "write") bad(key, v, "must be read or write");
        break;
      case KeyKind::kHostSys: {
        if (v != "cpu" && v != "mem" && v != "cpu,mem" && v != "mem,cpu") bad(key, v, "must be cpu, mem or cpu,mem");
        break;
      }
    }
  }
  // Interactions between keys.
  if (out.has("instr_profiling_freq")) {
    if (!soc_is_a2(ctx.soc_version))
      bad("instr_profiling_freq", out.get("instr_profiling_freq"),
          "supported only on the Atlas A2 training series (soc_version Ascend910B), not " + ctx.soc_version);
    std::string clash;
    for (const char* k : kInstrExclusive)
      if (out.has(k)) clash += std::string(clash.empty() ? "" : ", ") + k;
    if (!clash.empty())
      bad("instr_profiling_freq", out.get("instr_profiling_freq"),
          "cannot be collected together with " + clash + " (they are mutually exclusive)");
  }
  if (out.has("task_trace") && out.has("task_time") && out.get("task_trace") != out.get("task_time"))
    bad("task_time", out.get("task_time"),
        "task_trace and task_time are two names of one switch and disagree ('" + out.get("task_trace") + "' vs '" +
            out.get("task_time") + "')");
  if (ctx.graph_run_mode == 1) {
    for (const char* k : {"task_trace", "task_time"})
      if (out.get(k) == "on" && out.get("training_trace") != "on" && !was_rejected("training_trace"))
        bad(k, "on",
            "in training (graph_run_mode=1, the default) " + std::string(k) +
                "=on requires training_trace=on: add "
                "\"training_trace\":\"on\", or set graph_run_mode=0 for an inference run");
  }
  return out;
}

}  // namespace openge::options
