// ATC's command line as CANN documents it (--model=M --framework=5 --output=NAME
// --soc_version=... --input_shape="x:1,3,224,224" --mode=0|1|3 and every global option as
// --name=value), read into one request that `openge atc` carries out with compile or check.
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::cli {

struct AtcRequest {
  int mode = 0;                      // 0 compile, 1 offline model to JSON, 3 precheck
  std::string model;                 // --model (mode 0 and 3)
  std::string output;                // --output, the extension appended
  std::string om;                    // --om (mode 1): the .oge to convert
  std::string json;                  // --json (mode 1)
  std::string input_shape;           // --input_shape, "name:1,3,224,224;name2:..."
  std::string check_report;          // --check_report (mode 3)
  std::string log_level;             // --log: debug, info, warning, error, null
  std::string out_nodes;             // --out_nodes, "node:0;node2:1"
  std::vector<std::string> options;  // "name=value" for the option builder
  std::vector<std::string> notes;    // one line per flag that does not apply on a CPU
  bool help = false;
};

// Every problem of the line, or the request. Unknown flags get a did-you-mean over ATC's flags
// and the option names.
Result<AtcRequest> parse_atc_line(const std::vector<std::string>& args);

// The names `openge atc --help` lists: ATC's own flags and the ones that have no CPU meaning.
std::vector<std::string> atc_flag_names();

}  // namespace openge::cli
