// What the engine loads code or decisions from must be out of other users' reach, as ssh's
// StrictModes asks of ~/.ssh (docs/DECISIONS.md, "Trusted folders"): compiled kernels (the
// operator compile cache, kernel_meta), their manifests and the AOE knowledge base are read only
// when
// - the file is a regular file (not a link, FIFO or device), owned by this user or root, and not
//   writable by group or others;
// - its folder and every folder above it is owned by this user or root and is not writable by
//   group or others, unless it has the sticky bit (as /tmp: others may add files there but not
//   rename or remove ours).
// Otherwise no one but this user and root can replace the file between its check and its use,
// so the digest checked before dlopen still holds when dlopen reads the file.
// Errors are one line naming the path and the fix.
#pragma once
#include <string>

#include "openge/status.h"

namespace openge {

// `what` names the thing in the message ("compile cache folder", "compiled kernel" ...).
Status check_trusted_folder(const std::string& dir, const std::string& what);
// The file and the folders above it.
Status check_trusted_file(const std::string& path, const std::string& what);

}  // namespace openge
