// Artifacts are written to a temporary name in the target folder and renamed into place, so a
// crash, a full disk or a killed process never leaves a half-written file under the real name.
// Files are created 0640 whatever the umask (base/file_modes.h). The temporary is
// "<path>.tmp.<pid>"; the first write of a process into a folder removes the temporaries there
// whose process is gone (io/stale_temporaries.h).
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "openge/files.h"  // write_file_atomically
#include "openge/status.h"

namespace openge {

// fsync of each file and then of each one's folder (so that its rename is on disk too): what was
// written survives a crash of the machine, not only of the process. A file removed meanwhile is
// skipped. Errors name the path.
Status sync_to_disk(const std::vector<std::string>& paths);

}  // namespace openge
