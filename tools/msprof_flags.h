// CANN msprof's command line (--application="APP ARGS" --output=DIR and the collection switches)
// read into one request: the profiling_options JSON the application's process gets through
// PROFILING_OPTIONS, and one line for each switch that has no CPU meaning.
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::cli {

struct MsprofRequest {
  std::string application;         // --application: a command line, run by /bin/sh
  std::string output;              // --output ("" = ENV-10's lower tiers)
  bool export_only = false;        // --export=on: re-export the collection in --output
  std::string profiling_options;   // JSON object for PROFILING_OPTIONS, without "output"
  std::vector<std::string> notes;  // switches accepted with no effect on a CPU
  bool help = false;
};

// Every problem of the line, or the request; unknown switches get a did-you-mean over msprof's.
Result<MsprofRequest> parse_msprof_line(int argc, char** argv);

std::string msprof_help();

// The words of a command line as /bin/sh splits them (quotes and backslashes; no expansion).
std::vector<std::string> split_command_line(const std::string& line);

// The model file an application line runs: the value of --model / --om, else the first word
// naming an .onnx / .oge / .om file; "" when it names none.
std::string model_in_command(const std::vector<std::string>& words);
// The file the application starts: the script an interpreter runs (python3 x.py, sh x.sh), else
// the program itself looked up in `search_path` (PATH); "" when it cannot be found.
std::string application_file(const std::vector<std::string>& words, const std::string& search_path);

}  // namespace openge::cli
