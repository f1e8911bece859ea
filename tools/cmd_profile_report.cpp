// openge profile-report DIR: rebuilds the self-contained HTML report of a profiling collection
// from its exported summaries and prints the top operators.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "profile_summary.h"
#include "openge/profiling_report.h"
#include "openge/files.h"

namespace openge::cli {

int cmd_profile_report(int argc, char** argv) {
  const std::vector<FlagSpec> specs = {
      {"output", "FILE", "where to write the HTML report (default DIR/mindstudio_profiler_output/report.html)"},
      {"top", "N", "operators in the printed table (default 10)"}};
  SplitArgs split = split_positional(argc, argv);
  const std::vector<char*>& rest = split.positional;
  auto args = Args::parse(static_cast<int>(split.flags.size()), split.flags.data(), 2, specs);
  if (!args.ok()) {
    report_error("profile-report", args.status());
    return 2;
  }
  if (args->has("help") || rest.size() != 1) {
    std::cout << usage("openge profile-report DIR [--output FILE] [--top N]",
                       "Writes the HTML report of a profiling collection (a PROF_* folder) and prints the top "
                       "operators by their median time per iteration over iterations 2..N (iteration 1, compile and "
                       "warm-up, apart). DIR may also be the folder that holds one PROF_* folder.",
                       specs);
    return args->has("help") ? 0 : 2;
  }
  auto top = args->get_int("top", 10, 1, 100000);
  if (!top.ok()) {
    report_error("profile-report", top.status());
    return 2;
  }
  const std::string dir = rest[0];
  auto data = profiling::load_report_data(dir);
  if (!data.ok()) {
    report_error("profile-report", data.status());
    return 1;
  }
  namespace fs = std::filesystem;
  std::string out = args->get("output");
  if (out.empty()) out = (fs::path(data->folder) / "report.html").string();
  if (Status s = write_file_atomically(out, profiling::render_report_html(data.value(), {})); !s.ok()) {
    report_error("profile-report", s);
    return 1;
  }
  std::printf("profiling data: %s\n", data->folder.c_str());
  print_top_ops(data.value(), static_cast<size_t>(*top));
  std::printf("report: %s\n", out.c_str());
  return 0;
}

}  // namespace openge::cli
