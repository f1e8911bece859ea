#include "options_cli.h"

namespace openge::cli {

std::vector<FlagSpec> option_flag_specs() {
  return {
      {"option", "NAME=VALUE", "set an npu.global_options() field (dotted name, GE key or leaf name)", true},
      {"options-file", "F", "options from a JSON file or npu.global_options().NAME=VALUE lines", true},
  };
}

options::Configuration option_report_from_args(const Args& args, const options::EnvMap& env,
                                               const std::vector<options::OptionAssignment>& extra) {
  options::OptionInputs in;
  in.env = env;
  in.flags = extra;
  std::vector<options::Problem> bad;
  for (const auto& kv : args.all("option")) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      bad.push_back({"--option", kv, "expected NAME=VALUE"});
      continue;
    }
    in.flags.push_back({kv.substr(0, eq), kv.substr(eq + 1), "--option"});
  }
  in.option_files = args.all("options-file");
  options::Configuration report = options::build_configuration(in);
  if (!bad.empty()) {
    report.errors.insert(report.errors.begin(), bad.begin(), bad.end());
    report.options.reset();
  }
  return report;
}

Result<std::shared_ptr<const options::OptionSet>> option_set_from_args(
    const Args& args, const options::EnvMap& env, const std::vector<options::OptionAssignment>& extra) {
  options::Configuration r = option_report_from_args(args, env, extra);
  if (!r.errors.empty()) return invalid_argument(options::format_problems(r.errors));
  return std::move(r.options);
}

}  // namespace openge::cli
