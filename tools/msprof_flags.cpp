#include "msprof_flags.h"

#include <unistd.h>

#include <filesystem>
#include <map>

#include "cli_args.h"

namespace openge::cli {
namespace {

enum class Effect {
  kOption,    // the value goes to a profiling_options key
  kFreqWhen,  // "on" sets a sampling-frequency key to its default
  kNoCpu,     // accepted, one line saying why a CPU has nothing to collect
  kOwn,       // read by msprof itself (application, output, export)
};

struct MsprofSwitch {
  const char* name;  // msprof's switch, without "--"
  Effect effect;
  const char* key;   // kOption / kFreqWhen: the profiling_options key
  const char* text;  // help, or kFreqWhen: the default frequency, or kNoCpu: why
};

// msprof's switches (CANN's "msprof command line options"), one row each.
constexpr MsprofSwitch kSwitches[] = {
    {"application", Effect::kOwn, "", "the application's command line, run by /bin/sh (any OpenGE process or script)"},
    {"output", Effect::kOwn, "",
     "where the PROF_* folder goes (default: ASCEND_WORK_PATH/profiling_data, else the "
     "model file's folder)"},
    {"export", Effect::kOwn, "", "on: re-export the collection found in --output (report.html, top operators)"},
    {"task-time", Effect::kOption, "task_time", "on|off|l0|l1: operator task timings"},
    {"aicpu", Effect::kOption, "aicpu", "on|off: AI CPU operators in the summaries"},
    {"aic-metrics", Effect::kOption, "aic_metrics", "PipeUtilization|ArithmeticUtilization|Memory|..."},
    {"l2", Effect::kOption, "l2", "on|off"},
    {"msproftx", Effect::kOption, "msproftx", "on|off: user markers"},
    {"runtime-api", Effect::kOption, "runtime_api", "on|off: host API records (load, compile, run)"},
    {"ascendcl", Effect::kOption, "runtime_api", "on|off: AscendCL API records, OpenGE's host API records"},
    {"hccl", Effect::kOption, "hccl", "on|off: collective communication records"},
    {"training-trace", Effect::kOption, "training_trace", "on|off: iteration trace"},
    {"storage-limit", Effect::kOption, "storage_limit", "NMB: the collection's size limit (oldest files aged)"},
    {"sys-hardware-mem-freq", Effect::kOption, "sys_hardware_mem_freq", "1-100 Hz"},
    {"sys-hardware-mem", Effect::kFreqWhen, "sys_hardware_mem_freq", "50"},
    {"llc-profiling", Effect::kOption, "llc_profiling", "read|write"},
    {"sys-io-sampling-freq", Effect::kOption, "sys_io_sampling_freq", "1-100 Hz"},
    {"sys-io-profiling", Effect::kFreqWhen, "sys_io_sampling_freq", "100"},
    {"sys-interconnection-freq", Effect::kOption, "sys_interconnection_freq", "1-50 Hz"},
    {"sys-interconnection-profiling", Effect::kFreqWhen, "sys_interconnection_freq", "50"},
    {"dvpp-freq", Effect::kOption, "dvpp_freq", "1-100 Hz"},
    {"host-sys", Effect::kOption, "host_sys", "cpu,mem: this process's host CPU and memory"},
    {"host-sys-usage", Effect::kOption, "host_sys_usage", "cpu,mem: the whole system's"},
    {"host-sys-usage-freq", Effect::kOption, "host_sys_usage_freq", "1-50 Hz"},
    {"ai-core", Effect::kNoCpu, "", "every operator's task time is collected on a CPU; --task-time switches it"},
    {"aic-mode", Effect::kNoCpu, "", "no AI Core PMU sampling modes on a CPU"},
    {"aic-freq", Effect::kNoCpu, "", "no AI Core PMU sampling on a CPU"},
    {"model-execution", Effect::kNoCpu, "", "model execution records are always collected"},
    {"sys-profiling", Effect::kNoCpu, "", "no device system sampling on a CPU; --host-sys-usage samples the host"},
    {"sys-cpu-profiling", Effect::kNoCpu, "", "no device AI CPU sampling; --host-sys=cpu samples the host"},
    {"sys-pid-profiling", Effect::kNoCpu, "", "no device process sampling; --host-sys samples the host"},
    {"ge-api", Effect::kNoCpu, "", "no dynamic-shape host scheduling records"},
    {"type", Effect::kNoCpu, "", "the summaries are CSV and the timeline JSON, as text exports"},
    {"summary-format", Effect::kNoCpu, "", "the summaries are CSV"},
    {"python-path", Effect::kNoCpu, "", "the analysis is built in, no Python needed"},
    {"iteration-id", Effect::kNoCpu, "", "every iteration is exported"},
    {"model-id", Effect::kNoCpu, "", "every model is exported"},
    {"environment", Effect::kNoCpu, "", "use the shell's environment, e.g. --application=\"env A=B ...\""},
};

const char* kHelpIntro =
    "CANN msprof's command line: the application runs with profiling on (PROFILING_MODE=true and\n"
    "PROFILING_OPTIONS for its process and its children), so any OpenGE process or script is profiled;\n"
    "its exit status is msprof's. Profiling data goes to --output > ASCEND_WORK_PATH/profiling_data >\n"
    "the folder of the model file the application line names. --export=on --output=DIR rebuilds\n"
    "the report of the collection in DIR.";

std::vector<FlagSpec> flag_specs() {
  std::vector<FlagSpec> specs;
  for (const auto& s : kSwitches)
    specs.push_back({s.name, "VALUE", s.effect == Effect::kNoCpu ? std::string("accepted: ") + s.text : s.text});
  return specs;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_file(const std::string& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace

std::string msprof_help() {
  return usage("openge msprof --application=\"openge run --model M.onnx\" [--output=DIR] [--task-time=on] ...",
               kHelpIntro, flag_specs());
}

Result<MsprofRequest> parse_msprof_line(int argc, char** argv) {
  auto args = Args::parse(argc, argv, 2, flag_specs());
  if (!args.ok()) return args.status();
  MsprofRequest r;
  if (args->has("help")) {
    r.help = true;
    return r;
  }
  r.application = args->get("application");
  r.output = args->get("output");
  if (args->has("export")) {
    const std::string v = args->get("export");
    if (v != "on" && v != "off") return invalid_argument("--export takes on or off, got '" + v + "'");
    r.export_only = v == "on";
  }
  std::map<std::string, std::string> keys;
  for (const auto& s : kSwitches) {
    if (!args->has(s.name) || s.effect == Effect::kOwn) continue;
    const std::string v = args->get(s.name);
    switch (s.effect) {
      case Effect::kOption:
        keys[s.key] = v;
        break;
      case Effect::kFreqWhen:
        if (v != "on" && v != "off")
          return invalid_argument(std::string("--") + s.name + " takes on or off, got '" + v + "'");
        if (v == "on" && !keys.count(s.key)) keys[s.key] = s.text;
        break;
      case Effect::kNoCpu:
        r.notes.push_back(std::string("--") + s.name + "=" + v + " does not apply on a CPU: " + s.text);
        break;
      case Effect::kOwn:
        break;
    }
  }
  // An explicit frequency wins over the "on" switch's default.
  for (const auto& s : kSwitches)
    if (s.effect == Effect::kOption && args->has(s.name)) keys[s.key] = args->get(s.name);
  // OpenGE's default scenario is training, where task_time=on needs training_trace=on; an msprof
  // line (offline inference) never says so, so the iteration trace comes with the task times.
  if (keys.count("task_time") && keys["task_time"] == "on" && !keys.count("training_trace"))
    keys["training_trace"] = "on";
  std::string json = "{";
  for (const auto& [k, v] : keys) {
    if (json.size() > 1) json += ",";
    json += "\"" + k + "\":\"";
    for (char c : v) {
      if (c == '"' || c == '\\') json += '\\';
      json += c;
    }
    json += "\"";
  }
  r.profiling_options = json + "}";
  if (r.export_only && !r.application.empty())
    return invalid_argument("--export=on re-exports a collection: give --output=DIR without --application");
  if (r.export_only && r.output.empty()) return invalid_argument("--export=on needs --output=DIR, the collection");
  if (!r.export_only && r.application.empty())
    return invalid_argument("--application=\"COMMAND ARGS\" is required (the program or script to profile)");
  return r;
}

std::vector<std::string> split_command_line(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::string model_in_command(const std::vector<std::string>& words) {
  for (size_t i = 0; i < words.size(); ++i)
    for (const char* flag : {"--model", "--om", "-m"}) {
      const std::string f = flag;
      if (words[i] == f && i + 1 < words.size()) return words[i + 1];
      if (words[i].rfind(f + "=", 0) == 0) return words[i].substr(f.size() + 1);
    }
  for (const auto& w : words)
    if (ends_with(w, ".onnx") || ends_with(w, ".oge") || ends_with(w, ".om")) return w;
  return "";
}

std::string application_file(const std::vector<std::string>& words, const std::string& search_path) {
  if (words.empty()) return "";
  // An interpreter's script: the first argument that is a file.
  for (size_t i = 1; i < words.size(); ++i)
    if (words[i].rfind("-", 0) != 0 && is_file(words[i])) return words[i];
  if (words[0].find('/') != std::string::npos) return words[0];
  const std::string& dirs = search_path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string candidate = dirs.substr(start, end - start) + "/" + words[0];
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

}  // namespace openge::cli
