// openge atc: ATC's command line as CANN documents it. --mode=0 compiles (openge compile, the
// output named NAME.oge as ATC names NAME.om), --mode=1 writes a compiled model as JSON, --mode=3
// prechecks (openge check); every global option is --name=value.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "atc_flags.h"
#include "cli_errors.h"
#include "commands.h"
#include "out_nodes.h"
#include "openge/compile.h"
#include "openge/files.h"

namespace openge::cli {
namespace {

int fail(const Status& s) { return report_error("atc", s); }

// Runs another openge command with the arguments built here.
int run_command(int (*command)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return command(static_cast<int>(args.size()), argv.data());
}

constexpr const char* kHelp =
    "usage: openge atc --model=M.onnx --framework=5 --output=NAME --soc_version=SOC [--input_shape=\"x:1,3,224,224\"]\n"
    "                  [--mode=0|1|3] [--debug_dir=DIR] [--log=debug|info|warning|error|null] "
    "[--GLOBAL_OPTION=VALUE]...\n"
    "       openge atc --mode=1 --om=NAME.oge --json=NAME.json\n\n"
    "ATC's command line: a line from CANN's documentation runs with `atc` replaced by `openge atc`.\n"
    "  --mode=0 (default) compiles the model to NAME.oge (ATC writes NAME.om); --mode=1 writes a compiled\n"
    "  model as JSON; --mode=3 prechecks the model into check_result.json (--check_report=FILE).\n"
    "  --framework must be 5 (ONNX). --soc_version's chip variants (Ascend910B1, Ascend310P3) use their\n"
    "  family's profile. --debug_dir=DIR puts kernel_meta under DIR. Every global option (precision_mode,\n"
    "  op_select_implmode, fusion_switch_file, ...) is --name=value. --out_nodes=\"node:0;node2:1\" makes those\n"
    "  nodes' outputs the graph's outputs. Flags with no CPU meaning (core_type,\n"
    "  insert_op_conf, ...) are accepted with one line saying so; unknown flags are refused.\n";

std::string with_extension(const std::string& output) {
  return output.size() > 4 && output.compare(output.size() - 4, 4, ".oge") == 0 ? output : output + ".oge";
}

}  // namespace

int cmd_atc(int argc, char** argv) {
  const std::vector<std::string> args(argv + 2, argv + argc);
  auto request = parse_atc_line(args);
  if (!request.ok()) return fail(request.status());
  if (request->help) {
    std::cout << kHelp;
    return 0;
  }
  for (const auto& note : request->notes) std::cerr << "openge atc: " << note << "\n";
  std::vector<std::string> option_args;
  for (const auto& o : request->options) {
    option_args.push_back("--option");
    option_args.push_back(o);
  }
  if (request->mode == 1) {
    if (request->om.empty() || request->json.empty())
      return fail(invalid_argument("--mode=1 needs --om=NAME.oge and --json=NAME.json"));
    // A line copied from CANN's documentation names NAME.om; the model openge atc wrote is NAME.oge.
    std::string om = request->om;
    if (om.size() > 3 && om.compare(om.size() - 3, 3, ".om") == 0 && !std::filesystem::exists(om) &&
        std::filesystem::exists(om.substr(0, om.size() - 3) + ".oge")) {
      om = om.substr(0, om.size() - 3) + ".oge";
      std::cerr << "openge atc: --om=" << request->om << ": reading " << om << ", the model openge atc wrote\n";
    }
    if (Status s = write_compiled_model_json(om, request->json); !s.ok()) return fail(s);
    std::cout << "wrote " << request->json << " (the compiled model " << om << " as JSON)\n";
    return 0;
  }
  if (request->model.empty()) return fail(invalid_argument("--model=M.onnx is required"));
  if (request->mode == 3) {
    std::vector<std::string> check = {"openge", "check", "--model", request->model};
    if (!request->check_report.empty()) check.insert(check.end(), {"--check-report", request->check_report});
    check.insert(check.end(), option_args.begin(), option_args.end());
    return run_command(cmd_check, check);
  }
  if (request->output.empty())
    return fail(invalid_argument("--output=NAME is required (the model is written to NAME.oge)"));
  // ATC creates the output's folder (--output=out/resnet50 with no out/ yet).
  const std::string output = with_extension(request->output);
  if (const auto parent = std::filesystem::path(output).parent_path(); !parent.empty())
    if (Status s = make_directories(parent.string(), kFolderMode); !s.ok())
      return fail(s.with_context("--output=" + request->output));
  // --out_nodes: the model with those outputs is compiled, from a copy removed afterwards.
  std::string model = request->model;
  struct RemoveCopy {
    std::string path;
    ~RemoveCopy() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove(path, ec);
    }
  } copy;
  if (!request->out_nodes.empty()) {
    auto edited = model_with_out_nodes(request->model, request->out_nodes);
    if (!edited.ok()) return fail(edited.status());
    model = copy.path = *edited;
    std::cerr << "openge atc: --out_nodes: the graph's outputs are " << request->out_nodes << "\n";
  }
  std::vector<std::string> compile = {"openge", "compile", "--model", model, "--output", output};
  if (!request->input_shape.empty()) compile.insert(compile.end(), {"--input-shape", request->input_shape});
  compile.insert(compile.end(), option_args.begin(), option_args.end());
  return run_command(cmd_compile, compile);
}

}  // namespace openge::cli
