// Where profiling data goes in the scenarios that do not configure it through profiling_options:
// CANN's msprof command, an application's acl.json, and the PyTorch profiler's trace handler.
// Each applies its priority chain (ENV-10, ENV-11, ENV-14..16) and says which tier decided; the
// tier ASCEND_WORK_PATH means ASCEND_WORK_PATH/profiling_data (ENV-9). Relative paths resolve
// against `cwd` ("" = the current directory).
#pragma once
#include <string>

#include "openge/options.h"

namespace openge::profiling {

struct ChosenFolder {
  std::string path;  // absolute
  std::string rule;  // the tier that decided, e.g. "msprof --output (ENV-10)"
};

// ENV-10: msprof --output > ASCEND_WORK_PATH > the folder of the model file the application runs
// (`model_path`; "" when the application line names none: the folder of `application_file`, the
// script or program it starts, AMB-7's reading in docs/DECISIONS.md).
ChosenFolder msprof_output_folder(const std::string& output_flag, const options::EnvMap& env,
                                  const std::string& model_path, const std::string& application_file,
                                  const std::string& cwd = "");

// ENV-11: acl.json profiler "output" > ASCEND_WORK_PATH > the folder of the application's
// executable (`executable_dir`).
ChosenFolder acl_json_output_folder(const std::string& output_key, const options::EnvMap& env,
                                    const std::string& executable_dir, const std::string& cwd = "");

// ENV-14: the trace handler's folder > ASCEND_WORK_PATH > the working folder (AMB-7).
ChosenFolder trace_handler_folder(const std::string& handler_dir, const options::EnvMap& env,
                                  const std::string& cwd = "");

}  // namespace openge::profiling
