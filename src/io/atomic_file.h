// Artifacts are written to a temporary name in the target folder and renamed into place, so a
// crash, a full disk or a killed process never leaves a half-written file under the real name.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "openge/status.h"

namespace openge {

Status write_file_atomically(const std::string& path, std::string_view contents);
// The same with the contents given in pieces, written one after the other (no concatenation).
Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces);

}  // namespace openge
