// aoe.ini (ENV-4, MISC-20): the AOE engine's configuration file that CANN installs at
// ${install_path}/latest/tools/aoe/conf/aoe.ini. CANN's set_env.sh exports ASCEND_TOOLKIT_HOME
// as ${install_path}/latest, so the file read is ASCEND_TOOLKIT_HOME/tools/aoe/conf/aoe.ini, and
// none while ASCEND_TOOLKIT_HOME is unset or the file is absent. Its keys as CANN documents them:
//   WORK_PATH            the tuning work folder: the AOE folder's default (below ASCEND_WORK_PATH)
//   TUNING_PARALLEL_NUM  1..64 (default 8): checked, changes nothing (docs/DECISIONS.md)
//   RUN_LOOP             1..2048 (default 10): timed runs per AOE measurement
// KEY=value lines, '#' / ';' comments, [section] headers allowed; other keys are ignored with a
// warning (CANN versions differ). Anything else is malformed: one error, "file:line: reason".
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openge/status.h"

namespace openge::options {

class OptionSet;

struct AoeIni {
  std::string path;
  std::optional<std::string> work_path;  // as written (relative: against the working directory)
  std::optional<int> tuning_parallel_num;
  std::optional<int> run_loop;
  std::vector<std::string> ignored_keys;  // "file:line: key"
};

// The file the options name: ASCEND_TOOLKIT_HOME/tools/aoe/conf/aoe.ini, or "" when unset.
std::string aoe_ini_path(const OptionSet& options);

Result<AoeIni> parse_aoe_ini(std::string_view text, const std::string& file);

// nullopt when there is no aoe.ini to read; an error when it cannot be read or is malformed.
Result<std::optional<AoeIni>> read_aoe_ini(const OptionSet& options);

}  // namespace openge::options
