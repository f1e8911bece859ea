// openge: run, benchmark and inspect ONNX models with OpenGE.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "openge/did_you_mean.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int argc, char** argv);
  const char* summary;
};

// One row per subcommand.
constexpr Command kCommands[] = {
    {"run", openge::cli::cmd_run, "run a model (the bundled demo without --model) and print its outputs"},
    {"train", openge::cli::cmd_train,
     "train a model on .npy data (graph_run_mode=1) and save it as ONNX with its trained weights"},
    {"bench", openge::cli::cmd_bench, "measure a model's latency: median, p90, min"},
    {"options", openge::cli::cmd_options, "list every option with its value and source; --explain NAME"},
    {"paths", openge::cli::cmd_paths, "where each artifact goes and which rule chose it"},
    {"check-options", openge::cli::cmd_check_options, "validate options; list every problem"},
    {"profile-report", openge::cli::cmd_profile_report, "HTML report and top ops of a profiling collection DIR"},
    {"explain-precision", openge::cli::cmd_explain_precision,
     "every node's compute dtype, engine and the precision rule that chose it"},
    {"ops", openge::cli::cmd_ops, "list the registered op types, one per line"},
    {"compile", openge::cli::cmd_compile,
     "compile a model once (ATC's offline compile) into a .oge that run loads without recompiling"},
    {"atc", openge::cli::cmd_atc,
     "ATC's command line as is (--model=M --framework=5 --output=NAME --soc_version=... --mode=0|1|3)"},
    {"msprof", openge::cli::cmd_msprof,
     "msprof's command line: --application=\"openge run ...\" runs with profiling on; --export=on re-exports"},
    {"check", openge::cli::cmd_check,
     "precheck a model (ATC --mode=3): check_result.json, every node supported or not"},
    {"dump", openge::cli::cmd_dump, "dump convert DIR --to npy: Data Dump files as .npy, one per tensor"},
    {"compare", openge::cli::cmd_compare,
     "compare two Data Dumps op by op: cosine, max abs/rel error, first deviating op"},
};

void print_usage(FILE* out) {
  std::fprintf(out, "usage: openge COMMAND [flags]   (openge COMMAND --help for its flags)\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-17s %s\n", c.name, c.summary);
}

// " (did you mean 'run'?)" for a mistyped command, or "".
std::string command_suggestion(const char* typed) {
  std::vector<std::string> names = {"help"};
  for (const auto& c : kCommands) names.push_back(c.name);
  return openge::options::did_you_mean_suffix(openge::options::closest_names(typed, names));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V") || !std::strcmp(argv[1], "version")) {
    std::printf("openge %s\n", OPENGE_VERSION);
    return 0;
  }
  for (const auto& c : kCommands)
    if (argv[1] == std::string(c.name)) return c.run(argc, argv);
  // One line: the mistake and its fix; the command list is one `openge --help` away.
  std::fprintf(stderr, "openge: unknown command '%s'%s; openge --help lists the commands\n", argv[1],
               command_suggestion(argv[1]).c_str());
  return 1;
}
