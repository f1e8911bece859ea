// openge dump convert DIR --to npy [--output DIR]: the tensors of a Data Dump as .npy files.
#include <cstdio>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "openge/dump_convert.h"

namespace openge::cli {

int cmd_dump(int argc, char** argv) {
  const std::vector<FlagSpec> specs = {{"to", "FORMAT", "the format to convert to: npy (the only one)"},
                                       {"output", "DIR", "where the .npy files go (default: beside each dump file)"}};
  const std::string synopsis = "openge dump convert DIR --to npy [--output DIR]";
  const std::string description =
      "Converts every Data Dump file under DIR (dump_config.enable_dump) into one .npy per tensor, named "
      "<dump file>.<input|output>.<slot>.<FORMAT>.<dtype>.npy.";
  SplitArgs split = split_positional(argc, argv);
  const std::vector<char*>& rest = split.positional;
  auto args = Args::parse(static_cast<int>(split.flags.size()), split.flags.data(), 2, specs);
  if (!args.ok()) {
    report_error("dump", args.status());
    return 2;
  }
  if (args->has("help")) {
    std::cout << usage(synopsis, description, specs);
    return 0;
  }
  if (rest.size() != 2 || std::string(rest[0]) != "convert") {
    std::fprintf(stderr, "openge dump: error: expected `%s`\n", synopsis.c_str());
    return 2;
  }
  if (args->get("to") != "npy") {
    std::fprintf(stderr, "openge dump convert: error: --to must be npy, got '%s'\n", args->get("to").c_str());
    return 2;
  }
  auto summary = dump::convert_dumps_to_npy(rest[1], args->get("output"));
  if (!summary.ok()) {
    report_error("dump convert", summary.status());
    return 1;
  }
  std::printf("%d dump files converted into %d .npy files\n", summary->dump_files, summary->npy_files);
  return 0;
}

}  // namespace openge::cli
