// Small path helpers shared by the option checks and the artifact resolvers.
#pragma once
#include <string>

#include "openge/status.h"

namespace openge {

// `p` if absolute, else cwd/p; "" stays "".
std::string resolve_against(const std::string& cwd, const std::string& p);

// Access rights the spec asks for on a folder.
enum class Access { kReadWrite, kReadWriteExecute };

// The folder exists (or is created with its parents, mode 0750, when `create`), is a directory and grants
// `access` to this process. Errors say which of these failed.
Status ensure_directory(const std::string& dir, bool create, Access access);

// Ok when `path` is a regular file (links followed). Readers call it before they open a file, so
// that a FIFO, a device or a folder is one error naming it instead of an open that blocks until
// a writer comes (FIFO) or reads without end (/dev/zero). `what` names the file in the error.
Status require_regular_file(const std::string& path, const std::string& what);

}  // namespace openge
