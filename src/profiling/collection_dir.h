// CANN's collection folder: PROF_<6-digit job number>_<17-digit local timestamp
// YYYYmmddHHMMSSmmm>_<random letters>/ (regex ^PROF_\d{6}_\d{17}_\w+$) holding device_<id>/ and
// host/ (each with data/), mindstudio_profiler_output/ and mindstudio_profiler_log/.
#pragma once
#include <string>

#include "openge/status.h"

namespace openge::profiling {

// A fresh name (the job number counts collections of this process from 1).
std::string collection_dir_name();

// Creates <parent>/<name>/ with its sub-folders and the given start_info text, under a hidden
// temporary name that is renamed at the end, so a failure leaves nothing behind. `parent` must
// exist and be writable (OPT-...output-2, MISC-6). Returns the folder's path.
Result<std::string> create_collection_dir(const std::string& parent, int device_id, const std::string& start_info);

}  // namespace openge::profiling
