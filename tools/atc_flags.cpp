#include "atc_flags.h"

#include "openge/did_you_mean.h"
#include "openge/options.h"

namespace openge::cli {
namespace {

enum class AtcField {
  kMode,
  kModel,
  kFramework,
  kOutput,
  kOm,
  kJson,
  kInputShape,
  kInputFormat,
  kOutNodes,
  kLog,
  kCheckReport,
  kSocVersion,
  kWeight,
  kNotOnCpu
};

struct AtcFlag {
  const char* name;
  AtcField field;
  const char* note;  // kNotOnCpu: why a CPU has nothing to do with it
};

// ATC's own flags; every other --name=value must be a global option (options/option_table.cpp).
constexpr AtcFlag kAtcFlags[] = {
    {"mode", AtcField::kMode, ""},
    {"model", AtcField::kModel, ""},
    {"framework", AtcField::kFramework, ""},
    {"output", AtcField::kOutput, ""},
    {"om", AtcField::kOm, ""},
    {"json", AtcField::kJson, ""},
    {"input_shape", AtcField::kInputShape, ""},
    {"input_format", AtcField::kInputFormat, ""},
    {"out_nodes", AtcField::kOutNodes, ""},
    {"log", AtcField::kLog, ""},
    {"check_report", AtcField::kCheckReport, ""},
    {"soc_version", AtcField::kSocVersion, ""},
    {"weight", AtcField::kWeight, ""},
    {"core_type", AtcField::kNotOnCpu, "a CPU has no VectorCore/AiCore choice"},
    {"aicore_num", AtcField::kNotOnCpu, "the thread count is --threads"},
    {"insert_op_conf", AtcField::kNotOnCpu,
     "AIPP runs on the Ascend image pre-processor; preprocess the input instead"},
    {"host_env_os", AtcField::kNotOnCpu, "the model runs on the host it was compiled for"},
    {"host_env_cpu", AtcField::kNotOnCpu, "the model runs on the host it was compiled for"},
    {"virtual_type", AtcField::kNotOnCpu, "there are no virtual NPU instances"},
    {"enable_single_stream", AtcField::kNotOnCpu, "a CPU has no streams"},
    {"buffer_optimize", AtcField::kNotOnCpu, "there is no L2 buffer to plan"},
    {"display_model_info", AtcField::kNotOnCpu, "openge compile --info M.oge shows what a model holds"},
    {"output_type", AtcField::kNotOnCpu, "outputs keep the model's element types"},
    {"input_fp16_nodes", AtcField::kNotOnCpu, "inputs keep the model's element types"},
    {"is_input_adjust_hw_layout", AtcField::kNotOnCpu, "there is no hardware input layout"},
    {"is_output_adjust_hw_layout", AtcField::kNotOnCpu, "there is no hardware output layout"},
    {"disable_reuse_memory", AtcField::kNotOnCpu, "memory reuse is planned by the engine"},
    {"enable_compress_weight", AtcField::kNotOnCpu, "weights are not compressed"},
    {"compress_weight_conf", AtcField::kNotOnCpu, "weights are not compressed"},
    {"sparsity", AtcField::kNotOnCpu, "there is no structured-sparsity unit"},
    {"status_check", AtcField::kNotOnCpu, "there is no device status to check"},
    {"auto_tune_mode", AtcField::kNotOnCpu, "tuning is aoe_config.aoe_mode"},
};

// CANN's SoC names are chip variants (Ascend910B1, Ascend310P3); the engine's profiles are the families.
struct SocFamily {
  const char* prefix;
  const char* profile;
};
constexpr SocFamily kSocFamilies[] = {
    {"Ascend910B", "Ascend910B"}, {"Ascend910", "Ascend910"}, {"Ascend310P", "Ascend310P"}};

const AtcFlag* find_atc_flag(const std::string& name) {
  for (const auto& f : kAtcFlags)
    if (name == f.name) return &f;
  return nullptr;
}

std::string suggestion(const std::string& name) {
  std::vector<std::string> names = atc_flag_names();
  for (const auto& n : options::all_option_names())
    if (n.find('.') == std::string::npos) names.push_back(n);
  const auto close = options::closest_names(name, names);
  return close.empty() ? "" : " (did you mean --" + close[0] + "?)";
}

Status apply(const AtcFlag& flag, const std::string& value, AtcRequest& r) {
  switch (flag.field) {
    case AtcField::kMode:
      if (value != "0" && value != "1" && value != "3")
        return invalid_argument("--mode=" + value +
                                " is not one OpenGE runs; use 0 (compile), 1 (model to JSON) or 3 (precheck)");
      r.mode = value[0] - '0';
      return Status::Ok();
    case AtcField::kModel:
      r.model = value;
      return Status::Ok();
    case AtcField::kFramework:
      if (value != "5")
        return invalid_argument("--framework=" + value +
                                ": OpenGE reads ONNX models (--framework=5); export the model to ONNX first");
      return Status::Ok();
    case AtcField::kOutput:
      r.output = value;
      return Status::Ok();
    case AtcField::kOm:
      r.om = value;
      return Status::Ok();
    case AtcField::kJson:
      r.json = value;
      return Status::Ok();
    case AtcField::kInputShape:
      r.input_shape = value;
      return Status::Ok();
    case AtcField::kInputFormat:
      // An ONNX model's inputs are in the layout the model declares; ATC accepts NCHW/ND/NCDHW for them.
      if (value != "NCHW" && value != "ND" && value != "NCDHW")
        return invalid_argument("--input_format=" + value + ": ONNX models take NCHW, NCDHW or ND");
      return Status::Ok();
    case AtcField::kOutNodes:
      r.out_nodes = value;
      return Status::Ok();
    case AtcField::kLog:
      if (value != "debug" && value != "info" && value != "warning" && value != "error" && value != "null")
        return invalid_argument("--log=" + value + " must be debug, info, warning, error or null");
      r.log_level = value;
      r.options.push_back("ASCEND_GLOBAL_LOG_LEVEL=" + std::to_string(value == "debug"     ? 0
                                                                      : value == "info"    ? 1
                                                                      : value == "warning" ? 2
                                                                      : value == "error"   ? 3
                                                                                           : 4));
      return Status::Ok();
    case AtcField::kCheckReport:
      r.check_report = value;
      return Status::Ok();
    case AtcField::kSocVersion: {
      std::string profile = value;
      for (const auto& f : kSocFamilies)
        if (value.rfind(f.prefix, 0) == 0) {
          profile = f.profile;
          break;
        }
      if (profile != value) r.notes.push_back("--soc_version=" + value + ": using the " + profile + " profile");
      r.options.push_back("soc_version=" + profile);
      return Status::Ok();
    }
    case AtcField::kWeight:
      r.notes.push_back("--weight: an ONNX model holds its weights; ignored");
      return Status::Ok();
    case AtcField::kNotOnCpu:
      r.notes.push_back("--" + std::string(flag.name) + " does not apply on a CPU (" + flag.note + "); ignored");
      return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> atc_flag_names() {
  std::vector<std::string> names;
  for (const auto& f : kAtcFlags) names.push_back(f.name);
  return names;
}

Result<AtcRequest> parse_atc_line(const std::vector<std::string>& args) {
  AtcRequest r;
  std::vector<std::string> problems;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h" || arg == "--h") {
      r.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      problems.push_back("unexpected argument '" + arg + "' (ATC flags are --name=value)");
      continue;
    }
    std::string name = arg.substr(2), value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      value = args[++i];
    } else {
      problems.push_back("--" + name + " needs a value (--" + name + "=VALUE)");
      continue;
    }
    if (const AtcFlag* flag = find_atc_flag(name)) {
      if (Status s = apply(*flag, value, r); !s.ok()) problems.push_back(s.message());
    } else if (options::option_info(name)) {
      r.options.push_back(name + "=" + value);
    } else {
      problems.push_back("unknown flag --" + name + suggestion(name));
    }
  }
  if (!problems.empty()) {
    std::string msg;
    for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    return invalid_argument(msg);
  }
  return r;
}

}  // namespace openge::cli
