// openge explain-precision: compiles a model with the given options and prints, for every node,
// the dtype it computes in, its engine and the precision rule that decided (page 002's
// precision_mode, mixed-precision lists, customize_dtypes, impl modes).
#include <cstdio>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "model_inputs.h"
#include "session_flags.h"
#include "openge/explain_precision.h"

namespace openge::cli {
namespace {

std::vector<FlagSpec> explain_flags() {
  std::vector<FlagSpec> flags = {
      {"model", "M.onnx", "model to explain (default: the bundled demo model)"},
      {"input", "NAME=FILE", "input tensor (fixes the shapes compiled for; default: random data)", true},
      {"json", "", "print the report as JSON"},
  };
  for (auto& f : session_flag_specs()) flags.push_back(f);
  return flags;
}

int fail(const Status& s) { return report_error("explain-precision", s); }

std::string chosen(const PrecisionRecord& r) {
  if (r.input_dtype == r.output_dtype) return r.input_dtype;
  return r.input_dtype + "->" + r.output_dtype;
}

void print_table(const std::vector<PrecisionRecord>& records) {
  std::printf("%-32s %-20s %-9s %-17s %-8s %s\n", "node", "op type", "model", "computes in", "engine", "rule");
  int changed = 0;
  for (const PrecisionRecord& r : records) {
    changed += r.input_dtype != r.original_dtype || r.output_dtype != r.original_dtype;
    std::printf(
        "%-32s %-20s %-9s %-17s %-8s %s%s\n", r.node.c_str(), r.op_type.c_str(), r.original_dtype.c_str(),
        chosen(r).c_str(), r.engine.c_str(), r.rule.c_str(),
        r.impl_mode.empty() && r.impl_rule.empty()
            ? ""
            : ("; impl: " + (r.impl_mode.empty() ? "default" : r.impl_mode) + " (" + r.impl_rule + ")").c_str());
  }
  std::printf("%zu nodes, %d computing in another dtype than the model's\n", records.size(), changed);
}

}  // namespace

int cmd_explain_precision(int argc, char** argv) {
  const std::vector<FlagSpec> flags = explain_flags();
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage(
        "openge explain-precision [--model M.onnx] [--option K=V]... [--options-file F] [--json]",
        "Compiles the model with the options and prints every node's compute dtype, engine and the\n"
        "precision rule that decided it (precision_mode / precision_mode_v2, SoC table, mixed-precision\n"
        "lists, customize_dtypes, op_precision_mode / op_select_implmode).",
        flags);
    return 0;
  }
  CreatedFolder created;
  auto options = session_options_from_flags("explain-precision", *args, created);
  if (!options) return 1;
  auto opened = open_model_with_inputs(*args, *options, 0, /*announce_demo=*/false, created);
  if (!opened.ok()) return fail(opened.status());
  auto explained = explain_precision(*opened->session, std::move(opened->inputs.tensors));
  if (!explained.ok()) return fail(explained.status());
  const auto& records = explained->records;
  const auto& warnings = explained->warnings;
  if (args->has("json")) {
    std::cout << precision_report_json(records, warnings);
    return 0;
  }
  print_table(records);
  for (const std::string& w : warnings) std::cout << "warning: " << w << "\n";
  return 0;
}

}  // namespace openge::cli
