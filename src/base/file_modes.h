// The modes of everything the engine creates, set explicitly so that the umask of the process
// never decides them (docs/DECISIONS.md, "File modes"): folders 0750, data files 0640, compiled
// kernels 0750; what holds a run's tensors or weights (dumps, external weights) 0700 / 0600.
// Nothing the engine creates is ever writable by group or others, so the trust checks of
// base/trusted_path.h accept it.
#pragma once
#include <sys/types.h>

#include <string>

#include "openge/files.h"  // kFolderMode, kDataFileMode, make_directories
#include "openge/status.h"

namespace openge {

inline constexpr mode_t kSharedObjectMode = 0750;
inline constexpr mode_t kPrivateFolderMode = 0700;
inline constexpr mode_t kPrivateFileMode = 0600;

// Sets the mode of a file or folder this process created (chmod); errors name the path.
Status set_mode(const std::string& path, mode_t mode);
Status set_mode(int fd, const std::string& path, mode_t mode);  // the same on an open file (fchmod)

}  // namespace openge
