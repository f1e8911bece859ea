// CANN's acl.json (the configuration file aclInit reads) taken as it is: its "dump" section turns
// on Data Dump (or overflow detection with "dump_debug": "on") and its "profiler" section turns on
// profiling, both as option assignments for the sessions the application opens. Where profiling
// data goes follows ENV-11: the profiler's "output" > ASCEND_WORK_PATH > the folder of the
// application's executable. What is read and what has no CPU meaning: docs/DECISIONS.md.
#pragma once
#include <string>
#include <vector>

#include "openge/options.h"
#include "openge/status.h"

namespace openge {

struct AclJsonSettings {
  std::vector<options::OptionAssignment> assignments;  // origin "acl.json"
  std::string profiling_folder;                        // ENV-11's choice; "" when the profiler is off
  std::string profiling_rule;                          // the tier that chose it
  std::vector<std::string> notes;                      // keys read but with no CPU meaning, one line each
};

// Reads acl.json. `env` and `cwd` as the sessions will have them (ASCEND_WORK_PATH); `executable_dir`
// is the application's folder (the last tier of ENV-11). A file that is no JSON object, an unknown
// section or key, or a value of the wrong type is one error naming the file and the key.
Result<AclJsonSettings> read_acl_json(const std::string& path, const options::EnvMap& env,
                                      const std::string& executable_dir, const std::string& cwd = "");

// aclInit(path) for a C++ application: acl.json's settings are put in front of `inputs.flags`
// (an assignment already there wins), with `inputs.env` and `inputs.cwd`; the executable's folder
// is that of /proc/self/exe. The notes are returned.
Result<std::vector<std::string>> acl_init(const std::string& path, options::OptionInputs& inputs);

// The folder of this process's executable (/proc/self/exe).
std::string executable_folder();

}  // namespace openge
