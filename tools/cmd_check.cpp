// openge check: the model precheck of ATC --mode=3. Writes check_result.json (every node,
// supported or not and why) to --check-report > ASCEND_WORK_PATH > the working directory and
// prints a summary; exits 1 when some node or the model fails the check.
#include <cstdio>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "options_cli.h"
#include "openge/precheck.h"

namespace openge::cli {

int cmd_check(int argc, char** argv) {
  std::vector<FlagSpec> flags = {
      {"model", "M.onnx", "the model to check (required)"},
      {"check-report", "FILE",
       "where the report goes (default: ASCEND_WORK_PATH/check_result.json, else ./check_result.json)"},
  };
  for (auto& f : option_flag_specs()) flags.push_back(f);
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return report_error("check", args.status());
  if (args->has("help")) {
    std::cout << usage("openge check --model M.onnx [--check-report FILE]",
                       "Prechecks a model as ATC --mode=3 does: every node is checked (op type known, name unique,\n"
                       "loads and compiles, open input dimensions taken as 1) and the result is written to\n"
                       "check_result.json. Exits 1 when anything fails.",
                       flags);
    return 0;
  }
  if (args->get("model").empty()) return report_error("check", invalid_argument("--model is required"));
  auto options = option_set_from_args(*args, options::capture_process_environment());
  if (!options.ok()) return report_error("check", options.status());
  const std::string model = args->get("model");
  const precheck::CheckReport report = precheck::check_model(model, nullptr, 0, &**options);
  auto written = precheck::write_check_report(report, **options, args->get("check-report"));
  if (!written.ok()) return report_error("check", written.status());
  for (const auto& op : report.ops)
    for (const auto& cause : op.causes)
      std::cout << "node " << op.type << " '" << escape_control_chars(op.name)
                << "': " << escape_control_chars(cause.message) << "\n";
  for (const auto& cause : report.model_causes) std::cout << "model: " << escape_control_chars(cause.message) << "\n";
  std::cout << "precheck " << (report.ok() ? "passed" : "failed") << ": " << report.ops.size() - report.failed_ops()
            << " of " << report.ops.size() << " nodes supported; report: " << *written << "\n";
  return report.ok() ? 0 : 1;
}

}  // namespace openge::cli
