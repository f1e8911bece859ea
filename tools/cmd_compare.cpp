// openge compare A B [--threshold T] [--output FILE.csv] [--html FILE.html]: op-by-op comparison of
// two Data Dumps (or their .npy conversion, or a golden .npy folder), as a CSV and a self-contained
// HTML page with the per-op error plot.
#include <cstdio>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "openge/dump_compare.h"

namespace openge::cli {

int cmd_compare(int argc, char** argv) {
  const std::vector<FlagSpec> specs = {
      {"threshold", "T", "max relative error (max |a-b| / max |a|) above which an op deviates (default 0.01)"},
      {"output", "FILE",
       "write the per-op CSV there, and the HTML page beside it as FILE.html (default: print the CSV)"},
      {"html", "FILE", "write the HTML page (per-op error plot and table) there"}};
  const std::string synopsis = "openge compare A B [--threshold T] [--output FILE.csv] [--html FILE.html]";
  SplitArgs split = split_positional(argc, argv);
  const std::vector<char*>& rest = split.positional;
  auto args = Args::parse(static_cast<int>(split.flags.size()), split.flags.data(), 2, specs);
  if (!args.ok()) {
    report_error("compare", args.status());
    return 2;
  }
  if (args->has("help") || rest.size() != 2) {
    std::cout << usage(synopsis,
                       "Compares two Data Dumps (dump_config.enable_dump, dump_mode output or all) op by op: cosine "
                       "similarity, max absolute and relative error of each output, and the first op whose relative "
                       "error exceeds the threshold, by the model's node name. A or B may also be the .npy folder "
                       "`openge dump convert` writes, or a golden folder of .npy files from another framework (ONNX "
                       "Runtime, PyTorch) named {op_name}.{output_index}[.{timestamp}].npy after the model's nodes "
                       "('.', '/', '\\' and ' ' in names written '_'); golden data is compared with the dump's first "
                       "iteration. Ops present on one side only are named. With --output the HTML page (a plot of "
                       "cosine similarity and max "
                       "relative error per op in execution order, the first op over the threshold marked, and the "
                       "table) is written beside the CSV; --html names it, or asks for it when the CSV is printed.",
                       specs);
    return args->has("help") ? 0 : 2;
  }
  double threshold = 0.01;
  if (args->has("threshold")) {
    const std::string t = args->get("threshold");
    char* end = nullptr;
    threshold = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !(threshold >= 0)) {
      std::fprintf(stderr, "openge compare: error: --threshold must be a number >= 0, got '%s'\n", t.c_str());
      return 2;
    }
  }
  auto result = dump::compare_dumps(rest[0], rest[1], threshold);
  if (!result.ok()) {
    report_error("compare", result.status());
    return 1;
  }
  if (!result->warning.empty()) std::fprintf(stderr, "openge compare: warning: %s\n", result->warning.c_str());
  if (!args->has("output")) std::cout << dump::comparison_csv(*result);
  auto page = dump::write_comparison_files(*result, args->get("output"), args->get("html"));
  if (!page.ok()) {
    report_error("compare", page.status());
    return 1;
  }
  if (!page->empty()) std::printf("HTML page: %s\n", page->c_str());
  std::printf("A: %s, B: %s; %zu outputs compared (%d ops only in A, %d only in B)\n", result->kind_a.c_str(),
              result->kind_b.c_str(), result->rows.size(), result->only_in_a, result->only_in_b);
  for (const auto& [side, names] : {std::pair{"A", &result->ops_only_in_a}, std::pair{"B", &result->ops_only_in_b}})
    for (const std::string& name : *names) std::printf("only in %s: %s\n", side, name.c_str());
  if (result->first_exceeding)
    std::printf("%s\n", dump::first_deviation_line(*result).c_str());
  else
    std::printf("no op exceeds the threshold %g\n", threshold);
  return 0;
}

}  // namespace openge::cli
